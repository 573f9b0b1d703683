package mcpserve

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainSlack is how long past the grace a stopping server waits for the
// answers still owed: the grace bounds the calls, this the writing of
// their results.
const drainSlack = time.Second

// Serve serves one client over t, a stream such as standard input and
// output, until the client ends the session (nil), ctx is cancelled (nil:
// an interrupt), or a record cannot be written (the error).
//
// Cancelling ctx stops the server cleanly: calls in flight are cancelled
// and get the grace to return (Runner.EndGrace ends it early), calls that
// come meanwhile are answered as aborted, and every call read is answered
// before the stream is closed.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	owed := &answers{open: make(map[jsonrpc.ID]struct{}), changed: make(chan struct{}, 1)}
	ss, err := s.mcp.Connect(context.WithoutCancel(ctx), &answeredTransport{t, owed}, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		// The client closed the stream; the SDK cancelled what was in
		// flight and waited for it.
		s.stop()
		if err := s.failure(); err != nil {
			return err
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		return err
	case <-ctx.Done():
	case <-s.failed:
	}
	s.stop()
	owed.drain(s.opts.Runner.Grace+drainSlack, s.opts.Runner.EndGrace)
	ss.Close()
	<-ended
	return s.failure()
}

// answeredTransport is a transport whose connection notes the calls read
// and the answers written, so that a server that stops can answer every
// call before it closes the stream: once closing, the SDK writes nothing
// more.
type answeredTransport struct {
	mcp.Transport
	owed *answers
}

func (t *answeredTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &answeredConn{c, t.owed}, nil
}

type answeredConn struct {
	mcp.Connection
	owed *answers
}

func (c *answeredConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.owed.add(req.ID)
	}
	return msg, err
}

func (c *answeredConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.owed.remove(resp.ID)
	}
	return err
}

// answers are the calls read and not yet answered.
type answers struct {
	mu      sync.Mutex
	open    map[jsonrpc.ID]struct{}
	changed chan struct{}
}

func (a *answers) add(id jsonrpc.ID) {
	a.mu.Lock()
	a.open[id] = struct{}{}
	a.mu.Unlock()
}

func (a *answers) remove(id jsonrpc.ID) {
	a.mu.Lock()
	delete(a.open, id)
	a.mu.Unlock()
	select {
	case a.changed <- struct{}{}:
	default:
	}
}

func (a *answers) owed() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.open)
}

func (a *answers) drain(limit time.Duration, endGrace <-chan struct{}) {
	drain(a.owed, a.changed, limit, endGrace)
}

// drain waits until owed is 0, checking it whenever changed says it may
// have changed, at most limit; once endGrace is closed (a second
// interrupt) the calls give up at once, and what they owe gets drainSlack
// to be written.
func drain(owed func() int, changed <-chan struct{}, limit time.Duration, endGrace <-chan struct{}) {
	t := time.NewTimer(limit)
	defer t.Stop()
	for owed() > 0 {
		select {
		case <-changed:
		case <-t.C:
			return
		case <-endGrace:
			endGrace = nil
			t.Reset(drainSlack)
		}
	}
}

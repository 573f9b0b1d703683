package toolsource

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/termtext"
)

// stdioConn is an MCP connection over a server's standard input and
// output: one JSON-RPC message a line, as the SDK's IOTransport, but
// forgiving where a server is sloppy and the clients of other programs
// (Claude Code, Claude Desktop, Gemini CLI: the TypeScript and Python
// SDKs) forgive too. The SDK's reader takes the first line it cannot read
// for a broken connection, and every call of the server fails with it:
//
//   - a line that is no JSON-RPC message (a banner, a log line: pino
//     writes JSON objects without "jsonrpc") is skipped, and told;
//   - an answer to a tools/list too deep for the SDK is taken apart
//     (toolList.rescue), so that only its deepest tools are lost;
//   - any other answer the SDK cannot read (nested too deep) is an error
//     of the call it answers, found by its id wherever the id is, so
//     that the call does not wait for an answer that came;
//   - an answer longer than max is not read: its call gets an error
//     saying so, when the line's head names the call, and the connection
//     goes on; otherwise kesoku ends the connection, and says why.
type stdioConn struct {
	r      *bufio.Reader
	closer io.Closer // the server's standard output
	w      io.WriteCloser
	max    int
	list   *toolList
	// skipped is told of each line that is not a message, escaped.
	skipped func(line string)

	writeMu sync.Mutex
	mu      sync.Mutex
	// calls are the methods of the calls sent and not yet answered.
	calls map[jsonrpc.ID]string

	incoming chan jsonrpc.Message
	// read is closed once the reads have ended.
	read      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	// ended says why kesoku ended the connection, "" when it did not.
	ended atomic.Pointer[string]
	// readErr is why the reads ended (the output closed), set before
	// incoming is closed.
	readErr error
	// outputEnded is set when the server's output ended before kesoku
	// closed the connection: the server went away by itself.
	outputEnded atomic.Bool
	// inputBroken is set when a write to the server failed before kesoku
	// closed the connection: its end of the pipe is gone.
	inputBroken atomic.Bool
	// closed is set once kesoku closes the connection.
	closed atomic.Bool
}

func newStdioConn(stdout io.ReadCloser, stdin io.WriteCloser, max int, list *toolList, skipped func(string)) *stdioConn {
	c := &stdioConn{
		r: bufio.NewReaderSize(stdout, 64<<10), closer: stdout, w: stdin, max: max, list: list, skipped: skipped,
		calls: map[jsonrpc.ID]string{}, incoming: make(chan jsonrpc.Message), read: make(chan struct{}), done: make(chan struct{}),
	}
	return c
}

// start starts reading the server's output.
func (c *stdioConn) start() { go c.readLoop() }

// stdioTransport hands the SDK the one connection.
type stdioTransport struct{ conn *stdioConn }

func (t stdioTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case msg, ok := <-c.incoming:
		if !ok {
			if c.readErr == nil {
				return nil, io.EOF
			}
			return nil, c.readErr
		}
		return msg, nil
	case <-c.done:
		return nil, io.EOF
	}
}

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encode a message: %w", err)
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.calls[req.ID] = req.Method
		c.mu.Unlock()
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.w.Write(append(data, '\n'))
	if err != nil && !c.closed.Load() {
		c.inputBroken.Store(true)
	}
	return err
}

func (c *stdioConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		close(c.done)
		err = errors.Join(c.w.Close(), c.closer.Close())
	})
	return err
}

// end ends the connection for why, which the server's errors then say.
func (c *stdioConn) end(why string) {
	c.ended.CompareAndSwap(nil, &why)
	c.Close()
}

// endedWhy says why kesoku ended the connection, "" when it did not.
func (c *stdioConn) endedWhy() string {
	if p := c.ended.Load(); p != nil {
		return *p
	}
	return ""
}

// answered forgets the call id and returns its method, "" for no call
// kesoku is waiting for.
func (c *stdioConn) answered(id jsonrpc.ID) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.calls[id]
	delete(c.calls, id)
	return m
}

// listing reports whether a tools/list call waits for its answer.
func (c *stdioConn) listing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.calls {
		if m == methodListTools {
			return true
		}
	}
	return false
}

func (c *stdioConn) isListCall(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[id] == methodListTools
}

func (c *stdioConn) deliver(msg jsonrpc.Message) bool {
	select {
	case c.incoming <- msg:
		return true
	case <-c.done:
		return false
	}
}

func (c *stdioConn) readLoop() {
	defer close(c.read)
	defer close(c.incoming)
	for {
		line, head, err := c.readLine()
		if err == errLineTooLong {
			if !c.tooLong(head) {
				return
			}
			continue
		}
		if msgs := c.messages(line); len(msgs) > 0 {
			for _, m := range msgs {
				if !c.deliver(m) {
					return
				}
			}
		}
		if err != nil {
			select {
			case <-c.done:
			default:
				c.outputEnded.Store(true)
			}
			c.readErr = err
			return
		}
	}
}

// wentAway reports whether the server's output ended, or its input
// broke, before kesoku closed the connection. A server that exits once
// its input is closed (most do) exits after a connection kesoku ended,
// and that exit tells nothing of what went wrong; one that exits at once
// breaks the pipe kesoku writes its first request to, and the SDK closes
// the connection before its exit is seen.
func (c *stdioConn) wentAway() bool { return c.outputEnded.Load() || c.inputBroken.Load() }

// outputRead is closed once the server's output has been read to its end
// (or the reads stopped).
func (c *stdioConn) outputRead() <-chan struct{} { return c.read }

// closedByKesoku reports whether kesoku has closed the connection.
func (c *stdioConn) closedByKesoku() bool { return c.closed.Load() }

// messages are the messages of one line: none for a blank line or one
// that is not JSON-RPC (told as skipped), several for a batch.
func (c *stdioConn) messages(line []byte) []jsonrpc.Message {
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return nil
	}
	if t[0] == '[' {
		var raws [][]byte
		if elements(t, func(r []byte) bool { raws = append(raws, r); return true }) && len(raws) > 0 {
			var out []jsonrpc.Message
			for _, r := range raws {
				out = append(out, c.messages(r)...)
			}
			return out
		}
	}
	if c.listing() {
		if id, ok := answerID(t); ok && c.isListCall(id) {
			// A tools/list answer is read by toolList alone: the SDK's reader
			// of a whole message costs ten times its size.
			if resp, ok := c.list.rescue(t, c.isListCall); ok {
				c.answered(resp.ID)
				return []jsonrpc.Message{resp}
			}
		}
	}
	msg, err := jsonrpc.DecodeMessage(t)
	if err != nil {
		d := depth(t)
		if d > maxMessageDepth {
			if resp, ok := c.list.rescue(t, c.isListCall); ok {
				c.answered(resp.ID)
				return []jsonrpc.Message{resp}
			}
		}
		// An answer that cannot be read still ends its call: skipped, it
		// would leave the call waiting for ever. (A log line that has an
		// id and a result is no answer: it says no "jsonrpc".)
		if id, ok := answerID(t); ok && hasMember(t, "jsonrpc") && c.answered(id) != "" {
			return []jsonrpc.Message{unreadAnswer(id, d, err)}
		}
		c.skipped(termtext.Escape(strings.TrimSpace(strings.ToValidUTF8(string(cut(t, 200)), "\uFFFD"))))
		return nil
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && c.answered(resp.ID) == methodListTools && resp.Error == nil {
		resp.Result = c.list.result(resp.Result)
	}
	return []jsonrpc.Message{msg}
}

// tooLong answers the call whose answer was a line longer than max, named
// by the line's head, with an error; without a call to answer it ends the
// connection, and returns false.
func (c *stdioConn) tooLong(head []byte) bool {
	what := fmt.Sprintf("the server sent a message of more than %s", sizeText(int64(c.max)))
	if id, ok := answerID(head); ok && c.answered(id) != "" {
		return c.deliver(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
			Code:    jsonrpc.CodeInternalError,
			Message: what + " (a result too large to take): kesoku did not read it",
		}})
	}
	c.end(what + " (a result too large to take): kesoku closed the connection")
	return false
}

// errLineTooLong is a line longer than the bound.
var errLineTooLong = errors.New("a line too long")

// headLen is how much of a line too long is kept, to find the call it
// answers.
const headLen = 4 << 10

// readLine reads a line with its newline (without one at the end of the
// output). A line longer than max is read to its end and dropped:
// errLineTooLong, with its first headLen bytes.
func (c *stdioConn) readLine() (line, head []byte, err error) {
	var p pieces
	long := false
	for {
		chunk, err := c.r.ReadSlice('\n')
		switch {
		case long:
			if len(head) < headLen {
				head = append(head, cut(chunk, headLen-len(head))...)
			}
		case p.n+len(chunk) > c.max:
			long = true
			head = append(cut(p.bytes(), headLen), cut(chunk, max(0, headLen-p.n))...)
			p = pieces{}
		default:
			p.write(chunk)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if long {
			if err != nil {
				return nil, head, err
			}
			return nil, head, errLineTooLong
		}
		return p.bytes(), nil, err
	}
}

// unreadAnswer is the error kesoku hands the SDK for the call id, whose
// answer, d levels deep, could not be read (err): too deep for the SDK's
// reader, or no JSON-RPC message.
func unreadAnswer(id jsonrpc.ID, d int, err error) *jsonrpc.Response {
	msg := fmt.Sprintf("the server sent an answer nested %d levels deep, more than the %d kesoku reads: kesoku did not read it", d, maxMessageDepth)
	if d <= maxMessageDepth {
		msg = fmt.Sprintf("the server sent an answer that is no JSON-RPC message (%v): kesoku did not read it", err)
	}
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}}
}

// cut is b cut to at most n bytes.
func cut(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// onceFile is a file that its first Close closes: the connection and the
// watch on the program's exit both close the server's output.
type onceFile struct {
	*os.File
	once sync.Once
	err  error
}

func (f *onceFile) Close() error {
	f.once.Do(func() { f.err = f.File.Close() })
	return f.err
}

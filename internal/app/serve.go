package app

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/mcpserve"
	"github.com/kesoku/kesoku/message"
)

// ServeOptions are what kesoku mcp serve over the environment is asked to
// do. The caller has checked them and chosen the tools offered.
type ServeOptions struct {
	// Tools are the tools offered; Server the server's options but its
	// runner's and records, which the environment and the sink give.
	Tools  mcpserve.Tools
	Server mcpserve.Options
	// Output is the records file each call's record is appended to, ""
	// for none.
	Output string
	// HTTP is the address served over streamable HTTP, with Token the
	// bearer token its clients send ("" for none); "" serves In and Out.
	HTTP, Token string
	In          io.Reader
	Out         io.WriteCloser
	// Serving, when set, is told where the tools are served, once they
	// are: the listener's address, "" for standard input and output.
	Serving func(where string)
}

// ListenError is why the address of --http could not be listened on
// (mcpserve.Listen's error).
type ListenError struct{ Err error }

func (e *ListenError) Error() string { return e.Err.Error() }
func (e *ListenError) Unwrap() error { return e.Err }

// Serve serves the tools over MCP until the client goes (standard input
// closed) or a signal stops it, every call through the ToolRunner and its
// record handed to a sink: the -o file, appended to. interrupted says a
// signal stopped it. An -o file that cannot be opened is a *UsageError,
// an address that cannot be listened on a *ListenError; nothing is
// served then.
func (e *Env) Serve(ctx context.Context, o ServeOptions) (interrupted bool, err error) {
	var sink *Sink
	if o.Output != "" {
		e.RecordsTo(o.Output, "it is the file this server writes its records to")
		out, err := OpenRecords(o.Output, nil, true)
		if err != nil {
			return false, &UsageError{Err: err}
		}
		if sink, err = OpenSink(SinkOptions{Records: out}); err != nil {
			out.Close()
			return false, err
		}
		defer sink.Abandon()
		o.Server.Records = &sinkStore{sink: sink}
	}
	ir := e.WatchSignals(nil)
	ctx, end := ir.Turn(ctx)
	defer end()
	o.Server.Runner = e.RunnerOptions()
	o.Server.Runner.EndGrace = ir.EndGrace()
	// Each request served continues its client's trace, when traces are on.
	o.Server.Tracer = e.Tracer()
	srv := mcpserve.New(o.Tools, o.Server)
	if o.HTTP == "" {
		if o.Serving != nil {
			o.Serving("")
		}
		err = srv.Serve(ctx, &mcp.IOTransport{Reader: io.NopCloser(o.In), Writer: o.Out})
	} else {
		ln, lerr := mcpserve.Listen(ctx, o.HTTP, o.Token != "")
		if lerr != nil {
			return false, &ListenError{lerr}
		}
		if o.Serving != nil {
			o.Serving(mcpserve.Where(ln))
		}
		err = srv.ServeListener(ctx, ln, o.Token)
	}
	if err != nil {
		return false, err
	}
	if sink != nil {
		if err := sink.Close(nil); err != nil {
			return false, fmt.Errorf("write records: %w", err)
		}
	}
	return ir.Interrupted(), nil
}

// sinkStore is a sink as the store of a server's records: each is on
// disk before its call is answered.
type sinkStore struct {
	mu   sync.Mutex
	sink *Sink
}

func (s *sinkStore) Append(_ context.Context, recs ...*message.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.sink.Write(recs...); err != nil {
		return err
	}
	return s.sink.Flush()
}

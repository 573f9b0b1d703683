// Package mcpserve is kesoku as an MCP server: a registry's tools over stdio
// or streamable HTTP, each call run through the ToolRunner.
//
// The tools of a registry are offered over the Model Context Protocol, on
// a stream (standard input and output) or over streamable HTTP, every tools/call run through
// the ToolRunner — validation, --timeout, --max-output, confinement to the
// AWD — and recorded as a Message record, as kesoku run would record it.
// A tool's failure is a result marked isError, never a protocol error.
package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/notice"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/tracing"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// Options configure a Server.
type Options struct {
	// Version is kesoku's version, told to clients with its name.
	Version string
	// Runner configures every call: Timeout, Grace, MaxOutput, OutputDir,
	// AWD, Staging, Protected, Model and EndGrace as for kesoku run. Jobs
	// is how many calls run at once across all clients; more wait for a
	// free slot. SessionID is ignored: each client's session is one of
	// its own, and the requests of the stateless revision share one for
	// the server's run.
	Runner runner.Options
	// Records, when set, is given each call's record as the call returns
	// (-o FILE).
	Records message.Store
	// Tell is told what happens (each call with Verbose, what went wrong
	// with the server); nil tells no one. Log is where the SDK's own log
	// goes (standard error, never the protocol's stream); nil says
	// nothing.
	Tell notice.Teller
	Log  io.Writer
	// Verbose logs each call as it starts and returns.
	Verbose bool
	// SessionTimeout is how long the session of an HTTP client of a
	// revision before the stateless one may go without a request before
	// it is closed and forgotten; 0 is DefaultSessionTimeout. A session
	// with a call in flight is not idle.
	SessionTimeout time.Duration
	// MaxSessions is how many such sessions may be live at once; 0 is
	// DefaultMaxSessions. A new one past it takes the place of the one
	// idle the longest, or is refused when every one is busy.
	MaxSessions int
	// IdleTimeout is how long an HTTP connection may wait for its next
	// request before it is closed; 0 is DefaultIdleTimeout.
	IdleTimeout time.Duration
	// BodyTimeout is how long an HTTP request's body may take to arrive
	// whole; 0 is DefaultBodyTimeout. The call it brings may then take as
	// long as its own timeout allows.
	BodyTimeout time.Duration
	// Withheld are the tools that exist but are not offered: a client
	// that calls one is told that it is not offered, rather than that it
	// is unknown.
	Withheld []string
	// Word, when set, words the errors a client is answered with rather
	// than their own messages: it is given an *UnknownToolError, and may
	// say what offers the tool (the caller's flags).
	Word func(error) string
	// Tracer, when traces are on, makes a span of each request served,
	// under the client's span that the request's _meta carries
	// (traceparent): the calls' execute_tool spans are inside it. Nil
	// traces nothing.
	Tracer *tracing.Tracer
}

// DefaultSessionTimeout is how long an idle session lasts unless
// Options.SessionTimeout says otherwise.
const DefaultSessionTimeout = 10 * time.Minute

// DefaultMaxSessions is how many sessions of clients before the stateless
// revision may be live at once unless Options.MaxSessions says otherwise.
const DefaultMaxSessions = 2000

// DefaultIdleTimeout and DefaultBodyTimeout are the HTTP connections'
// bounds unless Options says otherwise: short, since a client that keeps
// a connection open doing nothing holds one of the server's descriptors.
const (
	DefaultIdleTimeout = 30 * time.Second
	DefaultBodyTimeout = 30 * time.Second
)

// Server serves a registry's tools over MCP. One Server may serve one
// stream (Serve) or many HTTP clients (ServeListener, Handler).
type Server struct {
	opts   Options
	mcp    *mcp.Server
	runner *runner.ToolRunner
	// slots bounds the calls running at once (Jobs).
	slots chan struct{}
	log   io.Writer
	tell  notice.Teller

	// stopCtx is cancelled when the server stops: calls in flight are
	// cancelled (and get the grace), calls that come later are aborted.
	stopCtx context.Context
	stop    context.CancelFunc

	// failed is closed when a record could not be written: a server that
	// loses records stops, as kesoku run does.
	failOnce sync.Once
	failed   chan struct{}
	failErr  error // set before failed is closed

	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*clientSession
	// stateless is the session of every request of the stateless
	// revision: one for the run, whichever client sent it.
	stateless *clientSession
	// offered and withheld are the names of the tools offered and of
	// those that exist but are not.
	offered, withheld []string
	// posts are the HTTP requests in flight of clients with sessions;
	// sessionCap bounds how many such sessions are open.
	posts      *posts
	sessionCap *sessionCap
	// outputs are the output schemas of the tools that have one; legacy
	// are the tools as clients before 2026-07-28 see them, for those
	// whose outputSchema such a client does not take.
	outputs map[string]output
	legacy  map[string]*mcp.Tool
}

// clientSession is what kesoku keeps of one client's MCP session: the
// session_id of its records and the numbering of its calls.
type clientSession struct {
	id    string
	calls atomic.Int64
}

// New returns a Server of the tools of reg, every one of them offered.
func New(reg *registry.Registry, opts Options) *Server {
	jobs := max(opts.Runner.Jobs, 1)
	ropts := opts.Runner
	// Every call is a run of its own (RunOne): the slots bound the calls
	// at once.
	ropts.Jobs = 1
	if ropts.Store == nil {
		ropts.Store = opts.Records
	}
	if ropts.Store == nil {
		ropts.Store = discard{}
	}
	s := &Server{
		opts:       opts,
		runner:     runner.New(reg, ropts),
		slots:      make(chan struct{}, jobs),
		log:        opts.Log,
		tell:       opts.Tell,
		failed:     make(chan struct{}),
		sessions:   make(map[*mcp.ServerSession]*clientSession),
		stateless:  &clientSession{id: message.NewID()},
		withheld:   slices.Sorted(slices.Values(opts.Withheld)),
		posts:      &posts{open: make(map[string]context.Context)},
		sessionCap: newSessionCap(opts.MaxSessions),
		outputs:    make(map[string]output),
		legacy:     make(map[string]*mcp.Tool),
	}
	if s.log == nil {
		s.log = io.Discard
	}
	if s.tell == nil {
		s.tell = notice.Discard
	}
	s.stopCtx, s.stop = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "kesoku", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions(opts.Runner.AWD),
		// Tools and nothing else, even when none is offered; the list
		// never changes while the server runs.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		Logger:       slog.New(slog.NewTextHandler(s.log, &slog.HandlerOptions{Level: sdkLogLevel(opts.Verbose)})),
	})
	for _, spec := range reg.All() {
		out := outputOf(spec)
		t := tool(spec, out)
		if out.schema != nil {
			s.outputs[spec.Name] = out
			if !out.object {
				lt := *t
				lt.OutputSchema = nil
				s.legacy[spec.Name] = &lt
			}
		}
		s.mcp.AddTool(t, s.call)
		s.offered = append(s.offered, spec.Name)
	}
	slices.Sort(s.offered)
	s.mcp.AddReceivingMiddleware(s.trace, s.sessionCap.note, s.refuseUndeclared, s.refuseUnknown, s.legacyTools)
	return s
}

// sdkLogLevel is what the SDK may say on the log: its warnings with -v,
// otherwise nothing (it reports a client that goes away as an error).
func sdkLogLevel(verbose bool) slog.Level {
	if verbose {
		return slog.LevelWarn
	}
	return slog.LevelError + 1
}

func instructions(awd string) string {
	if awd == "" {
		return ""
	}
	return "kesoku's file tools take paths relative to its working directory, " + awd + ", and reach nothing outside it and its staging directory."
}

// tool is the MCP declaration of spec: its canonical schema as it is, the
// description models read, whether it only reads, and the schema of its
// result (out) when it has one.
func tool(spec *registry.Spec, out output) *mcp.Tool {
	t := &mcp.Tool{
		Name:        spec.Name,
		Description: spec.Description,
		InputSchema: spec.InputSchema(),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: !spec.Writes},
	}
	if out.schema != nil {
		// Only when there is one: a nil RawMessage is not a nil any, and
		// would be sent as null.
		t.OutputSchema = out.schema
	}
	return t
}

// call is the handler of every tool: the call goes through the ToolRunner
// like a request of kesoku run, and its record becomes the result.
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	cs := s.clientOf(req)
	r := &request.Request{
		ID:        "call_" + strconv.FormatInt(cs.calls.Add(1), 10),
		Name:      req.Params.Name,
		SessionID: cs.id,
	}
	args, err := llm.DecodeArgs(req.Params.Arguments)
	if err != nil {
		r.Err = fmt.Errorf("tool %q: the arguments must be a JSON object: %s", r.Name, notObject(req.Params.Arguments, err))
	}
	r.Args = args

	// The call ends when its client cancels it (or goes away), or when
	// the server stops.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.stopCtx, cancel)()
	if s.stopCtx.Err() != nil {
		cancel() // at once: AfterFunc's cancel runs in a goroutine of its own
	}
	// Over HTTP, a client with a session reads the answer on the request
	// that brought the call, and nowhere else: kesoku keeps no events to
	// send again on another. When that request ends first (its client
	// went away), no one can read the answer, and the call stops.
	if post, tracked := s.posts.of(req.Extra); tracked {
		if post == nil || post.Err() != nil {
			cancel()
		} else {
			defer context.AfterFunc(post, cancel)()
		}
	}

	if s.opts.Verbose {
		s.logf("→ %s %s (session %s)", r.ID, r.Name, cs.id)
	}
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-ctx.Done():
		// The runner records it as aborted before it started.
	}
	rec := s.runner.RunOne(ctx, r)
	if s.opts.Records != nil {
		if err := s.opts.Records.Append(context.WithoutCancel(ctx), rec); err != nil {
			s.fail(err)
		}
	}
	res := result(rec, s.outputs[r.Name], modernRequest(req))
	if s.opts.Verbose {
		if res.IsError && rec.Error == nil && !rec.IsError {
			// The record says ok; the client reads why it is not.
			s.logf("← %s %s: %s, answered as an error: not the object its output schema describes", r.ID, r.Name, outcome(rec))
		} else {
			s.logf("← %s %s: %s", r.ID, r.Name, outcome(rec))
		}
	}
	return res, nil
}

// notObject says what came instead of an object of arguments, in the
// words of JSON (as validation says what came) rather than of Go's decoder.
func notObject(raw json.RawMessage, err error) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "what came is not JSON: " + err.Error()
	}
	return "got " + registry.Describe(v)
}

// clientOf is the state of the client of a call: its session's, or the
// stateless revision's.
func (s *Server) clientOf(req mcp.Request) *clientSession {
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && !stateless(req.GetExtra()) {
		return s.session(ss)
	}
	return s.stateless
}

// session returns kesoku's state of a client's session, made on its first
// call and dropped when the session ends.
func (s *Server) session(ss *mcp.ServerSession) *clientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, ok := s.sessions[ss]
	if !ok {
		cs = &clientSession{id: message.NewID()}
		s.sessions[ss] = cs
		go func() {
			ss.Wait()
			s.mu.Lock()
			delete(s.sessions, ss)
			s.mu.Unlock()
		}()
	}
	return cs
}

// outcome says in a few words how a call ended, for the log.
func outcome(rec *message.Record) string {
	d := time.Duration(0)
	if rec.DurationMS != nil {
		d = time.Duration(*rec.DurationMS) * time.Millisecond
	}
	if rec.Error != nil {
		return fmt.Sprintf("%s after %v", rec.Error.Kind, d)
	}
	return fmt.Sprintf("ok after %v", d)
}

// fail stops the server for a record that could not be written: its
// callers learn of it from Serve and ServeListener.
func (s *Server) fail(err error) {
	s.failOnce.Do(func() {
		s.failErr = fmt.Errorf("write record: %w", err)
		s.tell.Tell(notice.Error, fmt.Sprintf("%v; stopping", s.failErr))
		close(s.failed)
	})
}

// failure is the error that stopped the server, nil for none.
func (s *Server) failure() error {
	select {
	case <-s.failed:
		return s.failErr
	default:
		return nil
	}
}

// logf tells what the server does, for -v.
func (s *Server) logf(format string, args ...any) {
	s.tell.Tell(notice.Info, fmt.Sprintf(format, args...))
}

// tellWriter tells each line written to it, at level: the HTTP server's
// log.
type tellWriter struct {
	tell  notice.Teller
	level notice.Level
}

func (w tellWriter) Write(p []byte) (int, error) {
	w.tell.Tell(w.level, strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// discard is the gateway store of calls whose records go nowhere.
type discard struct{}

func (discard) Append(context.Context, ...*message.Record) error { return nil }

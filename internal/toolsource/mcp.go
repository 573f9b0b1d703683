package toolsource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/mcpauth"
	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/tooldoc"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/registry"
)

// Defaults of an MCP server's life; Options may change them (tests do).
const (
	// defaultStartTimeout bounds a server's start: the program started
	// (or the URL reached), initialize answered, the tools listed. npx
	// may download a server first, which takes a while.
	defaultStartTimeout = 60 * time.Second
	// defaultKeepAlive is how often a server is pinged: one that stops
	// answering is given up (its calls fail) rather than waited for
	// forever when --timeout does not bound the calls.
	defaultKeepAlive = 10 * time.Second
	// exitWait is the most a server gets to exit once its input is
	// closed, before SIGTERM, and again before SIGKILL (less with a
	// shorter --grace): kesoku's own exit waits for it.
	exitWait = 2 * time.Second
)

// server is an MCP server as a source of tools (a toolset.Source): started when a command
// first needs its tools, at most once, and stopped by Set.Close.
type server struct {
	decl *serverDecl
	set  *Set
	// ctx is the command's: cancelled (an interrupt), a start in progress
	// is abandoned.
	ctx context.Context

	mu      sync.Mutex
	session *mcp.ClientSession
	cmd     *exec.Cmd
	// exited is closed once the program has exited; exitErr is what Wait
	// said.
	exited  chan struct{}
	exitErr error
	// exitedFirst says the program exited before kesoku closed its
	// connection.
	exitedFirst bool
	stderr      *tailBuffer
	// conn is the connection over the program's standard input and
	// output, nil for a server over HTTP.
	conn *stdioConn
	// list reads the server's tools/list answers.
	list   toolList
	closed bool
	// dead is cancelled, with the reason as its cause, once the server is
	// given up: it stopped answering pings. Calls in flight end with it.
	// (The SDK's own keepalive closes the session gracefully, which waits
	// for the calls in flight: forever, for a server that stopped.)
	dead     context.Context
	giveUp   context.CancelCauseFunc
	stopPing context.CancelFunc

	// auth authorizes the requests of a server over HTTP when it asks
	// (OAuth); nil for one over stdio, or whose headers authorize it.
	auth *mcpauth.Handler
	// fresh leaves the kept tokens aside (kesoku mcp login).
	fresh bool
	// deadline is the start's, while the server starts: a person logging
	// in pauses it.
	deadlineMu sync.Mutex
	deadline   *startDeadline
}

// Prefix begins the names of the server's tools.
func (s *server) Prefix() string { return s.decl.name + "__" }

// Load starts the server and lists its tools, each named
// <server>__<tool>. A tool kesoku cannot offer (a name against the rule,
// a schema that does not compile) is left out with a warning naming the
// server and the tool.
func (s *server) Load() ([]*toolset.Tool, error) {
	ctx, deadline, cancel := withStartDeadline(s.ctx, s.startBound())
	defer cancel()
	s.deadlineMu.Lock()
	s.deadline = deadline
	s.deadlineMu.Unlock()
	defer func() {
		s.deadlineMu.Lock()
		s.deadline = nil
		s.deadlineMu.Unlock()
	}()
	start := time.Now()
	if s.set.opts.Starting != nil {
		s.set.opts.Starting(s.decl.name)
	}
	if err := s.start(ctx); err != nil {
		return nil, s.failure("start", ctx, err)
	}
	var specs []*toolset.Tool
	seen := map[string]bool{}
	lctx, _ := withCallState(ctx)
	for t, err := range s.session.Tools(lctx, nil) {
		for _, msg := range s.list.takeLeftOut() {
			s.set.warn(s.hide(s.decl.where() + ": " + msg))
		}
		if err != nil {
			return specs, s.failure("list its tools", ctx, err)
		}
		if seen[t.Name] {
			s.set.warn(s.hide(fmt.Sprintf("%s: tool %q is listed twice: the second is not offered", s.decl.where(), t.Name)))
			continue
		}
		seen[t.Name] = true
		spec, err := s.spec(t)
		if err != nil {
			s.set.warn(s.hide(fmt.Sprintf("%s: tool %q is not offered: %v", s.decl.where(), t.Name, err)))
			continue
		}
		specs = append(specs, spec)
	}
	for _, msg := range s.list.takeLeftOut() {
		s.set.warn(s.hide(s.decl.where() + ": " + msg))
	}
	s.set.note(fmt.Sprintf("%s: started in %v, %d tools", s.decl.where(), time.Since(start).Round(time.Millisecond), len(specs)))
	return specs, nil
}

// startBound is how long the server may take to start and list its
// tools: its own timeout:, else --timeout, else the default. A server
// that never answers costs a run what the user allowed a call, not a
// minute.
func (s *server) startBound() time.Duration {
	switch {
	case s.decl.timeout > 0:
		return s.decl.timeout
	case s.set.opts.Timeout > 0:
		return s.set.opts.Timeout
	}
	return s.set.startTimeout
}

// startBoundText says which bound startBound is.
func (s *server) startBoundText() string {
	switch {
	case s.decl.timeout > 0:
		return fmt.Sprintf("%v (its timeout)", s.decl.timeout)
	case s.set.opts.Timeout > 0:
		return fmt.Sprintf("%v (the command's timeout)", s.set.opts.Timeout)
	}
	return s.set.startTimeout.String()
}

// failure is err, from doing what while the server started, in words that
// say what happened: the program exited (with the end of its standard
// error), it did not answer in time, it could not be found.
func (s *server) failure(doing string, ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) && s.ctx.Err() == nil {
		err = fmt.Errorf("no answer within %s", s.startBoundText())
	}
	if why := s.exitText(); why != "" {
		err = errors.New(why)
	}
	var auth *mcpauth.Error
	if errors.As(err, &auth) {
		// Its own words say which server; the SDK's around them say
		// only which request met it.
		return auth
	}
	var re *redirectError
	if errors.As(err, &re) {
		err = re
	}
	_, err = s.hidden(nil, fmt.Errorf("%s: %s: %w", s.decl.where(), doing, err))
	return err
}

// start starts the program (or reaches the URL) and initializes a client
// session with it.
func (s *server) start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("kesoku is stopping")
	}
	var t mcp.Transport
	var err error
	switch s.decl.transport {
	case transportStdio:
		t, err = s.startProgram()
	default:
		t, err = s.httpTransport()
	}
	if err != nil {
		return err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "kesoku", Version: s.set.version}, &mcp.ClientOptions{
		Logger: slog.New(slog.DiscardHandler),
		// No roots (the SDK's default declares them): kesoku has none to
		// give, and a server told of roots may take the empty list for
		// the directories it may reach.
		Capabilities: &mcp.ClientCapabilities{},
		// kesoku takes a call through its round trips itself
		// (callRounds): the SDK's would ask handlers kesoku has none of,
		// and say only that.
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
	client.AddSendingMiddleware(traceRequests)
	session, err := client.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	s.session = session
	s.dead, s.giveUp = context.WithCancelCause(context.Background())
	var pingCtx context.Context
	pingCtx, s.stopPing = context.WithCancel(context.Background())
	go s.keepAlive(pingCtx)
	return nil
}

// missedPings is how many pings in a row a server may leave unanswered
// before it is given up.
const missedPings = 2

// keepAlive pings the server every keepAlive interval; after missedPings
// pings in a row unanswered (within half the interval each), the server
// is given up: its calls in flight fail saying so, new ones fail at once,
// and its program is killed. A server that does not know ping is left be.
func (s *server) keepAlive(ctx context.Context) {
	every := s.set.keepAlive
	t := time.NewTicker(every)
	defer t.Stop()
	missed := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, every/2)
		err := s.session.Ping(pctx, nil)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			missed = 0
			continue
		case isMethodNotFound(err):
			return
		}
		if missed++; missed < missedPings {
			continue
		}
		s.giveUp(fmt.Errorf("%s stopped answering: %d pings in a row had no answer within %v", s.decl.where(), missed, every/2))
		if s.cmd != nil {
			killGroup(s.cmd.Process.Pid)
		}
		return
	}
}

// startProgram starts the server's program in a process group of its
// own, in the AWD (or the entry's cwd), with the entry's env on top of
// the variables every program gets (secret.Environ); its standard error is kept (the end of it) for the messages
// of its failures, and shown with -v.
func (s *server) startProgram() (mcp.Transport, error) {
	d := s.decl
	command, err := d.expand(d.command, d.nodes["command"], "command")
	if err != nil {
		return nil, err
	}
	args := make([]string, len(d.args))
	for i, a := range d.args {
		if args[i], err = d.expand(a, d.argNodes[i], fmt.Sprintf("args[%d]", i)); err != nil {
			return nil, err
		}
	}
	var own []string
	for _, e := range d.env {
		v, err := d.expand(d.envValues[e.key], e.value, "env."+e.key)
		if err != nil {
			return nil, err
		}
		own = append(own, e.key+"="+v)
	}
	// What its entry sets and what any program needs: no key, token or
	// header of kesoku's or of another server's.
	env := secret.Environ(os.Environ(), own, s.set.secrets)
	// Not CommandContext: the server lives until Close, whatever happens
	// to the command's context.
	cmd := exec.Command(command, args...)
	cmd.Env = env
	cmd.Dir = s.set.awd
	if d.cwd != "" {
		cmd.Dir = d.cwd
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// kesoku's own pipe, not StdoutPipe: Wait closes that as the program
	// exits, and what the program wrote last and is still in the pipe
	// (its answers before it crashed) would be lost to the reader.
	out, childOut, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return nil, err
	}
	cmd.Stdout = childOut
	stdout := &onceFile{File: out}
	s.stderr = &tailBuffer{max: stderrTail}
	var errOut io.Writer = s.stderr
	if s.set.opts.Note != nil {
		errOut = io.MultiWriter(s.stderr, &lineWriter{prefix: "mcp server " + d.name + ": ", emit: s.set.opts.Note})
	}
	cmd.Stderr = errOut
	err = s.set.procs.start(cmd, false)
	// The program's end is the program's alone: the output ends when it
	// (and whatever it left holding the pipe) is gone.
	childOut.Close()
	if err != nil {
		stdout.Close()
		return nil, err
	}
	note := func(string) {}
	if s.set.opts.Note != nil {
		prefix := "mcp server " + d.name + ": not MCP on standard output, skipped: "
		note = func(line string) { s.set.opts.Note(prefix + line) }
	}
	s.list.slim = true
	conn := newStdioConn(stdout, stdin, s.set.maxMessage, &s.list, note)
	s.cmd, s.exited, s.conn = cmd, make(chan struct{}), conn
	go func() {
		err := cmd.Wait()
		first := !conn.closedByKesoku()
		s.mu.Lock()
		s.exitErr, s.exitedFirst = err, first
		s.mu.Unlock()
		close(s.exited)
		// What it wrote before it exited is read to the end; a child it
		// left holding its output ends the output after a moment, so
		// that no call waits on a server that is gone.
		select {
		case <-conn.outputRead():
		case <-time.After(time.Second):
			stdout.Close()
		}
	}()
	conn.start()
	return stdioTransport{s.conn}, nil
}

// defaultMaxMessage bounds a message from a server (a line on standard
// output, an HTTP body, an event of a stream), unless --max-output asks for
// records larger than half of it: a tool's result is one message, and
// what is larger than --max-output is cut anyway. What kesoku holds of
// one message is a small multiple of it.
const defaultMaxMessage = 64 << 20

// httpTransport reaches a server over streamable HTTP (or SSE), with the
// entry's headers on every request to its origin.
func (s *server) httpTransport() (mcp.Transport, error) {
	d := s.decl
	endpoint, err := d.expand(d.url, d.nodes["url"], "url")
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return nil, &config.Error{Pos: yamlpos.Of(d.file, d.nodes["url"]), Msg: fmt.Sprintf("%s.%s.url: %q: want an http or https URL", config.ServersKey, d.name, endpoint)}
	}
	h := http.Header{}
	for _, e := range d.headers {
		v, err := d.expand(d.hdrValues[e.key], e.value, "headers."+e.key)
		if err != nil {
			return nil, err
		}
		h.Set(e.key, v)
	}
	client := s.httpClient(u, h)
	// The SDK's own bound on an event is a backstop: the client's comes
	// first, and leaves the connection standing.
	backstop := s.set.maxMessage + 64<<10
	if d.transport == transportSSE {
		return &sseTransport{inner: &mcp.SSEClientTransport{Endpoint: endpoint, HTTPClient: client, MaxEventSize: backstop}}, nil
	}
	auth, err := s.authHandler(endpoint)
	if err != nil {
		return nil, err
	}
	t := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client, MaxRetries: 2, MaxEventSize: backstop}
	if auth != nil {
		s.auth, t.OAuthHandler = auth, auth
	}
	return t, nil
}

// exitText says how the program ended, "" while it runs (or for a server
// over HTTP): "exited with status 3; standard error: ...".
func (s *server) exitText() string {
	if s.exited == nil {
		return ""
	}
	if why := s.conn.endedWhy(); why != "" {
		// kesoku closed the connection; the exit that followed (a
		// broken pipe) says nothing.
		return why
	}
	select {
	case <-s.exited:
	case <-time.After(time.Second):
		// A broken connection comes a moment before the exit status; a
		// program that closed its pipes and lives on costs this wait.
		select {
		case <-s.exited:
		default:
			return ""
		}
	}
	s.mu.Lock()
	err, first := s.exitErr, s.exitedFirst
	s.mu.Unlock()
	if !first && !s.conn.wentAway() {
		// It exited once kesoku closed its input (a start given up):
		// what kesoku gave up on says what happened.
		return ""
	}
	return fmt.Sprintf("the server %s%s", exitText(s.cmd, err), s.stderr.quote())
}

// spec is the registry entry of one of the server's tools.
func (s *server) spec(t *mcp.Tool) (*toolset.Tool, error) {
	name := s.Prefix() + t.Name
	if t.Name == "" {
		return nil, errors.New("it has no name")
	}
	if !toolspec.ValidName(name) {
		return nil, fmt.Errorf("its name would be %q, which does not match %s", name, toolspec.NamePattern)
	}
	raw, ok := s.list.schema(t.Name)
	if !ok {
		b, err := json.Marshal(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("input schema: %w", err)
		}
		raw = json.RawMessage(b)
	}
	// A server may echo a secret in what describes a tool: tools schema
	// prints it, a session sends it to the model.
	raw, _ = s.secrets().JSON(raw)
	schema, err := compileArgSchema(name, raw, true)
	if err != nil {
		return nil, fmt.Errorf("input schema: %w", err)
	}
	desc := strings.TrimSpace(t.Description)
	if desc == "" && t.Annotations != nil {
		desc = t.Annotations.Title
	}
	desc = s.hide(desc)
	tool := t.Name
	output := s.outputSchema(t)
	results := newResultSchema(name, output)
	return &toolset.Tool{
		Name:            name,
		Summary:         tooldoc.Summary(desc),
		Description:     desc,
		Params:          schema.params(),
		Writes:          t.Annotations == nil || !t.Annotations.ReadOnlyHint,
		Source:          s.decl.where(),
		RawSchema:       schema.raw,
		RawOutputSchema: s.hiddenJSON(output),
		Check:           schema.check,
		Timeout:         s.decl.timeout,
		Call: func(ctx context.Context, _ *registry.ToolContext, args map[string]any) (any, error) {
			return s.hidden(s.call(ctx, tool, args, results))
		},
	}, nil
}

// hiddenJSON is raw with every secret hidden.
func (s *server) hiddenJSON(raw json.RawMessage) json.RawMessage {
	out, _ := s.secrets().JSON(raw)
	return out
}

// secrets are those kesoku holds; nil (nothing hidden) for a server of
// no set.
func (s *server) secrets() *secret.Redactor {
	if s.set == nil {
		return nil
	}
	return s.set.secrets
}

// call calls one of the server's tools. The record's content is the
// result's structuredContent when it has one, else its text (the text
// blocks joined), else its content blocks as MCP gives them; isError is
// a tool_error with that text. A result is held to the tool's
// outputSchema (results, nil for none).
func (s *server) call(ctx context.Context, tool string, args map[string]any, results *resultSchema) (any, error) {
	s.mu.Lock()
	session, dead := s.session, s.dead
	s.mu.Unlock()
	if dead.Err() != nil {
		return nil, context.Cause(dead)
	}
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(dead, func() { cancel(context.Cause(dead)) })
	defer stop()
	callCtx, state := withCallState(callCtx)
	res, err := s.callRounds(callCtx, session, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		var ir *InputRequiredError
		if errors.As(err, &ir) {
			return nil, err
		}
		if ctx.Err() != nil {
			return nil, &endedError{cause: ctx.Err(), msg: fmt.Sprintf("the call to %s was cancelled", s.decl.where())}
		}
		if dead.Err() != nil {
			return nil, context.Cause(dead)
		}
		if why := s.exitText(); why != "" {
			return nil, fmt.Errorf("%s: %s", s.decl.where(), why)
		}
		var re *redirectError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("%s: %w", s.decl.where(), re)
		}
		var auth *mcpauth.Error
		if errors.As(err, &auth) {
			return nil, auth
		}
		if state.tooLarge.Load() {
			return nil, fmt.Errorf("%s: the server sent an answer of more than %s (a result too large to take): kesoku did not read it", s.decl.where(), sizeText(int64(s.set.maxMessage)))
		}
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			// The server refused the call (an unknown tool, arguments it
			// would not take): its words.
			return nil, fmt.Errorf("%s: %s", s.decl.where(), we.Message)
		}
		if errors.Is(err, mcp.ErrConnectionClosed) {
			return nil, fmt.Errorf("%s closed the connection", s.decl.where())
		}
		return nil, fmt.Errorf("%s: %w", s.decl.where(), err)
	}
	if res.IsError {
		return nil, errors.New(resultText(res.Content))
	}
	if err := results.check(res.StructuredContent); err != nil {
		return nil, fmt.Errorf("%s: tool %q: %w", s.decl.where(), tool, err)
	}
	if res.StructuredContent != nil {
		return res.StructuredContent, nil
	}
	if text, ok := onlyText(res.Content); ok {
		return text, nil
	}
	return res.Content, nil
}

// onlyText is the text of content blocks that are all text, joined by
// newlines; ok false when some block is not text.
func onlyText(blocks []mcp.Content) (string, bool) {
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		t, ok := b.(*mcp.TextContent)
		if !ok {
			return "", false
		}
		parts = append(parts, t.Text)
	}
	return strings.Join(parts, "\n"), true
}

// resultText is what an isError result says: its text, or its blocks as
// JSON when it has no text.
func resultText(blocks []mcp.Content) string {
	var parts []string
	for _, b := range blocks {
		if t, ok := b.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "\n")
	}
	if len(blocks) == 0 {
		return "the tool failed and said nothing"
	}
	b, err := json.Marshal(blocks)
	if err != nil {
		return "the tool failed"
	}
	return string(b)
}

// close ends the session and stops the program: its input closed, then
// SIGTERM to its group, then SIGKILL, each after the grace (at most
// exitWait).
func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	session, cmd, exited := s.session, s.cmd, s.exited
	s.mu.Unlock()
	if session != nil {
		s.stopPing()
		s.giveUp(fmt.Errorf("%s: kesoku is stopping", s.decl.where()))
		// The SDK's Close waits for the calls in flight, which giveUp
		// has ended; a server that holds on to them is stopped below.
		closed := make(chan struct{})
		go func() { _ = session.Close(); close(closed) }()
		select {
		case <-closed:
		case <-time.After(min(s.set.procs.grace, exitWait)):
		}
	}
	if cmd == nil {
		return
	}
	wait := min(s.set.procs.grace, exitWait)
	select {
	case <-exited:
	case <-time.After(wait):
		terminateGroup(cmd.Process.Pid)
		select {
		case <-exited:
		case <-time.After(wait):
		}
	}
	// SIGKILL to what is left of the group, the server's children too.
	s.set.procs.finish(cmd)
}

// outputSchema is the output schema of the server's tool t as the server
// wrote it, compact; nil for none. kesoku mcp serve declares it again, so
// that a client reads the structured results it passes on as the server
// meant them.
func (s *server) outputSchema(t *mcp.Tool) json.RawMessage {
	if raw := s.list.outputSchema(t.Name); raw != nil {
		return raw
	}
	if t.OutputSchema == nil {
		return nil
	}
	b, err := json.Marshal(t.OutputSchema)
	if err != nil {
		return nil
	}
	return compactObject(b)
}

// lineWriter hands each line written to it to emit, prefixed.
type lineWriter struct {
	prefix string
	emit   func(string)
	mu     sync.Mutex
	buf    []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	consumed := 0
	for {
		i := bytes.IndexByte(w.buf[consumed:], '\n')
		if i < 0 {
			break
		}
		w.emit(w.prefix + termtext.Escape(strings.TrimRight(string(w.buf[consumed:consumed+i]), "\r")))
		consumed += i + 1
	}
	w.buf = append(w.buf[:0], w.buf[consumed:]...)
	if len(w.buf) > 64<<10 {
		w.emit(w.prefix + termtext.Escape(string(w.buf)))
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

// isMethodNotFound reports whether err is the server saying it does not
// know the method.
func isMethodNotFound(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound
}

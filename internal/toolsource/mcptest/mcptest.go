// Package mcptest is an MCP server for tests whose tools answer, fail, hang
// and crash on demand.
//
// It speaks over standard input and output, built with the MCP Go SDK: a
// real server, so that kesoku's MCP client can be held
// to what it must do when a server misbehaves. Scripts run it as the
// program fakemcp; Go tests run it in their own binary.
package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main runs the server with args (without the program's name) and returns
// its exit status. Flags:
//
//	-exit-at-start       print "boom" on standard error and exit 1 at once
//	-hang-at-start       read standard input and never answer it
//	-exit-on-eof         with -hang-at-start: exit 0 once standard input
//	                     is closed, as most servers do
//	-crash-after N       the Nth call of any tool exits the process (3)
//	-hang-after N        from the Nth call on, answer nothing, pings
//	                     included
//	-log FILE            append "start" when the server starts, and the
//	                     name of each tool called, one a line
//	-pidfile FILE        write the server's pid
//	-child-pidfile FILE  start a child process (sleep) that shares the
//	                     server's process group, and write its pid
//	-ignore-term         ignore SIGTERM (the child too)
//	-orphan-pidfile FILE start a child process (sleep) in a session of its
//	                     own, out of the server's process group, and write
//	                     its pid
//	-bad-name            also list a tool whose name kesoku must refuse
//	-wire FILE           write what the client sends to FILE, as it comes
//	-noisy               print lines that are not MCP on standard output:
//	                     a banner at start, and a line before each answer
//	-json-logs           print JSON log lines on standard output, as pino
//	                     does (JSON objects without "jsonrpc"): one at
//	                     start, one before each answer
//	-bad-tools LIST      also list tools kesoku must leave out, alone, in
//	                     the wire's tools/list answer: deep (a schema
//	                     whose JSON nests 6,000 levels), deeper (12,000
//	                     levels), empty (an empty name), dup
//	                     (a second echo), badtype (annotations that are
//	                     a string), comma-separated
//	-many-tools N        also list N tools (many_0, ...) whose schemas
//	                     are about 4 KB each
//	-describe TEXT       also list a tool, described, whose description
//	                     and whose parameter's description are TEXT (a
//	                     server that echoes what it was given)
//
// The tools: echo(text) returns the text; add(a, b) returns
// structuredContent {"sum": a+b}; fail(why) is an isError result; sleep(ms)
// waits and honours cancellation; hang() never returns; crash() exits the
// process (status 3) with a line on standard error; image() returns an
// image block and a text block; read(path) only reads (readOnlyHint) and
// returns the path; nest(levels) returns structuredContent that nests
// levels JSON levels deep ({"a":{"a":...1}}); shaped(sum, omit) declares
// the outputSchema {"sum": an integer} and returns structuredContent
// {"sum": sum} whatever sum is, or none with omit.
func Main(args []string) int {
	fs := flag.NewFlagSet("fakemcp", flag.ContinueOnError)
	exitAtStart := fs.Bool("exit-at-start", false, "")
	hangAtStart := fs.Bool("hang-at-start", false, "")
	exitOnEOF := fs.Bool("exit-on-eof", false, "")
	crashAfter := fs.Int64("crash-after", 0, "")
	hangAfter := fs.Int64("hang-after", 0, "")
	logFile := fs.String("log", "", "")
	pidFile := fs.String("pidfile", "", "")
	childPidFile := fs.String("child-pidfile", "", "")
	orphanPidFile := fs.String("orphan-pidfile", "", "")
	ignoreTerm := fs.Bool("ignore-term", false, "")
	badName := fs.Bool("bad-name", false, "")
	wireFile := fs.String("wire", "", "")
	noisy := fs.Bool("noisy", false, "")
	jsonLogs := fs.Bool("json-logs", false, "")
	badTools := fs.String("bad-tools", "", "")
	manyTools := fs.Int("many-tools", 0, "")
	describe := fs.String("describe", "", "")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	logLine(*logFile, "start")
	if *noisy {
		// As servers that log to standard output do. One write a line,
		// so that a line is never torn by the SDK's own writes.
		_, _ = os.Stdout.WriteString("fakemcp is starting (a banner)\n\n")
	}
	if *jsonLogs {
		pinoLine("server starting")
	}
	if *pidFile != "" {
		_ = os.WriteFile(*pidFile, []byte(fmt.Sprint(os.Getpid())), 0o644)
	}
	if *childPidFile != "" {
		// Ignored signals are inherited: with -ignore-term the child
		// ignores SIGTERM too.
		child := exec.Command("sleep", "1000")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start child:", err)
			return 1
		}
		_ = os.WriteFile(*childPidFile, []byte(fmt.Sprint(child.Process.Pid)), 0o644)
	}
	if *orphanPidFile != "" {
		child := exec.Command("sleep", "300")
		ownSession(child)
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "start child:", err)
			return 1
		}
		_ = os.WriteFile(*orphanPidFile, []byte(fmt.Sprint(child.Process.Pid)), 0o644)
	}
	if *exitAtStart {
		fmt.Fprintln(os.Stderr, "boom: this server cannot start")
		return 1
	}
	if *hangAtStart {
		buf := make([]byte, 4096)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				if *exitOnEOF {
					return 0
				}
				// stdin closed: kesoku is done with it; stay until killed.
				select {}
			}
		}
	}

	var calls atomic.Int64
	// answers counts the tool results written: a crash on the Nth call
	// waits for the answers of the calls before it, which would otherwise
	// race the exit when calls come at once.
	answers := &answerCount{}
	answers.cond = sync.NewCond(&answers.mu)
	hung := make(chan struct{})
	var hangOnce atomic.Bool
	// count runs before every tool: a crash or a hang on the Nth call.
	count := func(name string) {
		logLine(*logFile, name)
		if *noisy {
			_, _ = os.Stdout.WriteString("{working on " + name + "\n")
		}
		if *jsonLogs {
			pinoLine("calling " + name)
		}
		n := calls.Add(1)
		if *crashAfter > 0 && n >= *crashAfter {
			answers.wait(n - 1)
			fmt.Fprintf(os.Stderr, "fakemcp: crashing on call %d\n", n)
			os.Exit(3)
		}
		if *hangAfter > 0 && n >= *hangAfter {
			if hangOnce.CompareAndSwap(false, true) {
				close(hung)
			}
			select {}
		}
	}

	s := newServer(count, *badName)
	if *describe != "" {
		schema, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "description": *describe}}})
		s.AddTool(&mcp.Tool{Name: "described", Description: *describe, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}, InputSchema: json.RawMessage(schema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			})
	}
	var in io.ReadCloser = os.Stdin
	var out io.WriteCloser = os.Stdout
	if *wireFile != "" {
		f, err := os.Create(*wireFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakemcp:", err)
			return 1
		}
		defer f.Close()
		in = io.NopCloser(io.TeeReader(os.Stdin, f))
	}
	out = &answerCounter{WriteCloser: out, n: answers}
	extra := extraTools(*badTools, *manyTools)
	if len(extra) > 0 {
		out = &splicingWriter{WriteCloser: out, extra: extra}
	}
	var t mcp.Transport = &mcp.IOTransport{Reader: in, Writer: out}
	if *hangAfter > 0 {
		t = &stallingTransport{inner: t, hung: hung}
	}
	if len(extra) > 0 {
		t = &listingTransport{inner: t}
	}
	if err := s.Run(context.Background(), t); err != nil && !strings.Contains(err.Error(), "EOF") {
		fmt.Fprintln(os.Stderr, "fakemcp:", err)
		return 1
	}
	return 0
}

// newServer is the server with its tools; count is told of each call
// before it runs, badName adds a tool with a name kesoku must refuse.
func newServer(count func(string), badName bool) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fakemcp", Version: "1.0.0"}, nil)
	type echoIn struct {
		Text string `json:"text" jsonschema:"what to echo"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes the text. Nothing else."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			count("echo")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	type addIn struct {
		A int `json:"a"`
		B int `json:"b"`
	}
	type addOut struct {
		Sum int `json:"sum"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Adds two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			count("add")
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Fails.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"why":{"type":"string"}},"required":["why"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			count("fail")
			var in struct{ Why string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "failed: " + in.Why}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "sleep", Description: "Waits.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0}},"required":["ms"]}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			count("sleep")
			var in struct{ Ms int }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			select {
			case <-time.After(time.Duration(in.Ms) * time.Millisecond):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint("slept ", in.Ms)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "hang", Description: "Never returns.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			count("hang")
			select {}
		})
	s.AddTool(&mcp.Tool{Name: "crash", Description: "Exits the server.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			count("crash")
			fmt.Fprintln(os.Stderr, "fakemcp: crash asked for")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "image", Description: "Returns a picture.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			count("image")
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "a dot"},
				&mcp.ImageContent{Data: []byte("PNG"), MIMEType: "image/png"},
			}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "read", Description: "Reads a path.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","pattern":"^(?!/)"},"lines":{"type":"integer"}},"required":["path"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			count("read")
			var in struct{ Path string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read " + in.Path}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "env", Description: "Returns an environment variable and the working directory.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			count("env")
			var in struct{ Name string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			wd, _ := os.Getwd()
			return &mcp.CallToolResult{StructuredContent: map[string]string{"value": os.Getenv(in.Name), "cwd": wd},
				Content: []mcp.Content{&mcp.TextContent{Text: os.Getenv(in.Name)}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "nest", Description: "Returns a value nested deep.", InputSchema: json.RawMessage(`{"type":"object","properties":{"levels":{"type":"integer","minimum":1}},"required":["levels"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			count("nest")
			var in struct{ Levels int }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			// Raw: the SDK's own decoder of the answer is what is tested,
			// on the client's side.
			v := strings.Repeat(`{"a":`, in.Levels) + "1" + strings.Repeat("}", in.Levels)
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(v), Content: []mcp.Content{&mcp.TextContent{Text: "nested"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "shaped", Description: "Returns what its outputSchema says, or not.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"sum":{},"omit":{"type":"boolean"}}}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"integer"}},"required":["sum"]}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			count("shaped")
			var in struct {
				Sum  any
				Omit bool
			}
			_ = json.Unmarshal(req.Params.Arguments, &in)
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.Sum)}}}
			if !in.Omit {
				res.StructuredContent = map[string]any{"sum": in.Sum}
			}
			return res, nil
		})
	if badName {
		s.AddTool(&mcp.Tool{Name: "bad.name", Description: "A name no provider takes.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}

	return s
}

// HTTPHandler serves the same server over streamable HTTP, as a server
// reached with type: http would be. A request without the header
// Authorization: Bearer token gets 401, so that a test proves the
// headers of an entry are sent.
func HTTPHandler(token string) http.Handler {
	s := newServer(func(string) {}, false)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// SSEHandler serves the same server over the older HTTP+SSE transport
// (an event stream the client opens with a GET, and the messages it
// POSTs to the endpoint that stream names), as a server reached with
// type: sse would be. A request without the header Authorization: Bearer
// token gets 401.
func SSEHandler(token string) http.Handler {
	s := newServer(func(string) {}, false)
	h := mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// stallingTransport stops answering anything, pings included, once hung
// is closed: a server that stopped answering.
type stallingTransport struct {
	inner mcp.Transport
	hung  chan struct{}
}

func (t *stallingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &stallingConn{Connection: c, hung: t.hung}, nil
}

type stallingConn struct {
	mcp.Connection
	hung chan struct{}
}

func (c *stallingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.hung:
		select {} // never written
	default:
	}
	return c.Connection.Write(ctx, msg)
}

// pinoLine prints a log line on standard output as pino writes them, in
// one write.
func pinoLine(msg string) {
	b, _ := json.Marshal(map[string]any{"level": 30, "time": time.Now().UnixMilli(), "pid": os.Getpid(), "hostname": "fake", "msg": msg})
	_, _ = os.Stdout.Write(append(b, '\n'))
}

// extraTools are the raw tools -bad-tools and -many-tools add.
func extraTools(bad string, many int) []json.RawMessage {
	var out []json.RawMessage
	for _, kind := range strings.Split(bad, ",") {
		switch kind {
		case "deep", "deeper":
			levels := 3000 // two JSON levels each: 6,000
			if kind == "deeper" {
				levels = 6000 // 12,000: more than encoding/json reads
			}
			var b strings.Builder
			b.WriteString(`{"name":"` + kind + `","description":"Nests too deep.","inputSchema":{"type":"object","properties":{"a":`)
			for range levels {
				b.WriteString(`{"type":"object","properties":{"a":`)
			}
			b.WriteString(`{"type":"string"}`)
			for range levels {
				b.WriteString(`}}`)
			}
			b.WriteString(`}}}`)
			out = append(out, json.RawMessage(b.String()))
		case "empty":
			out = append(out, json.RawMessage(`{"name":"","description":"No name.","inputSchema":{"type":"object"}}`))
		case "dup":
			out = append(out, json.RawMessage(`{"name":"echo","description":"A second echo.","inputSchema":{"type":"object"}}`))
		case "badtype":
			out = append(out, json.RawMessage(`{"name":"badtype","annotations":"read-only","inputSchema":{"type":"object"}}`))
		}
	}
	for i := range many {
		var b strings.Builder
		fmt.Fprintf(&b, `{"name":"many_%d","description":"Tool %d of many, which does nothing at all.","inputSchema":{"type":"object","properties":{`, i, i)
		for p := range 30 {
			if p > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"param_%d":{"type":"string","description":"Parameter %d of tool %d, described at some length.","enum":["alpha","beta","gamma"]}`, p, p, i)
		}
		b.WriteString(`},"required":["param_0"]}}`)
		out = append(out, json.RawMessage(b.String()))
	}
	return out
}

// listingTransport adds extra tools to the answers of tools/list as they
// go on the wire, where the SDK's server would refuse some of them: it
// lists a placeholder, which splicingWriter replaces by the extra tools'
// bytes (the SDK's encoder would refuse the deepest of them too).
type listingTransport struct {
	inner mcp.Transport
}

func (t *listingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &listingConn{Connection: c}, nil
}

type listingConn struct {
	mcp.Connection
}

// extraPlaceholder stands for the extra tools in a tools/list answer
// until splicingWriter writes it.
const extraPlaceholder = `{"name":"fakemcp-extra-tools"}`

func (c *listingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if r, ok := msg.(*jsonrpc.Response); ok && r.Error == nil && strings.Contains(string(r.Result), `"tools":[`) {
		var res map[string]json.RawMessage
		var tools []json.RawMessage
		if json.Unmarshal(r.Result, &res) == nil && json.Unmarshal(res["tools"], &tools) == nil {
			tools = append(tools, json.RawMessage(extraPlaceholder))
			b, _ := json.Marshal(map[string]any{"tools": tools})
			r.Result = b
		}
	}
	return c.Connection.Write(ctx, msg)
}

// splicingWriter writes the extra tools where a message (one Write, as
// the SDK writes them) holds the placeholder.
// answerCount is how many tool results were written.
type answerCount struct {
	mu   sync.Mutex
	cond *sync.Cond
	n    int64
}

// wait returns once n tool results were written.
func (a *answerCount) wait(n int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for a.n < n {
		a.cond.Wait()
	}
}

// answerCounter counts the tool results written through it: each message
// is one write, and only a tool's result has content.
type answerCounter struct {
	io.WriteCloser
	n *answerCount
}

func (w *answerCounter) Write(p []byte) (int, error) {
	n, err := w.WriteCloser.Write(p)
	if bytes.Contains(p, []byte(`"content":`)) {
		w.n.mu.Lock()
		w.n.n++
		w.n.cond.Broadcast()
		w.n.mu.Unlock()
	}
	return n, err
}

type splicingWriter struct {
	io.WriteCloser
	extra []json.RawMessage
}

func (w *splicingWriter) Write(p []byte) (int, error) {
	i := bytes.Index(p, []byte(extraPlaceholder))
	if i < 0 {
		return w.WriteCloser.Write(p)
	}
	var b bytes.Buffer
	b.Write(p[:i])
	for k, t := range w.extra {
		if k > 0 {
			b.WriteByte(',')
		}
		b.Write(t)
	}
	b.Write(p[i+len(extraPlaceholder):])
	if _, err := w.WriteCloser.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

func logLine(file, line string) {
	if file == "" {
		return
	}
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, line)
}

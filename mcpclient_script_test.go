package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/cmd"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

func init() {
	scriptCommands["mcpclient"] = func() { os.Exit(mcpClientMain(os.Args[1:])) }
	scriptCommands["kesoku-noisy"] = func() {
		registry.Default.MustRegister(noisyTool)
		os.Exit(cmd.Main())
	}
	scriptCommands["kesoku-typed"] = func() {
		if err := registry.Add(registry.Default, "maybe_point", "Returns the point asked for, or none.", maybePoint); err != nil {
			panic(err)
		}
		os.Exit(cmd.Main())
	}
}

// scriptPoint is the result of a typed tool, which gives it an output
// schema.
type scriptPoint struct {
	X int `json:"x"`
	Y int `json:"y"`
}

// maybePoint returns the point asked for, or nil (null) when none is.
func maybePoint(_ context.Context, _ *registry.ToolContext, in struct {
	X *int `json:"x"`
	Y int  `json:"y,omitempty"`
}) (*scriptPoint, error) {
	if in.X == nil {
		return nil, nil
	}
	return &scriptPoint{X: *in.X, Y: in.Y}, nil
}

// noisyTool prints to standard output, as a careless Go tool might: under
// mcp serve that is the protocol's stream, which must stay clean.
var noisyTool = &toolset.Spec{
	Name: "noisy", Summary: "Prints.", Description: "Prints to standard output and returns.",
	Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
		fmt.Println("noise from a tool")
		os.Stdout.WriteString("more noise\n")
		return "quiet result", nil
	},
}

// mcpClientMain is a small MCP client for the scripts, speaking through
// the SDK's own client to the server that PROG starts:
//
//	mcpclient [-http] [-token VAR] [-version V] OPS -- PROG [ARGS...]
//	mcpclient -config FILE OPS
//
// Over standard input and output (the default) PROG is the server; with
// -config, PROG and ARGS are the command and args of the one server of
// FILE's mcpServers, as a client configured with FILE would start it;
// with -http, PROG prints the server's URL on standard error
// ("http://.../mcp"), and the client connects to it, sending the bearer
// token held by VAR. PROG's standard error is copied to the client's.
// -version asks for protocol version V rather than the SDK's newest
// (which it falls back from).
//
// OPS is a file of operations, one a line:
//
//	protocol           print "protocol VERSION", the version agreed
//	list               print "tool NAME readOnly=BOOL" for each tool
//	schemas            print "outputSchema NAME JSON" for each tool that
//	                   declares one
//	call NAME ARGS     call NAME with the JSON ARGS; print the result
//	start NAME ARGS    call NAME in the background
//	drop FILE NAME ARGS  over HTTP, call NAME on a connection of its own,
//	                   and close the connection once FILE exists (the
//	                   tool has started): a client that goes away
//	results            wait for the background calls; print their results
//	waitlog REGEXP     wait (up to 20s) until PROG's stderr matches
//	waitfile FILE      wait (up to 20s) until FILE exists and is not empty
//	signal INT|TERM    send PROG the signal
//	close              end the session (over stdio: close PROG's input
//	                   once the calls in flight have returned)
//	goaway             over stdio, close PROG's input at once, as a
//	                   client that exits does
//
// A result prints as "NAME: ok: TEXT" or "NAME: error: TEXT" (newlines
// as \n), then "structured: JSON" when it has structured content; a
// protocol error as "NAME: protocol error: ...". At the end the session
// ends, an HTTP server gets SIGINT, and "exit N" prints PROG's exit
// status.
func mcpClientMain(args []string) int {
	fs := flag.NewFlagSet("mcpclient", flag.ContinueOnError)
	useHTTP := fs.Bool("http", false, "PROG serves HTTP")
	tokenVar := fs.String("token", "", "the variable holding the bearer token")
	config := fs.String("config", "", "a client's config file naming the server")
	version := fs.String("version", "", "the protocol version to ask for")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	rest := fs.Args()
	if *config != "" && len(rest) == 1 {
		prog, err := configuredServer(*config)
		if err != nil {
			fmt.Fprintln(os.Stderr, "mcpclient:", err)
			return 2
		}
		rest = append(append(rest, "--"), prog...)
	}
	if len(rest) < 3 || rest[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: mcpclient [-http] [-token VAR] OPS -- PROG [ARGS...] | mcpclient -config FILE OPS")
		return 2
	}
	ops, err := os.ReadFile(rest[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	c := &scriptClient{log: &lockedBuffer{}, version: *version}
	c.cmd = exec.Command(rest[2], rest[3:]...)
	c.cmd.Stderr = io.MultiWriter(os.Stderr, c.log)
	if err := c.connect(*useHTTP, os.Getenv(*tokenVar)); err != nil {
		fmt.Fprintln(os.Stderr, "mcpclient:", err)
		c.kill()
		return 1
	}
	for line := range strings.Lines(string(ops)) {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := c.do(line); err != nil {
			fmt.Fprintf(os.Stderr, "mcpclient: %s: %v\n", line, err)
			c.kill()
			return 1
		}
	}
	c.results()
	c.cs.Close()
	if *useHTTP {
		select {
		case <-c.waited:
		default:
			c.cmd.Process.Signal(syscall.SIGINT)
		}
	}
	fmt.Printf("exit %d\n", c.wait())
	return 0
}

// configuredServer is the command line of the one server in the
// mcpServers of the config file at path (Claude Desktop's, Gemini CLI's).
func configuredServer(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(cfg.MCPServers) != 1 {
		return nil, fmt.Errorf("%s: %d servers, want 1", path, len(cfg.MCPServers))
	}
	for _, s := range cfg.MCPServers {
		return append([]string{s.Command}, s.Args...), nil
	}
	return nil, nil
}

type scriptClient struct {
	cmd     *exec.Cmd
	cs      *mcp.ClientSession
	version string
	// stdin is PROG's standard input, over stdio.
	stdin io.Closer
	// url and token are the server's over HTTP.
	url, token string
	log        *lockedBuffer
	waited     chan struct{}
	pending    []chan string
}

func (c *scriptClient) connect(useHTTP bool, token string) error {
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpclient", Version: "1"}, nil)
	ctx := context.Background()
	opts := &mcp.ClientSessionOptions{ProtocolVersion: c.version}
	if !useHTTP {
		// Plain pipes rather than the SDK's CommandTransport, whose Close
		// waits for the calls in flight: goaway closes PROG's input at
		// once, as a client that exits does. Closing the session closes
		// the input alone; PROG's output stays open until it ends.
		inR, inW, err := os.Pipe()
		if err != nil {
			return err
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			return err
		}
		c.cmd.Stdin, c.cmd.Stdout = inR, outW
		err = c.start()
		inR.Close()
		outW.Close()
		if err != nil {
			return err
		}
		c.stdin = inW
		cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(outR), Writer: inW}, opts)
		c.cs = cs
		return err
	}
	if err := c.start(); err != nil {
		return err
	}
	var url string
	if err := c.waitLog(regexp.MustCompile(`http://\S+/mcp`), func(m string) { url = m }); err != nil {
		return err
	}
	hc := http.DefaultClient
	if token != "" {
		hc = &http.Client{Transport: bearerToken(token)}
	}
	c.url, c.token = url, token
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, opts)
	c.cs = cs
	return err
}

// start starts PROG, and waits for it in the background.
func (c *scriptClient) start() error {
	if err := c.cmd.Start(); err != nil {
		return err
	}
	c.waited = make(chan struct{})
	go func() { c.cmd.Wait(); close(c.waited) }()
	return nil
}

func (c *scriptClient) do(line string) error {
	op, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch op {
	case "protocol":
		fmt.Printf("protocol %s\n", c.cs.InitializeResult().ProtocolVersion)
	case "drop":
		file, call, _ := strings.Cut(rest, " ")
		name, args, _ := strings.Cut(strings.TrimSpace(call), " ")
		return c.drop(file, name, args)
	case "list":
		res, err := c.cs.ListTools(context.Background(), nil)
		if err != nil {
			return err
		}
		for _, t := range res.Tools {
			ro := t.Annotations != nil && t.Annotations.ReadOnlyHint
			fmt.Printf("tool %s readOnly=%v\n", t.Name, ro)
		}
	case "schemas":
		res, err := c.cs.ListTools(context.Background(), nil)
		if err != nil {
			return err
		}
		for _, t := range res.Tools {
			if t.OutputSchema != nil {
				data, _ := json.Marshal(t.OutputSchema)
				fmt.Printf("outputSchema %s %s\n", t.Name, data)
			}
		}
	case "call":
		fmt.Print(<-c.call(rest))
	case "start":
		c.pending = append(c.pending, c.call(rest))
	case "results":
		c.results()
	case "waitlog":
		re, err := regexp.Compile(rest)
		if err != nil {
			return err
		}
		return c.waitLog(re, nil)
	case "waitfile":
		return waitFile(rest)
	case "signal":
		sig := map[string]os.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM}[rest]
		if sig == nil {
			return fmt.Errorf("unknown signal %q", rest)
		}
		return c.cmd.Process.Signal(sig)
	case "close":
		return c.cs.Close()
	case "goaway":
		if c.stdin == nil {
			return errors.New("goaway is for standard input and output")
		}
		return c.stdin.Close()
	default:
		return fmt.Errorf("unknown operation %q", op)
	}
	return nil
}

// call calls the tool that "NAME ARGS" names; its result comes on the
// channel, as it prints.
func (c *scriptClient) call(spec string) chan string {
	name, raw, _ := strings.Cut(spec, " ")
	ch := make(chan string, 1)
	var args any
	if raw = strings.TrimSpace(raw); raw != "" {
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			ch <- fmt.Sprintf("%s: bad arguments: %v\n", name, err)
			return ch
		}
	}
	go func() {
		res, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			ch <- fmt.Sprintf("%s: protocol error: %v\n", name, err)
			return
		}
		var b strings.Builder
		outcome := "ok"
		if res.IsError {
			outcome = "error"
		}
		var texts []string
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		fmt.Fprintf(&b, "%s: %s: %s\n", name, outcome, strings.ReplaceAll(strings.Join(texts, ""), "\n", `\n`))
		if res.StructuredContent != nil {
			data, _ := json.Marshal(res.StructuredContent)
			fmt.Fprintf(&b, "structured: %s\n", data)
		}
		ch <- b.String()
	}()
	return ch
}

// drop calls the tool name with the JSON args as a client of the
// session's protocol version does, by hand, on a connection of its own,
// and closes the connection once file exists. It prints "NAME: dropped".
func (c *scriptClient) drop(file, name, args string) error {
	if c.url == "" {
		return errors.New("drop is for -http")
	}
	version := c.cs.InitializeResult().ProtocolVersion
	params := map[string]any{"name": name, "arguments": json.RawMessage(args)}
	if version >= "2026-07-28" {
		params["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    version,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}
	}
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "dropped", "method": "tools/call", "params": params})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", version)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", name)
	if id := c.cs.ID(); id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	sent := make(chan error, 1)
	go func() {
		resp, err := (&http.Client{Transport: &http.Transport{}}).Do(req)
		if err == nil {
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		sent <- err
	}()
	if err := waitFile(file); err != nil {
		return err
	}
	cancel()
	if err := <-sent; !errors.Is(err, context.Canceled) {
		return fmt.Errorf("the call ended before it was dropped: %v", err)
	}
	fmt.Printf("%s: dropped\n", name)
	return nil
}

// waitFile waits (up to 20s) until the file at path exists and is not
// empty.
func waitFile(path string) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s is missing or empty after 20s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (c *scriptClient) results() {
	for _, ch := range c.pending {
		fmt.Print(<-ch)
	}
	c.pending = nil
}

// waitLog waits until PROG's standard error matches re, and hands found
// the match.
func (c *scriptClient) waitLog(re *regexp.Regexp, found func(string)) error {
	deadline := time.Now().Add(20 * time.Second)
	for {
		if m := re.FindString(c.log.String()); m != "" {
			if found != nil {
				found(m)
			}
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("stderr does not match %q after 20s", re)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// wait returns PROG's exit status once it has ended, killing it after 20s.
func (c *scriptClient) wait() int {
	select {
	case <-c.waited:
	case <-time.After(20 * time.Second):
		c.kill()
		<-c.waited
	}
	if c.cmd.ProcessState == nil {
		return -1
	}
	return c.cmd.ProcessState.ExitCode()
}

func (c *scriptClient) kill() {
	if c.cmd.Process != nil {
		c.cmd.Process.Kill()
	}
}

// bearerToken is an http.RoundTripper that sends a bearer token.
type bearerToken string

func (b bearerToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// lockedBuffer is a buffer written by one goroutine and read by another.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

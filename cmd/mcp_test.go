package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/app/apptest"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// Everything that can be refused is refused before anything is served,
// as bad usage; above all, a network address without a token.
func TestMCPServeUsage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--tools", "read_fil"}, `--tools: unknown tool "read_fil"; did you mean "read_file"\?`},
		{[]string{"--token-env", "KESOKU_TEST_MCP_TOKEN"}, `--token-env KESOKU_TEST_MCP_TOKEN: a token is for --http`},
		{[]string{"--http", "0.0.0.0:0"}, `--http "0.0.0.0:0" is not a loopback address: serving to a network needs a bearer token \(--token-env VAR\)`},
		{[]string{"--http", "[::]:0"}, `is not a loopback address`},
		{[]string{"--http", "0.0.0.0:0", "--token-env", "KESOKU_TEST_MCP_UNSET"}, `--token-env KESOKU_TEST_MCP_UNSET: the variable is not set or empty`},
		{[]string{"--http", "a:b:c"}, `^kesoku: invalid argument "a:b:c" for "--http" flag: is no address \(too many colons in address\): give PORT, :PORT or HOST:PORT\n$`},
		{[]string{"--http", "eighty"}, `^kesoku: invalid argument "eighty" for "--http" flag: has no port: "eighty" is not a port number\n$`},
		{[]string{"--http", "0", "--token-env", "$TOKEN"}, `^kesoku: invalid argument "\$TOKEN" for "--token-env" flag: want the name of an environment variable, e.g. KESOKU_MCP_TOKEN\n$`},
		{[]string{"--provider", "gemini"}, `give --model too`},
		{[]string{"stray"}, `mcp serve takes no arguments, got "stray"`},
		{[]string{"--jobs", "0"}, `--jobs`},
		{[]string{"--http", "0", "--session-timeout", "0"}, `--session-timeout.*want a duration \(300ms, 30s, 5m, 1h\) from 1s to 168h`},
		{[]string{"--session-timeout", "1m"}, `--session-timeout: sessions are for --http`},
		{[]string{"--max-sessions", "10"}, `--max-sessions: sessions are for --http`},
		{[]string{"--http", "0", "--max-sessions", "0"}, `--max-sessions.*from 1 to 1000000`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			var out, errOut bytes.Buffer
			g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}}
			code := run(context.Background(), g, append([]string{"--awd", t.TempDir(), "mcp", "serve"}, tt.args...))
			if code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitUsage, errOut.String())
			}
			if !regexp.MustCompile(tt.stderr).MatchString(errOut.String()) {
				t.Errorf("stderr does not match %q:\n%s", tt.stderr, errOut.String())
			}
			if out.Len() != 0 {
				t.Errorf("stdout is not empty: %q", out.String())
			}
		})
	}
}

// stdioServer is `kesoku mcp serve` run in the test, on pipes, with a
// client of the SDK's on their other ends.
type stdioServer struct {
	cs     *mcp.ClientSession
	stderr *syncBuffer
	sig    *apptest.Signals
	code   chan int
	dir    string
}

// startMCPServe starts kesoku mcp serve with args, in dir as the AWD.
func startMCPServe(t *testing.T, dir string, args ...string) *stdioServer {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stdioServer{stderr: &syncBuffer{}, sig: &apptest.Signals{}, code: make(chan int, 1), dir: dir}
	g := &globals{IO: &ioStreams{In: inR, Out: outW, Err: s.stderr}, Signals: s.sig.Source}
	go func() {
		s.code <- run(context.Background(), g, append([]string{"--awd", dir, "mcp", "serve"}, args...))
		outW.Close()
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v; stderr:\n%s", err, s.stderr.String())
	}
	s.cs = cs
	t.Cleanup(func() { cs.Close() })
	return s
}

func (s *stdioServer) tools(t *testing.T) []string {
	t.Helper()
	res, err := s.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func (s *stdioServer) exit(t *testing.T) int {
	t.Helper()
	select {
	case code := <-s.code:
		return code
	case <-time.After(20 * time.Second):
		t.Fatalf("kesoku mcp serve still runs after 20s; stderr:\n%s", s.stderr.String())
		return 0
	}
}

// By default only the tools that read are offered; --tools all offers
// every one, --tools names some.
func TestMCPServeTools(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args       []string
		has, lacks []string
		exactly    []string
	}{
		{args: nil, has: []string{"read_file", "calculate_sum", "grep"}, lacks: []string{"write_file"}},
		{args: []string{"--tools", "all"}, has: []string{"read_file", "write_file"}},
		{args: []string{"--tools", "write_file,calculate_sum"}, exactly: []string{"calculate_sum", "write_file"}},
		{args: []string{"--tools", ""}, exactly: nil},
	} {
		s := startMCPServe(t, t.TempDir(), tt.args...)
		got := s.tools(t)
		for _, n := range tt.has {
			if !slices.Contains(got, n) {
				t.Errorf("%v: %s not offered: %v", tt.args, n, got)
			}
		}
		for _, n := range tt.lacks {
			if slices.Contains(got, n) {
				t.Errorf("%v: %s offered: %v", tt.args, n, got)
			}
		}
		if tt.has == nil && !slices.Equal(got, tt.exactly) {
			t.Errorf("%v: offered %v, want %v", tt.args, got, tt.exactly)
		}
		s.cs.Close()
		if code := s.exit(t); code != ExitOK {
			t.Errorf("%v: exit %d after the client closed; stderr:\n%s", tt.args, code, s.stderr.String())
		}
	}
}

// Calls go through the ToolRunner, each recorded in the -o file, which
// the tools cannot write; the client closing its end is a clean exit.
func TestMCPServeCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "calls.jsonl")
	s := startMCPServe(t, dir, "--tools", "all", "-o", out)
	for _, tc := range []struct {
		name  string
		args  map[string]any
		error bool
		text  string
	}{
		{"calculate_sum", map[string]any{"a": 2, "b": 3}, false, "5"},
		{"calculate_sum", map[string]any{"a": 2}, true, "invalid_args: "},
		{"write_file", map[string]any{"path": "calls.jsonl", "content": "x"}, true, "it is the file this server writes its records to"},
		{"read_file", map[string]any{"path": "/etc/passwd"}, true, "invalid_args: "},
	} {
		res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.name, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError != tc.error || !strings.Contains(text, tc.text) {
			t.Errorf("%s %v: isError %v, %q; want %v, %q", tc.name, tc.args, res.IsError, text, tc.error, tc.text)
		}
	}
	s.cs.Close()
	if code := s.exit(t); code != ExitOK {
		t.Errorf("exit %d; stderr:\n%s", code, s.stderr.String())
	}
	var parents []string
	err := records.ReadFile(out, func(r *message.Record) error {
		parents = append(parents, r.ParentID+" "+r.Name)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"call_1 calculate_sum", "call_2 calculate_sum", "call_3 write_file", "call_4 read_file"}
	if !slices.Equal(parents, want) {
		t.Errorf("records %v, want %v", parents, want)
	}
}

// SIGINT stops the server: the call in flight is answered as aborted,
// and the exit status is 130.
func TestMCPServeInterrupt(t *testing.T) {
	t.Parallel()
	s := startMCPServe(t, t.TempDir(), "-v", "--grace", "1m")
	res := make(chan *mcp.CallToolResult, 1)
	go func() {
		r, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"seconds": 600}})
		if err != nil {
			t.Errorf("sleep: %v", err)
		}
		res <- r
	}()
	for i := 0; !strings.Contains(s.stderr.String(), "→ call_1 sleep"); i++ {
		if i == 4000 {
			t.Fatalf("the call did not start within 20s; stderr:\n%s", s.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	s.sig.Send(t, os.Interrupt)
	r := <-res
	if r == nil || !r.IsError || !strings.HasPrefix(r.Content[0].(*mcp.TextContent).Text, "aborted: interrupted while running") {
		t.Errorf("the call in flight: %+v", r)
	}
	if code := s.exit(t); code != ExitInterrupted {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitInterrupted, s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), "kesoku: interrupted") {
		t.Errorf("stderr does not say interrupted:\n%s", s.stderr.String())
	}
}

// The -o file is kesoku's own while the server runs, as for kesoku run:
// another writer is refused before anything is served, and the file is
// left as it was.
func TestMCPServeOutputInUse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "calls.jsonl")
	s := startMCPServe(t, dir, "-o", out)
	var stdout, stderr bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &stdout, Err: &stderr}}
	code := run(context.Background(), g, []string{"--awd", dir, "mcp", "serve", "-o", out})
	if code != ExitUsage || !strings.Contains(stderr.String(), "calls.jsonl: in use: another kesoku writes to it") {
		t.Errorf("a second server on the same -o file: exit %d, stderr:\n%s", code, stderr.String())
	}
	s.cs.Close()
	if code := s.exit(t); code != ExitOK {
		t.Errorf("the first server: exit %d; stderr:\n%s", code, s.stderr.String())
	}
}

// mcpServeConfig is a config file with a command tool that only reads, one
// that writes, and an MCP server whose start leaves a file behind.
const mcpServeConfig = `tools:
  shout:
    description: Says the text back.
    command: [printf, "%s!", "{{text}}"]
    parameters:
      type: object
      properties: {text: {type: string}}
      required: [text]
    read_only: true
  touch:
    description: Makes a file.
    command: [touch, "{{name}}"]
    parameters:
      type: object
      properties: {name: {type: string}}
      required: [name]
mcpServers:
  other:
    command: sh
    args: [-c, "touch started; sleep 60"]
`

// mcp serve offers the command tools as session does, through the same
// choice: those declared read_only by default, the others when named. The
// MCP servers of the config are not served, nor started: kesoku serves its
// own tools.
func TestMCPServeCommandTools(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := filepath.Join(dir, "tools.yaml")
	if err := os.WriteFile(conf, []byte(mcpServeConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args       []string
		has, lacks []string
	}{
		{args: []string{"-v"}, has: []string{"shout", "read_file"}, lacks: []string{"touch", "write_file"}},
		{args: []string{"--tools", "touch,shout"}, has: []string{"shout", "touch"}, lacks: []string{"read_file"}},
		{args: []string{"--tools", "all"}, has: []string{"shout", "touch", "write_file"}},
	} {
		s := startMCPServe(t, dir, append([]string{"--config", conf}, tt.args...)...)
		got := s.tools(t)
		for _, n := range tt.has {
			if !slices.Contains(got, n) {
				t.Errorf("%v: %s not offered: %v", tt.args, n, got)
			}
		}
		for _, n := range append(tt.lacks, "other__") {
			if slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, n) }) {
				t.Errorf("%v: %s offered: %v", tt.args, n, got)
			}
		}
		res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "shout", Arguments: map[string]any{"text": "hi"}})
		if err != nil {
			t.Fatal(err)
		}
		if text := res.Content[0].(*mcp.TextContent).Text; res.IsError || text != "hi!" {
			t.Errorf("%v: shout: isError %v, %q", tt.args, res.IsError, text)
		}
		s.cs.Close()
		if code := s.exit(t); code != ExitOK {
			t.Errorf("%v: exit %d; stderr:\n%s", tt.args, code, s.stderr.String())
		}
		const note = "kesoku: the tools of the MCP servers of the config (other) are not served: kesoku serves its own\n"
		if verbose := slices.Contains(tt.args, "-v"); strings.Contains(s.stderr.String(), note) != verbose {
			t.Errorf("%v: stderr:\n%s\nwant the note %q only with -v", tt.args, s.stderr.String(), note)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
		t.Error("the MCP server of the config was started")
	}

	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"--tools", "other__read"}, `--tools: other__read is a tool of the MCP server other: kesoku serves its own tools \(Go and command tools\), not those of the servers it uses`},
		{[]string{"--tools", "shot"}, `--tools: unknown tool "shot"; did you mean "shout"\?`},
		{[]string{"--mcp-config", conf}, `--mcp-config: mcp serve serves kesoku's own tools`},
	} {
		var out, errOut bytes.Buffer
		g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}}
		code := run(context.Background(), g, append([]string{"--awd", dir, "--config", conf, "mcp", "serve"}, tt.args...))
		if code != ExitUsage || !regexp.MustCompile(tt.stderr).MatchString(errOut.String()) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant %d, %q", tt.args, code, errOut.String(), ExitUsage, tt.stderr)
		}
	}
}

// A call of a tool that is not offered is answered with what was likely
// meant, and for a tool that exists, how to offer it.
func TestMCPServeUnknownTool(t *testing.T) {
	t.Parallel()
	s := startMCPServe(t, t.TempDir())
	for _, tc := range []struct{ name, want string }{
		{"write_file", `tool "write_file" is not offered by this server; the tools offered: calculate_sum, .*\. kesoku mcp serve offers write_file when --tools names it \(--tools \+write_file adds it to the tools that only read\)$`},
		{"write_fil", `unknown tool "write_fil"; did you mean "write_file"\? It is not offered by this server\. The tools offered: .*\. kesoku mcp serve offers write_file when --tools names it`},
		{"read_fil", `unknown tool "read_fil"; did you mean "read_file"\? The tools offered: [a-z_, ]+$`},
	} {
		_, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.name, Arguments: map[string]any{}})
		if err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
			t.Errorf("call %s: %v, want %q", tc.name, err, tc.want)
		}
	}
	s.cs.Close()
	if code := s.exit(t); code != ExitOK {
		t.Errorf("exit %d; stderr:\n%s", code, s.stderr.String())
	}
}

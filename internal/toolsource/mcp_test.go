package toolsource

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/toolsource/mcptest"
	"github.com/kesoku/kesoku/registry"
)

// TestMain lets the test binary play the fake MCP server: kesoku starts it
// as it would start any server.
func TestMain(m *testing.M) {
	if os.Getenv("KESOKU_FAKEMCP") == "1" {
		os.Exit(mcptest.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// fakeServer builds a Set with one MCP server, "fake": this test binary
// playing mcptest's server with args.
func fakeServer(t *testing.T, ctx context.Context, opts Options, args ...string) *Set {
	t.Helper()
	return fakeServerWith(t, ctx, opts, "", args...)
}

// fakeServerWith is fakeServer with more keys in the server's entry
// (YAML lines, each indented by four spaces).
func fakeServerWith(t *testing.T, ctx context.Context, opts Options, keys string, args ...string) *Set {
	t.Helper()
	if opts.Grace == 0 {
		opts.Grace = 200 * time.Millisecond
	}
	return setOf(t, ctx, opts, "mcpServers:\n  fake:\n    command: "+os.Args[0]+"\n    args: ["+strings.Join(args, ", ")+"]\n    env: {KESOKU_FAKEMCP: \"1\"}\n"+keys)
}

// setOf builds the Set of a kesoku.yaml of the text yaml, in a directory
// of its own that is the AWD, and closes it when the test ends.
func setOf(tb testing.TB, ctx context.Context, opts Options, yaml string) *Set {
	tb.Helper()
	set, err := buildOf(tb, ctx, opts, yaml)
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

// buildOf is setOf, Build's error returned.
func buildOf(tb testing.TB, ctx context.Context, opts Options, yaml string) (*Set, error) {
	tb.Helper()
	dir := tb.TempDir()
	path := filepath.Join(dir, "kesoku.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		tb.Fatal(err)
	}
	f, err := config.ReadFile(path, config.Named, nil)
	if err != nil {
		tb.Fatal(err)
	}
	opts.Config = &config.Config{Files: []*config.File{f}}
	opts.AWD = dir
	set, err := Build(ctx, registry.New(), opts)
	if err == nil {
		tb.Cleanup(func() { set.Close() })
	}
	return set, err
}

// call calls the tool name of set, as the runner would, within a bound
// that only a hang reaches.
func call(t *testing.T, set *Set, name string, args map[string]any) (any, error) {
	t.Helper()
	spec, ok := set.Registry.Lookup(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	if err := spec.Validate(args); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	v, err := spec.Call(ctx, &registry.ToolContext{}, args)
	if ctx.Err() != nil {
		t.Fatalf("%s: still waiting after 30s", name)
	}
	return v, err
}

// TestServerStopsAnswering: without --timeout, a server that answers
// nothing any more (pings included) is given up: the call in flight fails
// saying so, rather than waiting forever.
func TestServerStopsAnswering(t *testing.T) {
	t.Parallel()
	set := fakeServer(t, context.Background(), Options{KeepAlive: 100 * time.Millisecond}, "-hang-after", "2")
	if v, err := call(t, set, "fake__add", map[string]any{"a": 1, "b": 2}); err != nil {
		t.Fatalf("first call: %v", err)
	} else if diff := cmp.Diff(map[string]any{"sum": 3.0}, v); diff != "" {
		t.Errorf("first call mismatch (-want +got):\n%s", diff)
	}
	_, err := call(t, set, "fake__add", map[string]any{"a": 1, "b": 2})
	if err == nil || !strings.Contains(err.Error(), "stopped answering") {
		t.Errorf("call to a server that stopped answering: %v", err)
	}
	// And the next call fails at once.
	if _, err := call(t, set, "fake__echo", map[string]any{"text": "x"}); err == nil {
		t.Error("a call after the server was given up succeeded")
	}
}

// TestServerStartBounded: a server that never answers its start fails
// its tools after the start timeout; an interrupt (the command's context)
// cuts the start short.
func TestServerStartBounded(t *testing.T) {
	t.Parallel()
	set := fakeServer(t, context.Background(), Options{StartTimeout: 300 * time.Millisecond}, "-hang-at-start")
	_, err := call(t, set, "fake__add", map[string]any{"a": 1, "b": 2})
	if err == nil || !strings.Contains(err.Error(), "start: no answer within 300ms") {
		t.Errorf("a server that never answers: %v", err)
	}
	// --timeout bounds the start too, and the server's own timeout wins.
	set = fakeServer(t, context.Background(), Options{Timeout: 200 * time.Millisecond}, "-hang-at-start")
	if _, err := call(t, set, "fake__add", map[string]any{"a": 1, "b": 2}); err == nil || !strings.Contains(err.Error(), "start: no answer within 200ms (the command's timeout)") {
		t.Errorf("a server that never answers, with --timeout: %v", err)
	}
	set = fakeServerWith(t, context.Background(), Options{Timeout: time.Hour}, "    timeout: 250ms\n", "-hang-at-start")
	if _, err := call(t, set, "fake__add", map[string]any{"a": 1, "b": 2}); err == nil || !strings.Contains(err.Error(), "start: no answer within 250ms (its timeout)") {
		t.Errorf("a server that never answers, with its own timeout: %v", err)
	}
	// A server that answers nothing, and exits when kesoku gives up and
	// closes its input, gave no answer: its exit is kesoku's doing.
	set = fakeServer(t, context.Background(), Options{StartTimeout: 300 * time.Millisecond}, "-hang-at-start", "-exit-on-eof")
	if _, err := call(t, set, "fake__add", map[string]any{"a": 1, "b": 2}); err == nil || !strings.Contains(err.Error(), "start: no answer within 300ms") {
		t.Errorf("a server that never answers and exits at the end of its input: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	set = fakeServer(t, ctx, Options{}, "-hang-at-start")
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := call(t, set, "fake__add", map[string]any{}); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("an interrupted start: %v", err)
	}
}

// TestServerResults: structuredContent, else the text, else the blocks;
// isError is an error with the text.
func TestServerResults(t *testing.T) {
	t.Parallel()
	set := fakeServer(t, context.Background(), Options{})
	tests := []struct {
		tool string
		args map[string]any
		want any
		err  string
	}{
		{"fake__add", map[string]any{"a": 2, "b": 3}, map[string]any{"sum": 5.0}, ""},
		{"fake__echo", map[string]any{"text": "hi"}, "hi", ""},
		{"fake__fail", map[string]any{"why": "no"}, nil, "failed: no"},
	}
	for _, tt := range tests {
		v, err := call(t, set, tt.tool, tt.args)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s: error %v, want %q", tt.tool, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.tool, err)
			continue
		}
		if diff := cmp.Diff(tt.want, v); diff != "" {
			t.Errorf("%s mismatch (-want +got):\n%s", tt.tool, diff)
		}
	}
	// The schema as the server wrote it, properties in its order.
	spec, _ := set.Registry.Lookup("fake__read")
	if got := string(spec.InputSchema()); !strings.HasPrefix(got, `{"type":"object","properties":{"path":`) {
		t.Errorf("schema of fake__read: %s", got)
	}
	if spec.Writes {
		t.Error("fake__read says readOnlyHint, yet Writes")
	}
}

// BenchmarkMCPCall is one call of an MCP server's tool as the runner
// makes it, arguments checked against the server's schema: kesoku's side
// of the round trip and the protocol's, the server doing nothing.
func BenchmarkMCPCall(b *testing.B) {
	set := benchServer(b)
	spec, _ := set.Registry.Lookup("fake__add")
	args := map[string]any{"a": 1.0, "b": 2.0}
	ctx := context.Background()
	for b.Loop() {
		if err := spec.Validate(args); err != nil {
			b.Fatal(err)
		}
		if _, err := spec.Call(ctx, &registry.ToolContext{}, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck is the schema check of one call's arguments alone.
func BenchmarkCheck(b *testing.B) {
	a, err := compileArgSchema("search", []byte(searchSchema), false)
	if err != nil {
		b.Fatal(err)
	}
	args := map[string]any{"query": "x", "limit": 3.0, "tags": []any{"a", "b"}}
	for b.Loop() {
		if err := a.check(args); err != nil {
			b.Fatal(err)
		}
	}
}

func benchServer(b *testing.B) *Set {
	return setOf(b, context.Background(), Options{}, "mcpServers:\n  fake:\n    command: "+os.Args[0]+"\n    env: {KESOKU_FAKEMCP: \"1\"}\n")
}

// TestWithoutServers: the servers are declared and checked, but none
// starts and none of their tools is in the registry.
func TestWithoutServers(t *testing.T) {
	t.Parallel()
	set := fakeServer(t, context.Background(), Options{WithoutServers: true})
	if err := set.Registry.Load(); err != nil {
		t.Fatal(err)
	}
	if names := set.Registry.Names(); len(names) != 0 {
		t.Errorf("tools %v, want none", names)
	}
	if _, ok := set.Registry.Lookup("fake__add"); ok {
		t.Error("fake__add is in the registry")
	}
	if diff := cmp.Diff([]string{"fake"}, set.Servers()); diff != "" {
		t.Errorf("Servers mismatch (-want +got):\n%s", diff)
	}
}

// TestClientCapabilities: kesoku declares no roots to a server. It has none
// to give, and a server that is told a client has roots may take their
// list, empty, for the directories it may reach.
func TestClientCapabilities(t *testing.T) {
	t.Parallel()
	wire := filepath.Join(t.TempDir(), "wire.jsonl")
	set := fakeServer(t, context.Background(), Options{}, "-wire", wire)
	if _, err := call(t, set, "fake__echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(wire)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"tools/call"`) {
		t.Fatalf("the call is not on the wire:\n%s", data)
	}
	if strings.Contains(string(data), `"roots"`) {
		t.Errorf("kesoku declares roots:\n%s", data)
	}
}

// TestStdioConn: what a server prints on standard output reaches the SDK
// as messages, without the lines that are not JSON-RPC (a banner, a JSON
// log line without "jsonrpc", a line that is no JSON), each of those told
// escaped; a batch is its messages; a last line without a newline too. A
// line longer than the bound is not read: the call it answers gets an
// error, and the connection goes on; a line too long that names no call
// ends the connection, saying so.
func TestStdioConn(t *testing.T) {
	t.Parallel()
	long := `{"jsonrpc":"2.0","id":4,"result":{"text":"` + strings.Repeat("a", 300) + `"}}` + "\n"
	in := "Starting server on stdio\n" +
		`{"level":30,"time":1700000000000,"msg":"listening"}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" +
		"\n" +
		"{not json \x1b[2J\n" +
		`[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","method":"notifications/progress"}]` + "\r\n" +
		long +
		`{"jsonrpc":"2.0","id":3,"result":{}}` + "\n" +
		`{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("b", 300) + `"}` + "\n" +
		`{"jsonrpc":"2.0","id":5,"result":{}}`
	var skipped []string
	c := newStdioConn(io.NopCloser(strings.NewReader(in)), nopWriteCloser{io.Discard}, 200, &toolList{}, func(l string) { skipped = append(skipped, l) })
	c.calls[mustID(t, 4.0)] = "tools/call"
	c.start()
	got := received(c)
	want := []string{"result 1", "result 2", "request notifications/progress",
		"error 4: the server sent a message of more than 200 bytes (a result too large to take): kesoku did not read it", "result 3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Starting server on stdio", `{"level":30,"time":1700000000000,"msg":"listening"}`, `{not json \x1b[2J`}, skipped); diff != "" {
		t.Errorf("skipped mismatch (-want +got):\n%s", diff)
	}
	if why := c.endedWhy(); why != "the server sent a message of more than 200 bytes (a result too large to take): kesoku closed the connection" {
		t.Errorf("the connection ended: %q", why)
	}
}

// TestServerMessageTooLarge: a result larger than the bound on a
// server's messages fails saying so, not "the server exited", and costs
// only its own call: the next call of the server succeeds.
func TestServerMessageTooLarge(t *testing.T) {
	t.Parallel()
	set := fakeServer(t, context.Background(), Options{MaxMessage: 4096})
	if _, err := call(t, set, "fake__echo", map[string]any{"text": "short"}); err != nil {
		t.Fatal(err)
	}
	_, err := call(t, set, "fake__echo", map[string]any{"text": strings.Repeat("x", 5000)})
	if err == nil || !strings.Contains(err.Error(), "the server sent a message of more than 4 KiB (a result too large to take): kesoku did not read it") {
		t.Errorf("a result too large: %v", err)
	}
	if v, err := call(t, set, "fake__echo", map[string]any{"text": "after"}); err != nil || v != "after" {
		t.Errorf("the call after: %v, %v", v, err)
	}
}

// TestServerCallCancelled: a call cancelled in flight (an interrupt, a
// client cancelling) fails saying so in words, without the context's
// "context canceled" in front; errors.Is still finds the cause.
func TestServerCallCancelled(t *testing.T) {
	t.Parallel()
	set := fakeServer(t, context.Background(), Options{})
	if _, err := call(t, set, "fake__echo", map[string]any{"text": "start"}); err != nil {
		t.Fatal(err)
	}
	spec, _ := set.Registry.Lookup("fake__hang")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := spec.Call(ctx, &registry.ToolContext{}, map[string]any{})
	if err == nil || !strings.HasPrefix(err.Error(), "the call to mcp server fake (") || !strings.HasSuffix(err.Error(), ") was cancelled") {
		t.Errorf("a cancelled call: %v", err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v: not a context.Canceled", err)
	}
}

// TestServerBadTools: a server that logs JSON lines on standard output
// (pino's, without "jsonrpc") and lists tools kesoku cannot offer keeps
// its other tools: each bad one is left out with a warning naming it (a
// schema nested 6,000 levels, which the SDK would refuse with the whole
// list; an empty name, which would be offered as "fake__"; a second tool
// of one name; a field of the wrong type), and each log line is skipped,
// told under -v.
func TestServerBadTools(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var warnings, notes []string
	opts := Options{
		Warn: func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() },
		Note: func(m string) { mu.Lock(); notes = append(notes, m); mu.Unlock() },
	}
	set := fakeServer(t, context.Background(), opts, "-json-logs", "-bad-tools", `"deep,empty,dup,badtype"`)
	if err := set.Registry.Load(); err != nil {
		t.Fatalf("the server's tools: %v", err)
	}
	if v, err := call(t, set, "fake__echo", map[string]any{"text": "hi"}); err != nil || v != "hi" {
		t.Errorf("fake__echo: %v, %v", v, err)
	}
	for _, name := range []string{"fake__", "fake__deep", "fake__badtype"} {
		if _, ok := set.Registry.Lookup(name); ok {
			t.Errorf("%s is offered", name)
		}
	}
	if _, ok := set.Registry.Lookup("fake__add"); !ok {
		t.Error("fake__add is not offered")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, want := range []string{
		`tool "deep" is not offered: it nests 6004 levels deep, more than the 200 kesoku reads`,
		`tool "badtype" is not offered: it is no MCP tool`,
		`tool "" is not offered: it has no name`,
		`tool "echo" is listed twice: the second is not offered`,
	} {
		if !slices.ContainsFunc(warnings, func(w string) bool { return strings.Contains(w, want) }) {
			t.Errorf("no warning %q in:\n%s", want, strings.Join(warnings, "\n"))
		}
	}
	if !slices.ContainsFunc(notes, func(n string) bool {
		return strings.Contains(n, `mcp server fake: not MCP on standard output, skipped: {"hostname":"fake","level":30,"msg":"calling echo"`)
	}) {
		t.Errorf("the log line is not told:\n%s", strings.Join(notes, "\n"))
	}
}

// TestServerThatClosesItsInput: a server that answers its start and then
// closes its input breaks the pipe kesoku's next message goes to, and the
// SDK closes the connection before the program's exit is seen: the error
// still says how it exited, with its standard error, not the SDK's
// broken pipe.
func TestServerThatClosesItsInput(t *testing.T) {
	t.Parallel()
	script := `read -r line; id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/'); exec 0<&-; echo boom >&2; ` +
		`printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"d","version":"1"}}}\n' "$id"; ` +
		`trap '' PIPE; while echo x; do :; done; exit 1`
	set := setOf(t, context.Background(), Options{Grace: 200 * time.Millisecond}, "mcpServers:\n  dying:\n    command: sh\n    args: [-c, '"+strings.ReplaceAll(script, "'", "''")+"']\n")
	_, err := call(t, set, "dying__x", map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "the server exited with status 1; standard error: boom") {
		t.Errorf("a server that closed its input: %v", err)
	}
}

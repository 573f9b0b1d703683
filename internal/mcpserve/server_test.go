package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/runner"
	_ "github.com/kesoku/kesoku/internal/tools" // the built-in tools, in registry.Default
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/internal/workspace"
)

// testTools are the built-in tools and a few made to misbehave on demand.
// block waits for its context, telling started when it runs; stubborn
// ignores its context until release is closed.
type testTools struct {
	reg     *toolset.Set
	started chan string
	release chan struct{}
}

func newTestTools(t *testing.T) *testTools {
	t.Helper()
	tt := &testTools{reg: toolset.New(), started: make(chan string, 16), release: make(chan struct{})}
	for _, s := range registry.Default.All() {
		tt.reg.MustRegister(toolset.FromSpec(s))
	}
	str := func(name string) *toolspec.Property {
		return &toolspec.Property{Name: name, Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeString}}
	}
	for _, s := range []*toolset.Tool{
		{Name: "block", Description: "Waits until cancelled.", Params: []*toolspec.Property{str("tag")},
			Call: func(ctx context.Context, _ *registry.ToolContext, args map[string]any) (any, error) {
				tt.started <- args["tag"].(string)
				<-ctx.Done()
				return nil, ctx.Err()
			}},
		{Name: "stubborn", Description: "Ignores cancellation.",
			Call: func(ctx context.Context, _ *registry.ToolContext, _ map[string]any) (any, error) {
				tt.started <- "stubborn"
				<-tt.release
				return "done at last", nil
			}},
		{Name: "big", Description: "Returns a long text.",
			Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				return strings.Repeat("ab", 5000), nil
			}},
		{Name: "object", Description: "Returns an object.",
			Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				return map[string]any{"answer": 42, "html": "<b>"}, nil
			}},
		{Name: "panics", Description: "Panics.",
			Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				panic("boom")
			}},
	} {
		tt.reg.MustRegister(s)
	}
	t.Cleanup(func() {
		select {
		case <-tt.release:
		default:
			close(tt.release)
		}
	})
	return tt
}

// memStore keeps the records a server hands it.
type memStore struct {
	mu   sync.Mutex
	recs []*message.Record
	err  error
}

func (m *memStore) Append(_ context.Context, recs ...*message.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.err != nil {
		return m.err
	}
	m.recs = append(m.recs, recs...)
	return nil
}

func (m *memStore) all() []*message.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.recs)
}

func testOptions(t *testing.T) Options {
	awd := t.TempDir()
	return Options{
		Version: "test",
		Runner: runner.Options{
			Jobs: 4, Grace: time.Minute, MaxOutput: 1 << 20, AWD: awd,
			OutputDir: filepath.Join(awd, ".kesoku", "outputs"),
		},
	}
}

// served is a server serving one in-memory client.
type served struct {
	cs     *mcp.ClientSession
	stop   context.CancelFunc // the interrupt
	result chan error         // what Serve returned
}

func serve(t *testing.T, s *Server) *served {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx, stop := context.WithCancel(context.Background())
	sv := &served{stop: stop, result: make(chan error, 1)}
	go func() { sv.result <- s.Serve(ctx, st) }()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	sv.cs = cs
	t.Cleanup(func() {
		cs.Close()
		stop()
	})
	return sv
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: protocol error %v", name, err)
	}
	return res
}

// callAsync calls the tool in a goroutine of its own; the result comes on
// the channel (nil for a protocol error, which fails the test).
func callAsync(t *testing.T, cs *mcp.ClientSession, name string, args any) <-chan *mcp.CallToolResult {
	t.Helper()
	ch := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Errorf("call %s: protocol error %v", name, err)
		}
		ch <- res
	}()
	return ch
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content %d blocks, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T, want text", res.Content[0])
	}
	return tc.Text
}

// The tools listed are the registry's, each with its canonical schema as
// it is, the schema of its result where it has one, and a hint that says
// whether it only reads.
func TestListTools(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	sv := serve(t, New(tt.reg, testOptions(t)))
	res, err := sv.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		spec, ok := tt.reg.Lookup(tool.Name)
		if !ok {
			t.Fatalf("listed %q, which the registry has not", tool.Name)
		}
		if tool.Description != spec.Description {
			t.Errorf("%s: description %q, want %q", tool.Name, tool.Description, spec.Description)
		}
		got, _ := json.Marshal(tool.InputSchema)
		var want any
		json.Unmarshal(spec.InputSchema(), &want)
		wantJSON, _ := json.Marshal(want)
		if string(got) != string(wantJSON) {
			t.Errorf("%s: input schema\n%s\nwant\n%s", tool.Name, got, wantJSON)
		}
		got, _ = json.Marshal(tool.OutputSchema)
		wantJSON = []byte("null")
		if out := spec.OutputSchema(); out != nil {
			var want any
			json.Unmarshal(out, &want)
			wantJSON, _ = json.Marshal(want)
		}
		if string(got) != string(wantJSON) {
			t.Errorf("%s: output schema\n%s\nwant\n%s", tool.Name, got, wantJSON)
		}
		if tool.Annotations == nil || tool.Annotations.ReadOnlyHint == spec.Writes {
			t.Errorf("%s: annotations %+v, want readOnlyHint %v", tool.Name, tool.Annotations, !spec.Writes)
		}
	}
	if diff := cmp.Diff(tt.reg.Names(), names); diff != "" {
		t.Errorf("tools mismatch (-want +got):\n%s", diff)
	}
	init := sv.cs.InitializeResult()
	if init.ServerInfo.Name != "kesoku" || init.ServerInfo.Version != "test" {
		t.Errorf("server info %+v", init.ServerInfo)
	}
	if !strings.Contains(init.Instructions, "working directory") {
		t.Errorf("instructions %q say nothing of the working directory", init.Instructions)
	}
}

// A server with no tool offered still answers tools/list, with none.
func TestListNoTools(t *testing.T) {
	t.Parallel()
	sv := serve(t, New(toolset.New(), testOptions(t)))
	res, err := sv.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 0 {
		t.Errorf("tools %v, want none", res.Tools)
	}
}

func TestCallResults(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	sv := serve(t, New(tt.reg, opts))

	// The SDK's client speaks 2026-07-28, which takes any value as
	// structured content: a number comes back as a number.
	res := call(t, sv.cs, "calculate_sum", map[string]any{"a": 1, "b": 2.0})
	if res.IsError || text(t, res) != "3" || res.StructuredContent != 3.0 {
		t.Errorf("calculate_sum: isError %v, text %q, structured %v; want 3", res.IsError, text(t, res), res.StructuredContent)
	}

	res = call(t, sv.cs, "object", nil)
	if res.IsError || text(t, res) != `{"answer":42,"html":"<b>"}` {
		t.Errorf("object: isError %v, text %q", res.IsError, text(t, res))
	}
	if diff := cmp.Diff(map[string]any{"answer": 42.0, "html": "<b>"}, res.StructuredContent); diff != "" {
		t.Errorf("object: structured content mismatch (-want +got):\n%s", diff)
	}

	// A string is its text, not its JSON.
	os.WriteFile(filepath.Join(opts.Runner.AWD, "note.txt"), []byte("hello\n"), 0o644)
	res = call(t, sv.cs, "read_file", map[string]any{"path": "note.txt"})
	if res.IsError || !strings.Contains(text(t, res), "hello") {
		t.Errorf("read_file: isError %v, text %q", res.IsError, text(t, res))
	}
}

// Every failure is a result marked isError whose text says what went
// wrong, never a protocol error: a model reads it and corrects itself.
func TestCallFailures(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	outside := filepath.Join(filepath.Dir(opts.Runner.AWD), "outside.txt")
	sv := serve(t, New(tt.reg, opts))
	for _, tc := range []struct {
		name string
		args any
		want []string
	}{
		{"calculate_sum", map[string]any{"a": "one", "b": 2}, []string{`invalid_args: `, `args.a: wrong type: expected integer`, `got string "one"`}},
		{"calculate_sum", map[string]any{"a": 1}, []string{`invalid_args: `, `args.b: missing required argument: expected integer`}},
		{"calculate_sum", map[string]any{"a": 1, "b": 2, "c": 3}, []string{`invalid_args: `, `args.c: unknown argument: expected one of a, b`}},
		{"calculate_sum", map[string]any{"a": 1.5, "b": 2}, []string{`invalid_args: `, `1.5`}},
		{"calculate_sum", []int{1, 2}, []string{`invalid_request: tool "calculate_sum": the arguments must be a JSON object: got array of 2 items`}},
		{"calculate_sum", "1 and 2", []string{`invalid_request: tool "calculate_sum": the arguments must be a JSON object: got string "1 and 2"`}},
		{"calculate_sum", 12, []string{`invalid_request: tool "calculate_sum": the arguments must be a JSON object: got number 12`}},
		{"read_file", map[string]any{"path": "../outside.txt"}, []string{`invalid_args: `, `outside`}},
		{"read_file", map[string]any{"path": outside}, []string{`invalid_args: `}},
		{"read_file", map[string]any{"path": "missing.txt"}, []string{`tool_error: `, `missing.txt`}},
		{"panics", nil, []string{`panic: `, `boom`}},
	} {
		res := call(t, sv.cs, tc.name, tc.args)
		got := text(t, res)
		if !res.IsError {
			t.Errorf("%s %v: not an error: %q", tc.name, tc.args, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s %v: %q does not say %q", tc.name, tc.args, got, w)
			}
		}
	}
}

// A tool never writes kesoku's own files: the record file among them.
func TestCallProtected(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	out := filepath.Join(opts.Runner.AWD, "records.jsonl")
	opts.Runner.Protected = []workspace.Protected{{Path: out, Why: "it is the file this server writes its records to"}}
	sv := serve(t, New(tt.reg, opts))
	res := call(t, sv.cs, "write_file", map[string]any{"path": "records.jsonl", "content": "x"})
	if !res.IsError || !strings.Contains(text(t, res), "it is the file this server writes its records to") {
		t.Errorf("write_file to the record file: isError %v, %q", res.IsError, text(t, res))
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the record file was written")
	}
}

func TestCallLimits(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	opts.Runner.Timeout = 20 * time.Millisecond
	opts.Runner.MaxOutput = 100
	sv := serve(t, New(tt.reg, opts))

	res := call(t, sv.cs, "sleep", map[string]any{"seconds": 60})
	if !res.IsError || !strings.HasPrefix(text(t, res), "timeout: timed out after 20ms (the timeout for each call)") {
		t.Errorf("sleep past --timeout: isError %v, %q", res.IsError, text(t, res))
	}
	res = call(t, sv.cs, "big", nil)
	got := text(t, res)
	if res.IsError || !strings.Contains(got, "kesoku cut") || len(got) > 400 {
		t.Errorf("big output: isError %v, %d bytes: %q", res.IsError, len(got), got)
	}
	saved, err := filepath.Glob(filepath.Join(opts.Runner.AWD, ".kesoku", "outputs", "*.txt"))
	if err != nil || len(saved) != 1 {
		t.Errorf("saved outputs %v, %v; want the whole output saved once", saved, err)
	}
}

// Each call's record goes to the store as it returns: one session_id per
// client session, parent_ids call_1, call_2, ... in the order of calls.
func TestRecords(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	store := &memStore{}
	opts.Records = store
	s := New(tt.reg, opts)
	a, b := serve(t, s), serve(t, s)
	call(t, a.cs, "calculate_sum", map[string]any{"a": 1, "b": 2})
	call(t, b.cs, "calculate_sum", map[string]any{"a": 1})
	call(t, a.cs, "read_file", map[string]any{"path": "../x"})
	// A tool that is not offered: the client is answered with the
	// protocol's error, and the call has its record all the same.
	if _, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_fil", Arguments: map[string]any{}}); err == nil {
		t.Errorf("a call of read_fil succeeded")
	}

	recs := store.all()
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	if m := recs[3].Error; m == nil || !strings.HasPrefix(m.Message, `unknown tool "read_fil"; did you mean "read_file"?`) {
		t.Errorf("the unknown tool's record says %+v", m)
	}
	type rec struct{ Parent, Name, Content, Kind string }
	var got []rec
	for _, r := range recs {
		k := ""
		if r.Error != nil {
			k = string(r.Error.Kind)
		}
		got = append(got, rec{r.ParentID, r.Name, string(r.Content), k})
		if r.Role != message.RoleTool || r.Type != message.TypeToolResult || r.ID == "" || r.SessionID == "" {
			t.Errorf("record %+v is not a tool result", r)
		}
	}
	want := []rec{{"call_1", "calculate_sum", "3", ""}, {"call_1", "calculate_sum", "", "invalid_args"}, {"call_2", "read_file", "", "invalid_args"},
		{"call_3", "read_fil", "", "unknown_tool"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s", diff)
	}
	if recs[0].SessionID != recs[2].SessionID || recs[0].SessionID != recs[3].SessionID || recs[0].SessionID == recs[1].SessionID {
		t.Errorf("session ids %s %s %s: want one per client session", recs[0].SessionID, recs[1].SessionID, recs[2].SessionID)
	}
}

// A record that cannot be written stops the server with the error.
func TestRecordFailureStops(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	opts.Records = &memStore{err: errors.New("disk full")}
	sv := serve(t, New(tt.reg, opts))
	call(t, sv.cs, "calculate_sum", map[string]any{"a": 1, "b": 2})
	if err := await(t, sv.result); err == nil || !strings.Contains(err.Error(), "write record: disk full") {
		t.Errorf("Serve returned %v, want the write error", err)
	}
}

// A client's cancellation (notifications/cancelled) cancels the call's
// context: the tool returns, and the record says aborted.
func TestClientCancels(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	store := &memStore{}
	opts.Records = store
	sv := serve(t, New(tt.reg, opts))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := sv.cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{"tag": "x"}})
		done <- err
	}()
	await(t, tt.started)
	cancel()
	if err := await(t, done); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call returned %v", err)
	}
	recs := waitRecords(t, store, 1)
	if r := recs[0]; r.Status != message.StatusAborted || r.Error == nil || r.Error.Kind != message.KindAborted {
		t.Errorf("record of the cancelled call: %+v", r)
	}
	// The session goes on.
	if res := call(t, sv.cs, "calculate_sum", map[string]any{"a": 1, "b": 2}); text(t, res) != "3" {
		t.Errorf("after a cancel: %q", text(t, res))
	}
}

// await receives from ch, failing the test when nothing comes: a server
// that never answers fails here rather than hanging the test binary.
func await[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(20 * time.Second):
		t.Fatal("nothing came after 20s")
		panic("unreachable")
	}
}

// waitRecords waits until store holds n records.
func waitRecords(t *testing.T, store *memStore, n int) []*message.Record {
	t.Helper()
	for range 2000 {
		if recs := store.all(); len(recs) >= n {
			return recs
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%d records after 10s, want %d", len(store.all()), n)
	return nil
}

// An interrupt stops the server cleanly: the call in flight is cancelled,
// returns within the grace, and its client still reads its result before
// the stream closes; Serve returns nil.
func TestInterrupt(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	store := &memStore{}
	opts.Records = store
	sv := serve(t, New(tt.reg, opts))
	res := callAsync(t, sv.cs, "block", map[string]any{"tag": "x"})
	await(t, tt.started)
	sv.stop()
	r := await(t, res)
	if !r.IsError || !strings.HasPrefix(text(t, r), "aborted: interrupted while running") {
		t.Errorf("the call in flight: isError %v, %q", r.IsError, text(t, r))
	}
	if err := await(t, sv.result); err != nil {
		t.Errorf("Serve returned %v after an interrupt", err)
	}
	if recs := store.all(); len(recs) != 1 || recs[0].Status != message.StatusAborted {
		t.Errorf("records %v, want one aborted", recs)
	}
}

// A tool that ignores its cancellation is given up on when the grace
// ends, and the client is told.
func TestInterruptGrace(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	opts.Runner.Grace = 10 * time.Millisecond
	sv := serve(t, New(tt.reg, opts))
	res := callAsync(t, sv.cs, "stubborn", nil)
	await(t, tt.started)
	sv.stop()
	r := await(t, res)
	if !r.IsError || !strings.Contains(text(t, r), "did not return within the 10ms grace") {
		t.Errorf("the stubborn call: isError %v, %q", r.IsError, text(t, r))
	}
	if err := await(t, sv.result); err != nil {
		t.Errorf("Serve returned %v", err)
	}
}

// A second interrupt ends the grace at once, however long it is.
func TestSecondInterrupt(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	opts.Runner.Grace = time.Hour
	endGrace := make(chan struct{})
	opts.Runner.EndGrace = endGrace
	sv := serve(t, New(tt.reg, opts))
	res := callAsync(t, sv.cs, "stubborn", nil)
	await(t, tt.started)
	sv.stop()
	close(endGrace)
	r := await(t, res)
	if !r.IsError || !strings.Contains(text(t, r), "aborted: ") {
		t.Errorf("the stubborn call: isError %v, %q", r.IsError, text(t, r))
	}
	if err := await(t, sv.result); err != nil {
		t.Errorf("Serve returned %v", err)
	}
}

// Calls that come once the server is stopping are answered as aborted and
// never run.
func TestCallWhileStopping(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	opts.Runner.Grace = time.Hour
	endGrace := make(chan struct{})
	opts.Runner.EndGrace = endGrace
	s := New(tt.reg, opts)
	sv := serve(t, s)
	res := callAsync(t, sv.cs, "stubborn", nil)
	await(t, tt.started)
	sv.stop()
	<-s.stopCtx.Done()
	r := call(t, sv.cs, "calculate_sum", map[string]any{"a": 1, "b": 2})
	if !r.IsError || text(t, r) != "aborted: interrupted before it started" {
		t.Errorf("a call while stopping: isError %v, %q", r.IsError, text(t, r))
	}
	close(endGrace)
	await(t, res)
	await(t, sv.result)
}

// --jobs bounds the calls running at once across clients; the others
// wait for a free slot, and a cancelled one stops waiting.
func TestJobs(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	opts.Runner.Jobs = 1
	s := New(tt.reg, opts)
	a, b := serve(t, s), serve(t, s)
	first := make(chan *mcp.CallToolResult, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		r, _ := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{"tag": "first"}})
		first <- r
	}()
	if got := await(t, tt.started); got != "first" {
		t.Fatalf("started %q", got)
	}
	second := callAsync(t, b.cs, "block", map[string]any{"tag": "second"})
	// The second waits for the first's slot: cancelling the first lets it
	// start.
	select {
	case got := <-tt.started:
		t.Fatalf("%q started while the only slot was taken", got)
	case <-time.After(50 * time.Millisecond):
	}
	cancel()
	if got := await(t, tt.started); got != "second" {
		t.Fatalf("started %q", got)
	}
	b.stop()
	await(t, second)
}

// A client that goes away with a call in flight (its end of the stream
// closed, as when the process that started kesoku dies) has the call
// cancelled and recorded; Serve returns nil, as for any end of a session.
func TestClientGoesAway(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	store := &memStore{}
	opts.Records = store
	s := New(tt.reg, opts)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	result := make(chan error, 1)
	go func() { result <- s.Serve(context.Background(), &mcp.IOTransport{Reader: inR, Writer: outW}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	go cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: map[string]any{"tag": "x"}})
	await(t, tt.started)
	inW.Close()
	outR.Close()
	if err := await(t, result); err != nil {
		t.Errorf("Serve returned %v when the client went away", err)
	}
	if recs := store.all(); len(recs) != 1 || recs[0].Status != message.StatusAborted {
		t.Errorf("records %+v, want the call aborted", recs)
	}
}

// A call of a tool that is not offered is the protocol's invalid params
// error, saying what was meant: the tool that was likely meant, that a
// tool exists but is not offered, and the tools that are.
func TestUnknownTool(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	offered := toolset.New()
	for _, spec := range tt.reg.All() {
		if spec.Name != "write_file" {
			offered.MustRegister(spec)
		}
	}
	opts := testOptions(t)
	opts.Withheld = []string{"write_file"}
	sv := serve(t, New(offered, opts))
	for _, tc := range []struct{ name, want string }{
		{"read_fil", `unknown tool "read_fil"; did you mean "read_file"? The tools offered: big, block, calculate_sum, `},
		{"write_file", `tool "write_file" is not offered by this server; the tools offered: big, `},
		{"write_fil", `unknown tool "write_fil"; did you mean "write_file"? It is not offered by this server. The tools offered: `},
		{"frobnicate", `unknown tool "frobnicate"; the tools offered: big, `},
		{"", `unknown tool ""; the tools offered: `},
	} {
		_, err := sv.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.name, Arguments: map[string]any{}})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("call %q: %v, want an invalid params error", tc.name, err)
			continue
		}
		if !strings.HasPrefix(je.Message, tc.want) {
			t.Errorf("call %q: %q, want it to start %q", tc.name, je.Message, tc.want)
		}
	}
	if res := call(t, sv.cs, "calculate_sum", map[string]any{"a": 1, "b": 2}); text(t, res) != "3" {
		t.Errorf("an offered tool after unknown ones: %q", text(t, res))
	}

	// The caller words the error, in either revision over HTTP.
	opts.Word = func(err error) string {
		var ute *UnknownToolError
		if errors.As(err, &ute) && ute.Withheld != "" {
			return err.Error() + ". Offered with --tools " + ute.Withheld
		}
		return err.Error()
	}
	srv := httptest.NewServer(New(offered, opts).Handler(""))
	t.Cleanup(srv.Close)
	for _, version := range []string{modern, legacy} {
		c := newRawClient(t, srv.URL+Path, version)
		if version < modern {
			c.mustInitialize()
		}
		resp, err := c.callTool(context.Background(), "write_file", map[string]any{"path": "x", "content": "y"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.err == nil || resp.err.Code != jsonrpc.CodeInvalidParams || !strings.HasSuffix(resp.err.Message, ". Offered with --tools write_file") {
			t.Errorf("%s: write_file: status %d, %v", version, resp.status, resp.err)
		}
	}
}

func TestUnknownToolError(t *testing.T) {
	t.Parallel()
	many := make([]string, maxListed+5)
	for i := range many {
		many[i] = fmt.Sprintf("t%02d", i)
	}
	for _, tc := range []struct {
		err  UnknownToolError
		want string
	}{
		{UnknownToolError{Name: "x"}, `unknown tool "x"; no tool is offered`},
		{UnknownToolError{Name: "write_file", Withheld: "write_file"}, `tool "write_file" is not offered by this server; no tool is offered`},
		{UnknownToolError{Name: "write_fil", Suggestion: "write_file", Withheld: "write_file"}, `unknown tool "write_fil"; did you mean "write_file"? It is not offered by this server. No tool is offered.`},
		{UnknownToolError{Name: "t1", Suggestion: "t01", Offered: []string{"t01", "t02"}}, `unknown tool "t1"; did you mean "t01"? The tools offered: t01, t02`},
		{UnknownToolError{Name: "x", Offered: many}, `unknown tool "x"; the tools offered: t00, t01, `},
	} {
		if got := tc.err.Error(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%+v: %q, want %q", tc.err, got, tc.want)
		}
	}
	e := UnknownToolError{Name: "x", Offered: many}
	if got := e.Error(); !strings.HasSuffix(got, fmt.Sprintf("t%02d and 5 more", maxListed-1)) {
		t.Errorf("many tools: %q", got)
	}
}

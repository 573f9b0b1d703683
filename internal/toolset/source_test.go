package toolset

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/registry"
)

// countingSource is a Source that counts its loads.
type countingSource struct {
	prefix string
	specs  []*Tool
	err    error
	loads  atomic.Int32
}

func (s *countingSource) Prefix() string { return s.prefix }

func (s *countingSource) Load() ([]*Tool, error) {
	s.loads.Add(1)
	return s.specs, s.err
}

func noop(context.Context, *registry.ToolContext, map[string]any) (any, error) { return "ok", nil }

func TestSourceLoadedWhenNeeded(t *testing.T) {
	t.Parallel()
	r := New()
	r.MustRegister(&Tool{Name: "calculate_sum", Call: noop})
	fs := &countingSource{prefix: "fs__", specs: []*Tool{{Name: "fs__read", Call: noop}}}
	other := &countingSource{prefix: "web__", specs: []*Tool{{Name: "web__get", Call: noop}}}
	for _, s := range []Source{fs, other} {
		if err := r.AddSource(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := r.Lookup("calculate_sum"); !ok {
		t.Fatal("calculate_sum not found")
	}
	if n := fs.loads.Load() + other.loads.Load(); n != 0 {
		t.Fatalf("a Go tool's lookup loaded %d sources", n)
	}
	err := r.UnknownTool("calc").Error()
	if strings.Contains(err, "fs__") || fs.loads.Load() != 0 {
		t.Errorf("an unknown name started a source: %s", err)
	}
	if _, ok := r.Lookup("fs__read"); !ok {
		t.Fatal("fs__read not found")
	}
	if _, ok := r.Lookup("fs__nope"); ok {
		t.Error("fs__nope found")
	}
	if fs.loads.Load() != 1 || other.loads.Load() != 0 {
		t.Errorf("loads: fs %d, web %d; want 1, 0", fs.loads.Load(), other.loads.Load())
	}
	if diff := cmp.Diff([]string{"calculate_sum", "fs__read", "web__get"}, r.Names()); diff != "" {
		t.Errorf("Names mismatch (-want +got):\n%s", diff)
	}
	if fs.loads.Load() != 1 || other.loads.Load() != 1 {
		t.Errorf("loads after Names: fs %d, web %d; want 1, 1", fs.loads.Load(), other.loads.Load())
	}
}

func TestSourceFailed(t *testing.T) {
	t.Parallel()
	r := New()
	r.MustRegister(&Tool{Name: "x__clash", Call: noop, Source: "tools.go:1"})
	boom := errors.New("mcp server x: exec: not found")
	bad := &countingSource{prefix: "x__", err: boom, specs: []*Tool{{Name: "x__clash", Call: noop}, {Name: "y__out", Call: noop}}}
	if err := r.AddSource(bad); err != nil {
		t.Fatal(err)
	}
	s, ok := r.Lookup("x__anything")
	if !ok {
		t.Fatal("a tool of a failed source is not found: its requests would say unknown_tool")
	}
	if err := s.Validate(map[string]any{"whatever": 1}); err != nil {
		t.Errorf("Validate: %v; want nil: the arguments cannot be known", err)
	}
	if _, err := s.Call(context.Background(), nil, nil); !errors.Is(err, boom) {
		t.Errorf("Call: %v; want %v", err, boom)
	}
	if _, err := r.Select([]string{"x__anything"}); !errors.Is(err, boom) {
		t.Errorf("Select: %v; want %v: a tool whose declaration is unknown cannot be offered", err, boom)
	}
	err := r.Load()
	for _, want := range []string{boom.Error(), `"x__clash" already registered at tools.go:1`, `"y__out"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load: %v; want it to say %s", err, want)
		}
	}
	if bad.loads.Load() != 1 {
		t.Errorf("loaded %d times, want once", bad.loads.Load())
	}
}

func TestAddSourceOverlap(t *testing.T) {
	t.Parallel()
	r := New()
	if err := r.AddSource(&countingSource{prefix: "a__"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a__", "a__b__", "a_", ""} {
		if err := r.AddSource(&countingSource{prefix: p}); err == nil {
			t.Errorf("AddSource(%q): no error", p)
		}
	}
	if err := r.AddSource(&countingSource{prefix: "ab__"}); err != nil {
		t.Errorf("AddSource(ab__): %v", err)
	}
}

func TestRawSchema(t *testing.T) {
	t.Parallel()
	raw := json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)
	checked := 0
	s := &Tool{Name: "fs__find", Description: "Finds.", RawSchema: raw, Call: noop,
		Params: []*toolspec.Property{{Name: "q", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeString}}},
		Check:  func(map[string]any) error { checked++; return nil }}
	if got := string(s.InputSchema()); got != string(raw) {
		t.Errorf("InputSchema = %s, want the raw schema", got)
	}
	if err := s.Validate(map[string]any{"unknown": true}); err != nil || checked != 1 {
		t.Errorf("Validate = %v after %d checks; want Check alone to decide", err, checked)
	}
	want := `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"fs__find","description":"Finds.","type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`
	if got := string(s.JSONSchema()); got != want {
		t.Errorf("JSONSchema =\n%s\nwant\n%s", got, want)
	}
	s.RawSchema = json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","title":"Find","description":"Its own."}`)
	want = `{"$schema":"http://json-schema.org/draft-07/schema#","title":"Find","description":"Its own."}`
	if got := string(s.JSONSchema()); got != want {
		t.Errorf("JSONSchema keeps what the schema says =\n%s\nwant\n%s", got, want)
	}
	s.RawSchema, s.Description = json.RawMessage(`{ }`), ""
	want = `{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"fs__find"}`
	if got := string(s.JSONSchema()); got != want || !json.Valid([]byte(got)) {
		t.Errorf("JSONSchema of an empty object =\n%s\nwant\n%s", got, want)
	}
}

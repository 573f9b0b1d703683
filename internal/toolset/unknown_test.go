package toolset

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/registry"
)

func TestUnknownToolMessage(t *testing.T) {
	t.Parallel()
	r := New()
	call := func(context.Context, *registry.ToolContext, map[string]any) (any, error) { return nil, nil }
	r.MustRegister(&Tool{Name: "calculate_sum", Call: call})
	for name, want := range map[string]string{
		"calculate_summ": `unknown tool "calculate_summ"; did you mean "calculate_sum"? known tools: calculate_sum`,
		"nope":           `unknown tool "nope"; known tools: calculate_sum`,
	} {
		if got := r.UnknownTool(name).Error(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestRawOutputSchema passes a schema given as it is.
func TestRawOutputSchema(t *testing.T) {
	t.Parallel()
	s := &Tool{Name: "x", RawOutputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}}}`)}
	if got := string(s.OutputSchema()); got != string(s.RawOutputSchema) {
		t.Errorf("OutputSchema = %s", got)
	}
	if (&Tool{Name: "y"}).OutputSchema() != nil {
		t.Error("a spec without a result has an output schema")
	}
}

// TestUnknownToolHint says, in a program of one's own without a tool of
// its own, that its generated files are missing, and nowhere else.
func TestUnknownToolHint(t *testing.T) {
	r := New()
	r.MustRegister(&Tool{Name: "calculate_sum", Package: "github.com/kesoku/kesoku/internal/tools", Call: noop})
	defer func(f func() (string, string)) { mainModule = f }(mainModule)
	for _, tt := range []struct {
		mod, pkg string
		want     string
	}{
		{"example.com/mytools", "example.com/mytools", `unknown tool "greet"; known tools: calculate_sum; example.com/mytools has no tools of its own: the functions marked //kesoku:tool in its packages are registered by the kesoku_gen.go files that "go run . gen ./..." writes beside them, and none was built in`},
		{"example.com/m", "example.com/m/cmd/m", `"go run example.com/m/cmd/m gen ./..."`},
		{"github.com/kesoku/kesoku", "github.com/kesoku/kesoku", `unknown tool "greet"; known tools: calculate_sum`},
		{"", "", `unknown tool "greet"; known tools: calculate_sum`},
	} {
		mainModule = func() (string, string) { return tt.mod, tt.pkg }
		if got := r.UnknownTool("greet").Error(); !strings.Contains(got, tt.want) || tt.mod == "github.com/kesoku/kesoku" && got != tt.want {
			t.Errorf("module %q: got %q, want %q", tt.mod, got, tt.want)
		}
	}
	// A program with a tool of its own, generated or typed, gets no hint.
	mainModule = func() (string, string) { return "example.com/mytools", "example.com/mytools" }
	r.MustRegister(&Tool{Name: "word_count", Package: "example.com/mytools/tools", Call: noop})
	if got := r.UnknownTool("greet").Error(); strings.Contains(got, "no tools of its own") {
		t.Errorf("got %q", got)
	}
}

// TestSetRegisterRefuses: a set refuses what a registry of Go tools does,
// in the same words.
func TestSetRegisterRefuses(t *testing.T) {
	t.Parallel()
	call := func(context.Context, *registry.ToolContext, map[string]any) (any, error) { return nil, nil }
	s := New()
	s.MustRegister(&Tool{Name: "taken", Source: "x.go:1", Call: call})
	for _, tt := range []struct {
		tool *Tool
		want string
	}{
		{&Tool{Name: "has.dot", Source: "x.go:1", Call: call}, `register x.go:1: tool name "has.dot" does not match ` + `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`},
		{&Tool{Name: "tool", Source: "x.go:2"}, `register x.go:2: tool "tool" has no Call`},
		{&Tool{Name: "taken", Source: "y.go:3", Call: call}, `register y.go:3: tool "taken" already registered at x.go:1`},
	} {
		if err := s.Register(tt.tool); err == nil || err.Error() != tt.want {
			t.Errorf("Register(%q) = %v, want %s", tt.tool.Name, err, tt.want)
		}
	}
	if got := s.Names(); len(got) != 1 || got[0] != "taken" {
		t.Errorf("names after the refusals: %q", got)
	}
}

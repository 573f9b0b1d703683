package toolspec

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
)

// ToolContext stands in for registry.ToolContext, which this package
// cannot name.
type ToolContext struct{}

// testSpec is a Spec with the methods of the tool that kesoku runs
// (toolset.Tool), for the tests to call.
type testSpec Spec[ToolContext]

func (s *testSpec) Validate(args map[string]any) error { return Validate(s.Name, s.Params, args) }
func (s *testSpec) InputSchema() json.RawMessage       { return InputSchema(s.Params) }
func (s *testSpec) OutputSchema() json.RawMessage      { return OutputSchema(s.Result) }

// testRegistry is a Registry of testSpecs.
type testRegistry struct{ *Registry[ToolContext] }

func New() *testRegistry { return &testRegistry{NewRegistry[ToolContext]()} }

func (r *testRegistry) Register(s *testSpec) error {
	return r.Registry.Register((*Spec[ToolContext])(s))
}

func (r *testRegistry) MustRegister(s *testSpec) { r.Registry.MustRegister((*Spec[ToolContext])(s)) }

func (r *testRegistry) Lookup(name string) (*testSpec, bool) {
	s, ok := r.Registry.Lookup(name)
	return (*testSpec)(s), ok
}

// Add is registry.Add, over a testRegistry.
func Add[In, Out any](r *testRegistry, name, description string, fn func(ctx context.Context, tc *ToolContext, in In) (Out, error)) error {
	_, file, line, _ := runtime.Caller(1)
	s, err := Typed(name, description, fn, fmt.Sprintf("%s:%d", filepath.Base(file), line), "github.com/kesoku/kesoku/internal/toolspec")
	if err != nil {
		return err
	}
	return r.Registry.Register(s)
}

func (r *testRegistry) Names() []string {
	var names []string
	for _, s := range r.All() {
		names = append(names, s.Name)
	}
	return names
}

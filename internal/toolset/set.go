package toolset

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/registry"
)

// Set holds tools by name, and the sources of tools it loads when they
// are needed (the tools of MCP servers).
type Set struct {
	mu      sync.RWMutex
	tools   map[string]*Tool
	sources []*source
}

// New returns an empty set.
func New() *Set { return &Set{tools: make(map[string]*Tool)} }

// Of returns a set of the Go tools of r.
func Of(r *registry.Registry) *Set {
	s := New()
	for _, spec := range r.All() {
		s.tools[spec.Name] = FromSpec(spec)
	}
	return s
}

// Register adds a tool. A bad name or a name already taken is an error.
func (s *Set) Register(t *Tool) error {
	if err := toolspec.CheckRegister(t.Name, t.Source, t.Call != nil); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.tools[t.Name]; ok {
		return toolspec.TakenError(t.Name, t.Source, prev.Source)
	}
	s.tools[t.Name] = t
	return nil
}

// MustRegister is Register where an error is a programming mistake.
func (s *Set) MustRegister(t *Tool) {
	if err := s.Register(t); err != nil {
		panic(err)
	}
}

// Lookup returns the tool called name, loading the source whose prefix
// begins it when it is not registered yet.
func (s *Set) Lookup(name string) (*Tool, bool) {
	s.mu.RLock()
	t, ok := s.tools[name]
	hasSources := len(s.sources) > 0
	s.mu.RUnlock()
	if ok || !hasSources {
		return t, ok
	}
	return s.lookupSource(name)
}

// All returns every tool, sorted by name, loading every source first;
// the tools of a source that failed are left out (Load says why).
func (s *Set) All() []*Tool {
	_ = s.Load() // what failed is for the callers of Load to say
	s.mu.RLock()
	out := make([]*Tool, 0, len(s.tools))
	for _, t := range s.tools {
		out = append(out, t)
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Names returns every tool name, sorted.
func (s *Set) Names() []string {
	all := s.All()
	names := make([]string, len(all))
	for i, t := range all {
		names[i] = t.Name
	}
	return names
}

// Select returns the tools named, in the order named, or an error naming
// the first unknown one with a suggestion, or saying why the source of a
// tool named could not give it (a server that did not start): a tool
// selected is one whose declaration is known.
func (s *Set) Select(names []string) ([]*Tool, error) {
	out := make([]*Tool, 0, len(names))
	for _, n := range names {
		t, ok := s.Lookup(n)
		if !ok {
			return nil, s.UnknownTool(n)
		}
		if err := s.failed(n); err != nil {
			return nil, fmt.Errorf("tool %q: %w", n, err)
		}
		out = append(out, t)
	}
	return out, nil
}

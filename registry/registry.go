package registry

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// NamePattern is the tool name rule every provider accepts at once (the
// names Gemini, Claude and OpenAI all allow), as messages quote it.
const NamePattern = `^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`

// ValidName reports whether name matches NamePattern. It is written out
// rather than compiled from the pattern: every tool's registration runs it
// at start-up, and the compiled pattern cost more than all of them.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && (c == '-' || '0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}

// Registry holds tools by name, and the sources of tools it loads when
// they are needed (the tools of MCP servers, which kesoku adds).
type Registry struct {
	mu      sync.RWMutex
	specs   map[string]*Spec
	sources []*source
}

// New returns an empty registry.
func New() *Registry { return &Registry{specs: make(map[string]*Spec)} }

// Default is the central registry, the one generated code fills at init;
// it is read-only after.
var Default = New()

// Register adds a tool. A bad name or a name already taken is an error:
// kesoku gen refuses both, so at run time they mean hand-written code
// registered something wrong.
func (r *Registry) Register(s *Spec) error {
	if !ValidName(s.Name) {
		return fmt.Errorf("register %s: tool name %q does not match %s", s.Source, s.Name, NamePattern)
	}
	if s.Call == nil {
		return fmt.Errorf("register %s: tool %q has no Call", s.Source, s.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.specs[s.Name]; ok {
		return fmt.Errorf("register %s: tool %q already registered at %s", s.Source, s.Name, prev.Source)
	}
	r.specs[s.Name] = s
	return nil
}

// MustRegister is Register for generated init code, where an error is a
// programming mistake that must stop the program at start-up.
func (r *Registry) MustRegister(s *Spec) {
	if err := r.Register(s); err != nil {
		panic(err)
	}
}

// Lookup returns the tool called name, loading the source whose prefix
// begins it when it is not registered yet.
func (r *Registry) Lookup(name string) (*Spec, bool) {
	r.mu.RLock()
	s, ok := r.specs[name]
	hasSources := len(r.sources) > 0
	r.mu.RUnlock()
	if ok || !hasSources {
		return s, ok
	}
	return r.lookupSource(name)
}

// All returns every tool, sorted by name, loading every source first;
// the tools of a source that failed are left out (kesoku's commands say why).
func (r *Registry) All() []*Spec {
	_ = r.loadAll() // what failed is for the callers of Load to say
	r.mu.RLock()
	out := make([]*Spec, 0, len(r.specs))
	for _, s := range r.specs {
		out = append(out, s)
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Spec) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Names returns every tool name, sorted.
func (r *Registry) Names() []string {
	all := r.All()
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.Name
	}
	return names
}

// Select returns the tools named, in the order named, or an error naming
// the first unknown one with a suggestion, or saying why the source of a
// tool named could not give it (a server that did not start): a tool
// selected is one whose declaration is known.
func (r *Registry) Select(names []string) ([]*Spec, error) {
	out := make([]*Spec, 0, len(names))
	for _, n := range names {
		s, ok := r.Lookup(n)
		if !ok {
			return nil, r.UnknownTool(n)
		}
		if err := r.failed(n); err != nil {
			return nil, fmt.Errorf("tool %q: %w", n, err)
		}
		out = append(out, s)
	}
	return out, nil
}

package registry

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/kesoku/kesoku/internal/registrysource"
)

// toolSource is a set of tools that costs something to list, such as the
// tools of an MCP server: kesoku's own packages add them through
// internal/registrysource, which this package hands its functions to.
type toolSource = registrysource.Source[Spec]

func init() { registrysource.Provide((*Registry).addSource, (*Registry).loadAll) }

// source is a toolSource and what loading it gave.
type source struct {
	toolSource
	prefix string
	once   sync.Once
	err    error
	loaded bool
}

// addSource adds a source of tools, loaded when first needed. Its prefix
// must not begin another source's prefix, or begin with one, so that every
// name belongs to one source at most.
func (r *Registry) addSource(s toolSource) error {
	p := s.Prefix()
	if p == "" {
		return errors.New("add source: empty prefix")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, o := range r.sources {
		if strings.HasPrefix(p, o.prefix) || strings.HasPrefix(o.prefix, p) {
			return fmt.Errorf("add source: prefix %q overlaps %q", p, o.prefix)
		}
	}
	r.sources = append(r.sources, &source{toolSource: s, prefix: p})
	return nil
}

// load loads src once: its tools are registered, and what went wrong is
// kept for loadAll and for the calls of its tools.
func (r *Registry) load(src *source) {
	src.once.Do(func() {
		specs, err := src.Load()
		var errs []error
		if err != nil {
			errs = append(errs, err)
		}
		for _, s := range specs {
			if !strings.HasPrefix(s.Name, src.prefix) {
				errs = append(errs, fmt.Errorf("tool %q (%s): its name does not begin with %q", s.Name, s.Source, src.prefix))
				continue
			}
			if err := r.Register(s); err != nil {
				errs = append(errs, err)
			}
		}
		r.mu.Lock()
		src.err, src.loaded = errors.Join(errs...), true
		r.mu.Unlock()
	})
}

// sourceOf returns the source whose prefix begins name, nil when none.
func (r *Registry) sourceOf(name string) *source {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, s := range r.sources {
		if strings.HasPrefix(name, s.prefix) {
			return s
		}
	}
	return nil
}

// loadAll loads every source not loaded yet and returns what went wrong
// in any of them, joined: the tools of a source that failed are missing
// from All. A command that lists tools calls it to say why.
func (r *Registry) loadAll() error {
	r.mu.RLock()
	srcs := append([]*source(nil), r.sources...)
	r.mu.RUnlock()
	var wg sync.WaitGroup
	for _, s := range srcs {
		// Sources start at once: each may take seconds (a server that
		// downloads itself), and they do not depend on each other.
		wg.Go(func() { r.load(s) })
	}
	wg.Wait()
	var errs []error
	for _, s := range srcs {
		if s.err != nil {
			errs = append(errs, s.err)
		}
	}
	return errors.Join(errs...)
}

// lookupSource looks name up in the source its prefix names, loading it.
// When the source failed to load, the tool is one whose every call fails
// with that error, whatever its arguments: each request for a tool of a
// server that could not start gets a record saying what happened, rather
// than unknown_tool.
func (r *Registry) lookupSource(name string) (*Spec, bool) {
	src := r.sourceOf(name)
	if src == nil {
		return nil, false
	}
	r.load(src)
	r.mu.RLock()
	s, ok := r.specs[name]
	r.mu.RUnlock()
	if ok || src.err == nil {
		return s, ok
	}
	err := src.err
	return &Spec{
		Name:        name,
		Summary:     "A tool of a source that failed: " + err.Error(),
		Description: "A tool of a source that failed: " + err.Error(),
		Source:      src.prefix + "*",
		Check:       func(map[string]any) error { return nil },
		Call: func(context.Context, *ToolContext, map[string]any) (any, error) {
			return nil, err
		},
	}, true
}

// loadedNames are the names of the tools registered so far, sources not
// yet loaded left out: an unknown name's message lists them without
// starting every server.
func (r *Registry) loadedNames() []string {
	r.mu.RLock()
	out := make([]string, 0, len(r.specs))
	for n := range r.specs {
		out = append(out, n)
	}
	r.mu.RUnlock()
	return out
}

// failed returns why the source of name could not give it, nil when name
// is registered or belongs to no source that failed.
func (r *Registry) failed(name string) error {
	r.mu.RLock()
	_, ok := r.specs[name]
	r.mu.RUnlock()
	if ok {
		return nil
	}
	if src := r.sourceOf(name); src != nil {
		r.mu.RLock()
		defer r.mu.RUnlock()
		return src.err
	}
	return nil
}

package toolset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/kesoku/kesoku/registry"
)

// Source is a set of tools that costs something to list, such as the
// tools of an MCP server, which has to be started and asked. A set loads a
// source only when a command needs its tools: when a name under its prefix
// is looked up, or every tool is listed; it loads each source at most once.
type Source interface {
	// Prefix begins the name of every tool of the source: "fs__".
	Prefix() string
	// Load returns the source's tools, every name beginning with Prefix.
	// An error says why the source has no tools (a server that could not
	// start); tools returned with an error are registered all the same.
	Load() ([]*Tool, error)
}

// source is a Source and what loading it gave.
type source struct {
	Source
	prefix string
	once   sync.Once
	err    error
	loaded bool
}

// AddSource adds a source of tools, loaded when first needed. Its prefix
// must not begin another source's prefix, or begin with one, so that every
// name belongs to one source at most.
func (r *Set) AddSource(s Source) error {
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
	r.sources = append(r.sources, &source{Source: s, prefix: p})
	return nil
}

// load loads src once: its tools are registered, and what went wrong is
// kept for Load and for the calls of its tools.
func (r *Set) load(src *source) {
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
func (r *Set) sourceOf(name string) *source {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, s := range r.sources {
		if strings.HasPrefix(name, s.prefix) {
			return s
		}
	}
	return nil
}

// Load loads every source not loaded yet and returns what went wrong
// in any of them, joined: the tools of a source that failed are missing
// from All. A command that lists tools calls it to say why.
func (r *Set) Load() error {
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
func (r *Set) lookupSource(name string) (*Tool, bool) {
	src := r.sourceOf(name)
	if src == nil {
		return nil, false
	}
	r.load(src)
	r.mu.RLock()
	s, ok := r.tools[name]
	r.mu.RUnlock()
	if ok || src.err == nil {
		return s, ok
	}
	err := src.err
	return &Tool{
		Name:        name,
		Summary:     "A tool of a source that failed: " + err.Error(),
		Description: "A tool of a source that failed: " + err.Error(),
		Source:      src.prefix + "*",
		Check:       func(map[string]any) error { return nil },
		Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
			return nil, err
		},
	}, true
}

// loadedNames are the names of the tools registered so far, sources not
// yet loaded left out: an unknown name's message lists them without
// starting every server.
func (r *Set) loadedNames() []string {
	r.mu.RLock()
	out := make([]string, 0, len(r.tools))
	for n := range r.tools {
		out = append(out, n)
	}
	r.mu.RUnlock()
	return out
}

// failed returns why the source of name could not give it, nil when name
// is registered or belongs to no source that failed.
func (r *Set) failed(name string) error {
	r.mu.RLock()
	_, ok := r.tools[name]
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

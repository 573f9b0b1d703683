// Package registrysource reaches what package registry keeps for kesoku's
// own packages alone.
//
// Those are sources of tools that cost something to list (the
// tools of an MCP server, which has to be started and asked), loaded when a
// command first needs them. A tool author never meets them, so they are no
// part of registry's API: registry hands its functions over at init, and
// toolsource and cmd call them here.
//
// It imports nothing of kesoku's (registry imports it); the types are
// registry's, as type parameters.
package registrysource

import "fmt"

// Source is a set of tools that costs something to list. A registry
// loads a source only when a command needs its tools: when a name under
// its prefix is looked up, or every tool is listed. It loads each source
// at most once. Spec is registry.Spec.
type Source[Spec any] interface {
	// Prefix begins the name of every tool of the source: "fs__".
	Prefix() string
	// Load returns the source's tools, every name beginning with Prefix.
	// An error says why the source has no tools (a server that could not
	// start); tools returned with an error are registered all the same.
	Load() ([]*Spec, error)
}

// What registry handed over: func(*Registry, Source[Spec]) error and
// func(*Registry) error.
var add, load any

// Provide is registry's, at init: how a source is added to a registry,
// and how every source of one is loaded.
func Provide[Registry, Spec any](addSource func(*Registry, Source[Spec]) error, loadAll func(*Registry) error) {
	add, load = addSource, loadAll
}

// Add adds a source of tools to r, loaded when first needed. Its prefix
// must not begin another source's prefix, or begin with one, so that
// every name belongs to one source at most.
func Add[Registry, Spec any](r *Registry, s Source[Spec]) error {
	f, ok := add.(func(*Registry, Source[Spec]) error)
	if !ok {
		panic(fmt.Sprintf("registrysource: no sources of %T provided", r))
	}
	return f(r, s)
}

// Load loads every source of r not loaded yet and returns what went wrong
// in any of them, joined: the tools of a source that failed are missing
// from the registry's list. A command that lists tools calls it to say
// why.
func Load[Registry any](r *Registry) error {
	f, ok := load.(func(*Registry) error)
	if !ok {
		panic(fmt.Sprintf("registrysource: no sources of %T provided", r))
	}
	return f(r)
}

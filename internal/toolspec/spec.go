// Package toolspec is a Go tool as kesoku holds it: its spec, its schemas,
// and its arguments checked and decoded.
//
// Package registry (what a tool author writes with) and registry/genimpl
// (what generated code calls) are its two public faces: it is internal so
// that neither has to export what the other, or kesoku, needs. The canonical
// Schema of a tool's input and output, from which every export format is
// built, is here, and so are the rules by which a call's arguments are
// validated (Validate) and decoded (the Decode functions, and Typed for a
// struct read by reflection), so that a mistake reads the same however the
// tool was declared.
package toolspec

import (
	"context"
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

// Spec is one tool written in Go, as kesoku gen writes it and Add reads it
// from a struct. TC is registry.ToolContext: the type parameter keeps this
// package below registry, whose public types a tool's function names.
type Spec[TC any] struct {
	// Name is the name models call the tool by.
	Name string
	// Summary is the first sentence of the doc comment.
	Summary string
	// Description is the whole description sent to models: the summary and
	// the body, without the Args and Returns sections.
	Description string
	// Returns is the doc comment's Returns section, if any.
	Returns string
	// Params are the tool's parameters in signature order. Injected
	// parameters (context.Context, *ToolContext) are not among them.
	Params []*Property
	// Result is the schema of what the tool returns, when its Go type
	// gives one that is an object: a struct, a map, or a pointer to one.
	// It is nil for any other result (a string, a number, a list), which
	// has no output schema.
	Result *Schema
	// Writes marks a tool that changes files or the outside world; sessions
	// offer such tools only when they are named.
	Writes bool
	// Source is where the tool was declared, for messages: the file:line
	// of the Go function.
	Source string
	// Package is the import path of the Go package that declares the
	// tool ("example.com/mytools/tools"). An unknown tool's error uses it
	// to tell a program without tools of its own, whose generated files
	// are missing.
	Package string
	// Call runs the tool with validated arguments. Generated code
	// implements it by decoding args into the function's typed parameters.
	Call func(ctx context.Context, tc *TC, args map[string]any) (any, error)
	// Precheck, when set, refuses what the tool would refuse as it ran
	// beyond what its parameters say: a path outside the working
	// directory, a number beyond its bounds. It runs after the arguments
	// are validated, with the call's ToolContext, before the tool runs —
	// and where nothing runs (kesoku validate) — so it only looks: it
	// never acts. It returns nil or an error that IsInvalidArgs
	// recognises (InvalidArg). kesoku gen sets it from the function that
	// //kesoku:tool check=FUNC names.
	Precheck func(tc *TC, args map[string]any) error
}

// Registry holds Go tools by name: the ones generated code and Add
// register at init, read-only after.
type Registry[TC any] struct {
	mu    sync.RWMutex
	specs map[string]*Spec[TC]
	// clashes are the generated tools RegisterGenerated turned away.
	clashes []Clash[TC]
	// generated are the tools RegisterGenerated was given, kept or
	// turned away: kesoku gen writes their registrations, not those of
	// Add's typed tools.
	generated map[*Spec[TC]]bool
}

// NewRegistry returns an empty registry.
func NewRegistry[TC any]() *Registry[TC] {
	return &Registry[TC]{specs: make(map[string]*Spec[TC])}
}

// Register adds a tool. A bad name or a name already taken is an error:
// kesoku gen refuses both, so at run time they mean hand-written code
// registered something wrong.
func (r *Registry[TC]) Register(s *Spec[TC]) error {
	if err := CheckRegister(s.Name, s.Source, s.Call != nil); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if prev, ok := r.specs[s.Name]; ok {
		return TakenError(s.Name, s.Source, prev.Source)
	}
	r.specs[s.Name] = s
	return nil
}

// CheckRegister refuses to register a tool called name, declared at
// source, whose name is invalid or that has no Call: for a registry of Go
// tools and a set of every tool alike, in the same words.
func CheckRegister(name, source string, hasCall bool) error {
	if !ValidName(name) {
		return fmt.Errorf("register %s: tool name %q does not match %s", source, name, NamePattern)
	}
	if !hasCall {
		return fmt.Errorf("register %s: tool %q has no Call", source, name)
	}
	return nil
}

// TakenError is the error for a tool called name, declared at source,
// whose name a tool declared at prev already has.
func TakenError(name, source, prev string) error {
	return fmt.Errorf("register %s: tool %q already registered at %s", source, name, prev)
}

// MustRegister is Register for init code, where an error is a programming
// mistake that must stop the program at start-up.
func (r *Registry[TC]) MustRegister(s *Spec[TC]) {
	if err := r.Register(s); err != nil {
		panic(err)
	}
}

// Clash is a generated tool registered under a name another tool of the
// program already had: two packages' tools of one name, or a user's tool
// named as one of kesoku's own (perhaps only since kesoku was upgraded).
type Clash[TC any] struct {
	// Kept is the tool that holds the name, registered first; Refused is
	// the one turned away. Which is which follows the order of the
	// packages' init, not who is right.
	Kept, Refused *Spec[TC]
}

// RegisterGenerated is Register for generated code, at init. A name
// already taken there is no mistake in the code that registers it but
// one between packages, which kesoku gen of one package could not see:
// it is kept as a Clash, the name staying with the tool that had it, for
// the program to report once it starts rather than as a panic with a
// stack trace. A bad name or a missing Call still panics: kesoku gen
// never writes them, so the generated file was edited by hand.
func RegisterGenerated[TC any](r *Registry[TC], s *Spec[TC]) {
	if err := CheckRegister(s.Name, s.Source, s.Call != nil); err != nil {
		panic(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.generated == nil {
		r.generated = map[*Spec[TC]]bool{}
	}
	r.generated[s] = true
	if prev, ok := r.specs[s.Name]; ok {
		r.clashes = append(r.clashes, Clash[TC]{Kept: prev, Refused: s})
		return
	}
	r.specs[s.Name] = s
}

// Generated reports whether s was registered by RegisterGenerated (or
// turned away by it): kesoku gen writes its registration.
func Generated[TC any](r *Registry[TC], s *Spec[TC]) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.generated[s]
}

// Clashes returns the clashes RegisterGenerated kept, in the order they
// happened.
func Clashes[TC any](r *Registry[TC]) []Clash[TC] {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.clashes)
}

// Lookup returns the tool called name.
func (r *Registry[TC]) Lookup(name string) (*Spec[TC], bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.specs[name]
	return s, ok
}

// All returns every tool, sorted by name.
func (r *Registry[TC]) All() []*Spec[TC] {
	r.mu.RLock()
	out := make([]*Spec[TC], 0, len(r.specs))
	for _, s := range r.specs {
		out = append(out, s)
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b *Spec[TC]) int { return strings.Compare(a.Name, b.Name) })
	return out
}

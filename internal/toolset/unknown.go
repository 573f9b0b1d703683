package toolset

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/kesoku/kesoku/internal/english"
)

// UnknownToolError says that no tool has the requested name. Its message
// lists the known tools so that a model can correct itself in one try.
type UnknownToolError struct {
	Name       string
	Suggestion string
	Known      []string
	// NoOwnTools, when set, is the module of a program built on kesoku
	// that registers no tool of its own, and Gen the command that writes
	// the files that would ("go run . gen ./..."): the likely reason is
	// that gen was never run there.
	NoOwnTools, Gen string
}

func (e *UnknownToolError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown tool %q", e.Name)
	if e.Suggestion != "" {
		fmt.Fprintf(&b, "; did you mean %q?", e.Suggestion)
	}
	if len(e.Known) > 0 {
		if e.Suggestion == "" {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, " known tools: %s", strings.Join(e.Known, ", "))
	}
	if e.NoOwnTools != "" {
		fmt.Fprintf(&b, "; %s has no tools of its own: the functions marked //kesoku:tool in its packages are registered by the kesoku_gen.go files that %q writes beside them, and none was built in", e.NoOwnTools, e.Gen)
	}
	return b.String()
}

// UnknownTool builds the error for a request naming no registered tool.
// The tools it lists are those registered so far: a source not loaded
// yet (an MCP server no request needed) is not started to be listed.
//
// In a program of one's own (a module that is not kesoku's) whose
// registry holds no tool of that module, the error says so: the tools
// were written, most likely, and their generated files never made.
func (r *Set) UnknownTool(name string) *UnknownToolError {
	known := r.loadedNames()
	slices.Sort(known)
	e := &UnknownToolError{Name: name, Suggestion: english.Suggest(name, known), Known: known}
	if mod, pkg := mainModule(); mod != "" && mod != kesokuModule && !r.hasToolsOf(mod) {
		e.NoOwnTools, e.Gen = mod, "go run "+pkg+" gen ./..."
		if pkg == mod {
			e.Gen = "go run . gen ./..."
		}
	}
	return e
}

// kesokuModule is kesoku's own module, whose program has only built-in
// tools.
const kesokuModule = "github.com/kesoku/kesoku"

// mainModule returns the module of the running program and its main
// package's import path, "" when the build did not record them. Tests
// replace it.
var mainModule = sync.OnceValues(func() (mod, pkg string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", ""
	}
	return info.Main.Path, info.Path
})

// hasToolsOf reports whether a tool registered so far was declared in a
// package of module mod.
func (r *Set) hasToolsOf(mod string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, s := range r.tools {
		if s.Package == mod || strings.HasPrefix(s.Package, mod+"/") {
			return true
		}
	}
	return false
}

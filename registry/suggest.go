package registry

import (
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
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
func (r *Registry) UnknownTool(name string) *UnknownToolError {
	known := r.loadedNames()
	slices.Sort(known)
	e := &UnknownToolError{Name: name, Suggestion: Suggest(name, known), Known: known}
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
func (r *Registry) hasToolsOf(mod string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, s := range r.specs {
		if s.Package == mod || strings.HasPrefix(s.Package, mod+"/") {
			return true
		}
	}
	return false
}

// Suggest returns the candidate closest to got when it is close enough to
// be a likely typo, or "" when none is.
func Suggest(got string, candidates []string) string {
	best, bestD := "", -1
	lg := strings.ToLower(got)
	for _, c := range candidates {
		d := editDistance(lg, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	// A third of the longer name, at least one edit: "calculate_summ" is a
	// typo of "calculate_sum", "path" is not a typo of "mode".
	limit := max(len(got), len(best)) / 3
	if bestD < 0 || bestD > max(limit, 1) {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b,
// in bytes: Levenshtein's insertions, deletions and substitutions, plus the
// swap of two neighbours as one edit, the commonest typo ("nmae").
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

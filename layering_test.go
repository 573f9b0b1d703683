package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/kesoku/kesoku"

// allowed is the house plan (DEVELOPERS.md, "The house") as import edges
// between our own packages. message and workspace are leaves that hold one concept each
// (the record, the confinement of paths) so that the layers above can share
// them without importing each other; records, just above message, is the
// one home of the records file that every command reads or writes.
var allowed = map[string][]string{
	".":        {"cmd"},
	"cmd":      {"*"},
	"message":  {},
	"registry": {"message", "internal/toolspec"},
	// A tool declared both ways, for the tests that hold them to one
	// behaviour; nothing imports it.
	"registry/internal/parity": {"registry", "registry/genimpl"},
	// What generated code calls; nothing else imports it but generated
	// code.
	"registry/genimpl": {"registry", "internal/toolspec"},
	// A Go tool's spec, schemas and arguments, below registry, whose two
	// public faces (registry, genimpl) it stands behind.
	"internal/toolspec": {"internal/tooldoc", "internal/english"},
	// The tools a command runs, Go's and those declared outside Go, and
	// the sources of tools loaded when needed.
	"internal/toolset":   {"registry", "internal/toolspec", "internal/workspace", "internal/english"},
	"internal/workspace": {},
	"internal/termtext":  {},
	"internal/notice":    {},
	"internal/origin":    {},
	// The secrets kesoku holds: hidden in what comes back, kept from the
	// programs it starts.
	"internal/secret": {"message"},
	// Traces: whether they are on, the exporter, the spans kesoku makes.
	"internal/tracing":          {"message", "internal/secret", "internal/origin"},
	"internal/tracing/otlptest": {},
	"internal/cassette":         {},
	"internal/english":          {},
	"internal/atomicfile":       {},
	"internal/yamlpos":          {},
	"internal/tooldoc":          {},
	"internal/config":           {"internal/atomicfile", "internal/yamlpos", "internal/english", "internal/prices", "internal/policy"},
	"internal/prices":           {"message"},
	"internal/eval":             {"internal/jsonschema", "internal/yamlpos", "internal/english"},
	"internal/gen":              {"internal/tooldoc", "internal/atomicfile", "internal/english", "internal/toolspec"},
	"internal/scaffold":         {"internal/gen"},
	"internal/tools":            {"registry", "message", "internal/workspace", "internal/english", "internal/toolset", "internal/toolspec", "registry/genimpl"},
	"internal/records":          {"registry", "message", "internal/english", "internal/workspace", "internal/atomicfile", "internal/toolset", "internal/toolspec"},
	"internal/request":          {"message", "internal/records", "internal/yamlpos", "internal/english", "internal/toolspec"},
	"internal/runner":           {"registry", "message", "internal/records", "internal/request", "internal/yamlpos", "internal/secret", "internal/tracing", "internal/toolset", "internal/toolspec", "internal/workspace", "internal/policy"},
	"internal/policy":           {},
	"internal/llm":              {"internal/runner", "internal/request", "message", "internal/origin", "internal/english", "internal/records", "internal/workspace", "internal/termtext", "internal/prices", "internal/secret", "internal/tracing", "internal/toolset"},
	"internal/llm/gemini":       {"internal/llm", "message", "internal/toolset", "internal/toolspec"},
	"internal/llm/claude":       {"internal/llm", "message", "internal/toolset"},
	"internal/llm/openai":       {"internal/llm", "message", "internal/toolset"},
	"internal/llm/llmtest":      {"message", "internal/llm", "internal/toolset", "internal/toolspec"},
	"internal/llm/provider":     {"internal/llm", "internal/llm/gemini", "internal/llm/claude", "internal/llm/openai", "internal/cassette"},
	"internal/schema":           {"internal/llm/gemini", "internal/llm/claude", "internal/llm/openai", "internal/english", "internal/toolset"},
	"internal/media":            {"internal/llm", "registry", "message", "internal/workspace", "internal/english", "internal/termtext", "internal/toolset", "registry/genimpl"},
	"internal/diff":             {"message", "internal/records", "internal/junit", "internal/english"},
	"internal/junit":            {"message", "internal/atomicfile"},
	"internal/junit/junittest":  {},
	"internal/toolsource":       {"registry", "internal/config", "internal/termtext", "internal/mcpauth", "internal/origin", "internal/jsonschema", "internal/tooldoc", "internal/yamlpos", "internal/workspace", "internal/english", "internal/secret", "internal/tracing", "internal/toolset", "internal/toolspec"},
	"internal/jsonschema":       {},
	"internal/hook":             {"internal/config", "internal/policy", "internal/secret", "internal/termtext"},
	// OAuth for MCP servers over HTTP: it knows nothing of kesoku but
	// what it is told and two leaves (the origin rule, a file replaced in
	// one step); authtest is its fake servers, for tests.
	"internal/mcpauth":          {"internal/origin", "internal/atomicfile", "internal/secret"},
	"internal/mcpauth/authtest": {},
	// A fake MCP server for tests, run as a program: it knows nothing of
	// kesoku.
	"internal/toolsource/mcptest": {},
	"internal/batch":              {"internal/llm", "internal/media", "internal/records", "internal/request", "internal/runner", "message", "internal/english", "internal/atomicfile", "internal/yamlpos", "internal/workspace", "internal/termtext", "internal/toolset"},
	"internal/mcpserve":           {"internal/runner", "internal/request", "internal/llm", "internal/records", "internal/notice", "message", "internal/english", "internal/tracing", "internal/toolset", "internal/toolspec"},
	// What every command sets up: the signals, the tool set, the model,
	// the protected files; apptest is its fake signals, for tests.
	"internal/app":         {"internal/eval", "internal/batch", "internal/cassette", "internal/config", "internal/diff", "internal/english", "internal/junit", "internal/llm", "internal/llm/provider", "internal/mcpserve", "internal/media", "internal/notice", "internal/records", "internal/request", "internal/runner", "internal/toolsource", "internal/workspace", "internal/secret", "internal/tracing", "registry", "message", "internal/toolset", "internal/policy", "internal/hook"},
	"internal/app/apptest": {},
}

// stdlibOnly are the public packages a user's module of tools links: they
// import nothing outside the standard library but each other, so that a
// tools package links no provider SDK.
var stdlibOnly = []string{"registry", "registry/genimpl", "internal/toolspec", "message"}

// TestLayering fails when a package imports against the house plan, or
// when a new package appears that the plan does not place.
func TestLayering(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "bench") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != "." && err == nil {
				// A module of its own (examples/mytools): a user's, which
				// sees only kesoku's public packages, as Go enforces.
				return filepath.SkipDir
			}
			return nil
		}
		// Tests may reach across layers for fixtures (the built-in tools,
		// the fake providers); the plan is about what ships.
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rules, ok := allowed[pkg]
		if !ok {
			t.Errorf("%s: package %s is not placed in the layering plan (layering_test.go)", path, pkg)
			return nil
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(p, module+"/") {
				first, _, _ := strings.Cut(p, "/")
				if slices.Contains(stdlibOnly, pkg) && strings.Contains(first, ".") {
					t.Errorf("%s imports %s: %s is public and imports only the standard library", path, p, pkg)
				}
				continue
			}
			dep := strings.TrimPrefix(p, module+"/")
			if dep == pkg || slices.Contains(rules, "*") || slices.Contains(rules, dep) {
				continue
			}
			t.Errorf("%s imports %s: %s may import only %v", path, dep, pkg, rules)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

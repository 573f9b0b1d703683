package gen

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMistakes runs gen on a package full of mistakes and compares every
// message, file:line first, with testdata/mistakes.golden (-update
// rewrites it). Each kind of mistake must be among them.
func TestMistakes(t *testing.T) {
	_, err := Generate(context.Background(), Config{Patterns: []string{"./testdata/src/mistakes"}})
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Generate: %v, want Errors", err)
	}
	got := errs.Error() + "\n"
	golden := filepath.Join("testdata", "mistakes.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("messages mismatch (-golden +got), -update rewrites the golden file:\n%s", diff)
	}
	kinds := []struct{ kind, message string }{
		{"duplicate tool name", `names.go:20: duplicate tool name "dup": First at testdata/src/mistakes/names.go:16 has it too`},
		{"unsupported type: chan", "types.go:59: parameter ch: unsupported type chan int"},
		{"unsupported type: func", "types.go:59: parameter fn: unsupported type func()"},
		{"unsupported type: interface", "types.go:59: parameter iface: unsupported type any"},
		{"unsupported type: complex", "types.go:59: parameter cx: unsupported type complex128"},
		{"unsupported type: map key", "types.go:59: parameter m: unsupported type map[int]string"},
		{"recursive type", "types.go:59: parameter node: field Children: recursive type mistakes.Node"},
		{"entry naming no parameter", `doc.go:23: Args entry "c" names no parameter of ExtraEntry`},
		{"parameter without entry", "doc.go:15: parameter b has no entry in Args:"},
		{"no Args section", "doc.go:40: parameter path has no entry in Args:"},
		{"invalid name", `names.go:5: tool name "9lives" is invalid`},
		{"default not fitting", `types.go:68: Args entry "small": Defaults to 300 does not fit type int8: 300 is out of range for int8`},
		{"enum value not a constant", `types.go:85: Args entry "mode": Must be one of: "medium" is not a declared constant of type mistakes.Mode`},
		{"bad return signature", "types.go:95: func TwoValues returns (int, string): a tool returns T, (T, error), error or nothing"},
		{"directive on a method", "names.go:38: //kesoku:tool on method Add: only plain functions can be tools"},
		{"directive on a type", "names.go:43: //kesoku:tool must be in the doc comment of a function"},
		{"no description", "doc.go:82: tool no_description: the doc comment says nothing about what it does"},
		{"check of the wrong kind", "names.go:77: //kesoku:tool check=Twice: want a function of this package, func Twice(tc *registry.ToolContext, args map[string]any) error"},
	}
	for _, k := range kinds {
		if !strings.Contains(got, k.message) {
			t.Errorf("%s: no message %q", k.kind, k.message)
		}
	}
}

func TestDuplicateAcrossPackages(t *testing.T) {
	t.Parallel()
	_, err := Generate(context.Background(), Config{Patterns: []string{"./testdata/src/dupa", "./testdata/src/dupb"}})
	want := `testdata/src/dupb/dupb.go:6: duplicate tool name "shared": Shared at testdata/src/dupa/dupa.go:7 has it too`
	if err == nil || err.Error() != want {
		t.Errorf("Generate: %v, want %s", err, want)
	}
}

// TestTakenByCompiledTools checks that gen refuses a tool named as one
// compiled into the kesoku that runs it, from another package — one of
// kesoku's own or a package of the user's already built in — at the
// tool's file:line: the program built with both would not start. The
// tools of the packages being generated are what gen rewrites, and do
// not count.
func TestTakenByCompiledTools(t *testing.T) {
	t.Parallel()
	const dupa = "github.com/kesoku/kesoku/internal/gen/testdata/src/dupa"
	tests := []struct {
		name     string
		patterns []string
		compiled []CompiledTool
		want     string
	}{
		{"one of kesoku's own", []string{"./testdata/src/dupa"},
			[]CompiledTool{{Name: "shared", Package: "github.com/kesoku/kesoku/internal/tools", Source: "shared.go:3"}},
			`testdata/src/dupa/dupa.go:6: tool name "shared" is taken by one of kesoku's own tools (github.com/kesoku/kesoku/internal/tools): name this one otherwise with //kesoku:tool name=NEW_NAME`},
		{"another package built in", []string{"./testdata/src/dupa"},
			[]CompiledTool{{Name: "shared", Package: "example.com/mytools/more", Source: "more.go:12"}},
			`testdata/src/dupa/dupa.go:6: tool name "shared" is taken by a tool of example.com/mytools/more (more.go:12), which the kesoku running gen has built in: name this one otherwise with //kesoku:tool name=NEW_NAME`},
		{"the package's own, rewritten", []string{"./testdata/src/dupa"},
			[]CompiledTool{{Name: "shared", Package: dupa, Source: "dupa.go:7"}}, ""},
		{"the package's own added with registry.Add, not rewritten", []string{"./testdata/src/dupa"},
			[]CompiledTool{{Name: "shared", Package: dupa, Source: "typed.go:9", Typed: true}},
			`testdata/src/dupa/dupa.go:6: tool name "shared" is taken by a tool that ` + dupa + ` adds with registry.Add (typed.go:9): name this one otherwise with //kesoku:tool name=NEW_NAME`},
		{"another package generated with it", []string{"./testdata/src/dupa", "./testdata/src/basic"},
			[]CompiledTool{{Name: "shared", Package: "github.com/kesoku/kesoku/internal/gen/testdata/src/basic", Source: "basic.go:1"}}, ""},
		{"a duplicate said once", []string{"./testdata/src/dupa", "./testdata/src/dupb"},
			[]CompiledTool{{Name: "shared", Package: "github.com/kesoku/kesoku/internal/tools", Source: "shared.go:3"}},
			`testdata/src/dupa/dupa.go:6: tool name "shared" is taken by one of kesoku's own tools (github.com/kesoku/kesoku/internal/tools): name this one otherwise with //kesoku:tool name=NEW_NAME` + "\n" +
				`testdata/src/dupb/dupb.go:6: duplicate tool name "shared": Shared at testdata/src/dupa/dupa.go:7 has it too`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Generate(context.Background(), Config{Patterns: tt.patterns, Compiled: tt.compiled})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Generate: mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStates checks that gen tells each state of a generated file apart,
// and that a stale generated file that no longer compiles, in the package
// or in one it imports, does not stop it.
func TestStates(t *testing.T) {
	t.Parallel()
	files, err := Generate(context.Background(), Config{Patterns: []string{
		"./testdata/src/basic", "./testdata/src/stale", "./testdata/src/orphan", "./testdata/src/usesdep", "./testdata/src/brokendep",
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]State{}
	for _, f := range files {
		got[f.Dir] = f.State()
	}
	want := map[string]State{
		"./testdata/src/basic":     UpToDate,
		"./testdata/src/stale":     Stale,
		"./testdata/src/orphan":    Orphaned,
		"./testdata/src/usesdep":   Missing,
		"./testdata/src/brokendep": Orphaned,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("states mismatch (-want +got):\n%s", diff)
	}
}

func TestOwnFileIsNeverOverwritten(t *testing.T) {
	t.Parallel()
	_, err := Generate(context.Background(), Config{Patterns: []string{"./testdata/src/ownfile"}})
	want := "testdata/src/ownfile/kesoku_gen.go: kesoku_gen.go exists and was not written by kesoku gen: rename it, so that the tools' registrations can go there"
	if err == nil || err.Error() != want {
		t.Errorf("Generate: %v, want %s", err, want)
	}
}

func TestNoPackages(t *testing.T) {
	t.Parallel()
	_, err := Generate(context.Background(), Config{Patterns: []string{"./testdata/src/nothing/..."}})
	if err == nil || !strings.HasPrefix(err.Error(), "load ./testdata/src/nothing/...: pattern ./testdata/src/nothing/...: ") {
		t.Errorf("Generate: %v, want no packages", err)
	}
}

func TestWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	for name, content := range map[string]string{"stale.go": "old", "orphan.go": "old", "same.go": "same"} {
		if err := os.WriteFile(path(name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files := []*File{
		{Path: path("stale.go"), Have: []byte("old"), Want: []byte("new")},
		{Path: path("orphan.go"), Have: []byte("old")},
		{Path: path("missing.go"), Want: []byte("created")},
		{Path: path("same.go"), Have: []byte("same"), Want: []byte("same")},
	}
	changed, err := Write(files)
	if err != nil {
		t.Fatal(err)
	}
	if len(changed) != 3 {
		t.Errorf("changed %d files, want 3", len(changed))
	}
	for name, want := range map[string]string{"stale.go": "new", "missing.go": "created", "same.go": "same"} {
		got, err := os.ReadFile(path(name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := os.Stat(path("orphan.go")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("orphan.go still there: %v", err)
	}
	left, _ := filepath.Glob(path(".kesoku_gen-*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestGoldenPackagesVet runs go vet on the golden generated files: they
// must not only build (the tests import them) but be clean.
func TestGoldenPackagesVet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	t.Parallel()
	cmd := exec.Command("go", append([]string{"vet"}, goldenPackages...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("go vet %s: %v\n%s", strings.Join(goldenPackages, " "), err, out.String())
	}
}

// TestSource generates a package from its source alone, as Generate
// does with the go command, byte for byte; and refuses what it cannot
// check alone.
func TestSource(t *testing.T) {
	t.Parallel()
	files, err := Generate(context.Background(), Config{Patterns: []string{"./testdata/src/stale"}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Source(filepath.Join("testdata", "src", "stale"), "github.com/kesoku/kesoku/internal/gen/testdata/src/stale")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(files[0].Want), string(f.Want)); diff != "" {
		t.Errorf("Source differs from Generate (-Generate +Source):\n%s", diff)
	}
	if f.State() != Stale || !cmp.Equal(f.Tools, []string{"echo"}) {
		t.Errorf("state %v, tools %v", f.State(), f.Tools)
	}

	dir := t.TempDir()
	write := func(src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "tools.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package tools\n\nimport \"strings\"\n\n// Up shouts.\n//\n// Args:\n//\n//\ts: what.\n//\n//kesoku:tool\nfunc Up(s string) string { return strings.ToUpper(s) }\n")
	if _, err := Source(dir, "example.com/m/tools"); err == nil || !strings.Contains(err.Error(), `imports strings: only a package that imports nothing is generated without the go command`) {
		t.Errorf("Source of a package with an import: %v", err)
	}
	write("package tools\n\n// Up shouts.\n//\n//kesoku:tool\nfunc Up(s string) string { return s }\n\n// Down whispers.\n//\n//kesoku:tool name=up\nfunc Down() string { return \"\" }\n")
	_, err = Source(dir, "example.com/m/tools")
	want := "tools.go:6: parameter s has no entry in Args: describe it there as \"s: what it is\"\n" +
		"tools.go:10: duplicate tool name \"up\": Up at tools.go:6 has it too"
	if err == nil || err.Error() != want {
		t.Errorf("Source of a package with mistakes: %v, want\n%s", err, want)
	}
	write("package tools\n\n// Nothing here is a tool.\nfunc Up() {}\n")
	if f, err := Source(dir, "example.com/m/tools"); err != nil || f.Want != nil || f.State() != UpToDate {
		t.Errorf("Source of a package without tools: %v, %v", f, err)
	}
}

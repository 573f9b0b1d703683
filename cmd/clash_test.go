package cmd

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/gen"
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/registry"
)

// clashingRegistry is a program's registry where a user's tool, by init
// order registered first, has the name of one of kesoku's own.
func clashingRegistry() *registry.Registry {
	call := func(context.Context, *registry.ToolContext, map[string]any) (any, error) { return nil, nil }
	r := registry.New()
	toolspec.RegisterGenerated(r, &toolspec.Spec[registry.ToolContext]{Name: "calculate_sum", Source: "tools.go:12", Package: "example.com/mytools/tools", Call: call})
	toolspec.RegisterGenerated(r, &toolspec.Spec[registry.ToolContext]{Name: "calculate_sum", Source: "calc.go:20", Package: "github.com/kesoku/kesoku/internal/tools", Call: call})
	return r
}

// TestClashStopsCommands checks that two compiled tools of one name stop
// every command that could use one of them, said once and in words, with
// how to get out: exit 2, no panic. The help and the version still run,
// and so does gen, which is the way out.
func TestClashStopsCommands(t *testing.T) {
	t.Parallel()
	run := func(args ...string) (int, string, string) {
		var out, errOut strings.Builder
		g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}, AWD: t.TempDir(), goTools: clashingRegistry()}
		code := run(context.Background(), g, args)
		return code, out.String(), errOut.String()
	}
	want := `kesoku: tool name "calculate_sum" is taken twice: by example.com/mytools/tools (tools.go:12) and by github.com/kesoku/kesoku/internal/tools (calc.go:20), one of kesoku's own tools` + "\n" +
		`rename yours (//kesoku:tool name=NEW_NAME in its doc comment, then run ` + genCommand([]string{"./..."}) + `; or where registry.Add names it)`
	for _, args := range [][]string{{"tools", "list"}, {"run", "requests.yaml"}, {"mcp", "serve"}, {"validate", "x.yaml"}} {
		code, out, errOut := run(args...)
		if code != ExitUsage || out != "" {
			t.Errorf("%s: exit %d, stdout %q; want %d and nothing", strings.Join(args, " "), code, out, ExitUsage)
		}
		if !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 2 || !strings.HasSuffix(errOut, "; until then only gen, help and version run\n") {
			t.Errorf("%s: stderr\n%s\nwant\n%s...; until then only gen, help and version run", strings.Join(args, " "), errOut, want)
		}
		if strings.Contains(errOut, "panic") || strings.Contains(errOut, "goroutine") {
			t.Errorf("%s: a panic's words in stderr:\n%s", strings.Join(args, " "), errOut)
		}
	}
	// Nor do the commands of commands, which print their help, nor the
	// shell's completion, nor gen-man.
	for _, args := range [][]string{{"version"}, {"help"}, {"help", "go-tools"}, {"tools", "list", "--help"}, {},
		{"tools"}, {"mcp"}, {"batch"}, {"completion", "bash"}, {"__complete", "gen", ""}, {"__complete", "session", "--tools", "calc"},
		{"gen-man", t.TempDir()}} {
		if code, _, errOut := run(args...); code != ExitOK || strings.Contains(errOut, "taken twice") {
			t.Errorf("%q: exit %d, stderr %q; want it to run", args, code, errOut)
		}
	}
	// gen runs: here it fails for want of a package, not for the clash.
	if code, _, errOut := run("gen", "./nowhere/..."); code != ExitFailures || strings.Contains(errOut, "taken twice") {
		t.Errorf("gen: exit %d, stderr %q; want gen to run", code, errOut)
	}
}

// TestGenSeesBothSidesOfAClash checks that gen is told of both tools of a
// clashing name, whichever init registered first: the built-in one must
// be seen when the user's tool holds the name, so that gen refuses it.
func TestGenSeesBothSidesOfAClash(t *testing.T) {
	t.Parallel()
	got := compiledTools(clashingRegistry())
	want := []gen.CompiledTool{
		{Name: "calculate_sum", Package: "example.com/mytools/tools", Source: "tools.go:12"},
		{Name: "calculate_sum", Package: "github.com/kesoku/kesoku/internal/tools", Source: "calc.go:20"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("compiledTools mismatch (-want +got):\n%s", diff)
	}
}

// TestGenToldWhichToolsAreTyped checks that gen is told which compiled
// tools were added with registry.Add: it writes no registration of
// theirs, so a tool of the same package may not take their names.
func TestGenToldWhichToolsAreTyped(t *testing.T) {
	t.Parallel()
	r := clashingRegistry()
	type in struct{ A int }
	if err := registry.Add(r, "typed_one", "A typed tool.", func(context.Context, *registry.ToolContext, in) (int, error) { return 0, nil }); err != nil {
		t.Fatal(err)
	}
	typed := map[string]bool{}
	for _, c := range compiledTools(r) {
		typed[c.Name] = typed[c.Name] || c.Typed
	}
	if !typed["typed_one"] || typed["calculate_sum"] {
		t.Errorf("typed: %v; want typed_one only", typed)
	}
}

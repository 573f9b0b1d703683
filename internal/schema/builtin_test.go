package schema_test

import (
	"testing"

	"github.com/kesoku/kesoku/internal/schema"
	"github.com/kesoku/kesoku/registry"
	// The built-in tools, registered into registry.Default by their
	// generated code, as cmd/builtins.go does for the program.
	_ "github.com/kesoku/kesoku/internal/media"
	_ "github.com/kesoku/kesoku/internal/tools"
	"github.com/kesoku/kesoku/internal/toolset"
)

// builtins are the tools every kesoku has; the test fails loudly if one
// goes missing, rather than letting a golden file shrink unnoticed.
var builtins = []string{"analyze_media", "calculate_sum", "current_time", "glob", "grep", "list_dir", "read_file", "sleep", "write_file"}

// TestExportBuiltins checks the five formats of the built-in tools against
// testdata/schema/<format>.json at the repository root (rewritten with
// -update): exactly what `kesoku tools schema --format <format>` prints.
func TestExportBuiltins(t *testing.T) {
	set := toolset.Of(registry.Default)
	if _, err := set.Select(builtins); err != nil {
		t.Fatalf("built-in tool missing from registry.Default: %v", err)
	}
	schema.CheckExports(t, "../../testdata/schema", set.All())
}

// TestBuiltinsValidate runs each built-in's own schema against a call a
// model would make, so that validation and the generated schemas agree.
func TestBuiltinsValidate(t *testing.T) {
	calls := map[string]map[string]any{
		"calculate_sum": {"a": 1.0, "b": 2.0},
		"sleep":         {"seconds": 0.05},
	}
	for name, args := range calls {
		s, ok := registry.Default.Lookup(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		if err := toolset.FromSpec(s).Validate(args); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	s, _ := registry.Default.Lookup("calculate_sum")
	err := toolset.FromSpec(s).Validate(map[string]any{"a": "1", "c": 2.0})
	want := `tool "calculate_sum": args.a: wrong type: expected integer (int), got string "1"; ` +
		`args.b: missing required argument: expected integer (int); ` +
		`args.c: unknown argument: expected one of a, b (did you mean "b"?)`
	if err == nil || err.Error() != want {
		t.Errorf("Validate =\n%v\nwant\n%s", err, want)
	}
}

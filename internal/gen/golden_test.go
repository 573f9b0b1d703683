package gen

import (
	"context"
	"flag"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden generated files under testdata/src")

// goldenPackages are the test packages whose kesoku_gen.go is the golden
// file of what gen writes for them.
var goldenPackages = []string{"./testdata/src/basic", "./testdata/src/kinds", "./testdata/src/clash"}

// TestGolden generates the test packages' files and compares them with
// the kesoku_gen.go checked in beside them; -update rewrites those.
func TestGolden(t *testing.T) {
	files, err := Generate(context.Background(), Config{Patterns: goldenPackages})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(goldenPackages) {
		t.Fatalf("got %d files, want %d", len(files), len(goldenPackages))
	}
	if *update {
		if _, err := Write(files); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, f := range files {
		if diff := cmp.Diff(string(f.Have), string(f.Want)); diff != "" {
			t.Errorf("%s/%s mismatch (-golden +generated), run go test ./internal/gen -run TestGolden -update:\n%s", f.Dir, FileName, diff)
		}
	}
}

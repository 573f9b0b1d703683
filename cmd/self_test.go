package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCommandOf names the command that runs this program again, as the
// user started it.
func TestCommandOf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	onPath := filepath.Join(dir, "bin", "mytools")
	if err := os.MkdirAll(filepath.Dir(onPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(onPath, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	lookPath := func(name string) (string, error) {
		if name == "mytools" {
			return onPath, nil
		}
		return "", errors.New("not found")
	}
	mine := buildFacts{mainPkg: "example.com/mytools", module: "example.com/mytools"}
	nested := buildFacts{mainPkg: "example.com/m/cmd/m", module: "example.com/m"}
	kesoku := buildFacts{mainPkg: "github.com/kesoku/kesoku", module: "github.com/kesoku/kesoku", noGen: true}
	goRun := "/tmp/go-build3050945/b001/exe/mytools"
	tests := []struct {
		name, arg0 string
		build      buildFacts
		moduleHere string
		want       string
	}{
		{"found on PATH", "mytools", mine, "", "mytools"},
		{"typed with a path", "./mytools", mine, "", "./mytools"},
		{"full path found on PATH", onPath, mine, "", "mytools"},
		{"full path elsewhere", filepath.Join(dir, "other", "mytools"), mine, "", filepath.Join(dir, "other", "mytools")},
		{"go run in the module's root", goRun, mine, "example.com/mytools", "go run ."},
		{"go run below the root", goRun, mine, "", "go run example.com/mytools"},
		{"go run of a nested main", goRun, nested, "example.com/m", "go run example.com/m/cmd/m"},
		{"go run without the generated files", goRun, kesoku, "github.com/kesoku/kesoku", "go run -tags kesoku_nogen ."},
		{"go run, no build info", goRun, buildFacts{}, "", goRun},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := commandOf(tt.arg0, tt.build, lookPath, func(string) string { return tt.moduleHere })
			if got != tt.want {
				t.Errorf("commandOf(%q) = %q, want %q", tt.arg0, got, tt.want)
			}
		})
	}
}

package scaffold

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/gen"
)

// fakeClone writes a directory that holds kesoku's module, as far as init
// reads it: its go.mod and go.sum.
func fakeClone(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "go.mod"), "module github.com/kesoku/kesoku\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/spf13/cobra v1.10.2\n\tgolang.org/x/mod v0.42.0 // indirect\n)\n")
	write(t, filepath.Join(dir, "go.sum"), "golang.org/x/mod v0.42.0 h1:x\ngithub.com/spf13/cobra v1.10.2 h1:y\n\ngithub.com/spf13/cobra v1.10.2/go.mod h1:z\n")
	return dir
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestCreate writes the module: go.mod with kesoku through a replace
// directive and kesoku's requirements, its sums, and a tools package
// whose generated file is what kesoku gen writes.
func TestCreate(t *testing.T) {
	t.Parallel()
	clone := fakeClone(t)
	k, err := Checkout(clone)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "mytools")
	res, err := Create(Options{Dir: dir, Kesoku: k})
	if err != nil {
		t.Fatal(err)
	}
	wantFiles := []string{"go.mod", "go.sum", "main.go", "tools/tools.go", "tools/kesoku_gen.go", "requests.yaml"}
	if diff := cmp.Diff(wantFiles, res.Files); diff != "" {
		t.Errorf("files mismatch (-want +got):\n%s", diff)
	}
	if res.Module != "mytools" || res.Dir != dir || !res.Complete || res.Tool != "greet" {
		t.Errorf("result %+v", res)
	}
	wantMod := "module mytools\n\ngo 1.26.0\n\nrequire github.com/kesoku/kesoku v0.0.0-00010101000000-000000000000\n\n" +
		"require (\n\tgithub.com/spf13/cobra v1.10.2 // indirect\n\tgolang.org/x/mod v0.42.0 // indirect\n)\n\n" +
		"replace github.com/kesoku/kesoku => " + clone + "\n"
	if diff := cmp.Diff(wantMod, read(t, filepath.Join(dir, "go.mod"))); diff != "" {
		t.Errorf("go.mod mismatch (-want +got):\n%s", diff)
	}
	wantSum := "github.com/spf13/cobra v1.10.2 h1:y\ngithub.com/spf13/cobra v1.10.2/go.mod h1:z\ngolang.org/x/mod v0.42.0 h1:x\n"
	if diff := cmp.Diff(wantSum, read(t, filepath.Join(dir, "go.sum"))); diff != "" {
		t.Errorf("go.sum mismatch (-want +got):\n%s", diff)
	}
	if main := read(t, filepath.Join(dir, "main.go")); !strings.Contains(main, `_ "mytools/tools"`) || !strings.Contains(main, "cmd.Main()") {
		t.Errorf("main.go:\n%s", main)
	}
	if tools := read(t, filepath.Join(dir, "tools", "tools.go")); !strings.Contains(tools, "//go:generate go run -tags kesoku_nogen mytools gen .\n") {
		t.Errorf("tools.go:\n%s", tools)
	}
	f, err := gen.Source(filepath.Join(dir, "tools"), "mytools/tools")
	if err != nil {
		t.Fatal(err)
	}
	if f.State() != gen.UpToDate || !slices.Equal(f.Tools, []string{"greet"}) {
		t.Errorf("the generated file is %v, with tools %v", f.State(), f.Tools)
	}
	if !strings.Contains(read(t, filepath.Join(dir, "requests.yaml")), "name: greet") {
		t.Error("requests.yaml does not call greet")
	}
}

// TestCreateModulePath takes --module, or the directory's name when it is
// one the go command takes.
func TestCreateModulePath(t *testing.T) {
	t.Parallel()
	k, err := Checkout(fakeClone(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Create(Options{Dir: filepath.Join(t.TempDir(), "x"), Module: "example.com/team/tools", Kesoku: k})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(res.Dir, "main.go")); !strings.Contains(got, "// Command tools is kesoku") || !strings.Contains(got, `_ "example.com/team/tools/tools"`) {
		t.Errorf("main.go:\n%s", got)
	}

	var pe *ModulePathError
	bad := filepath.Join(t.TempDir(), "My Tools")
	if _, err := Create(Options{Dir: bad, Kesoku: k}); !errors.As(err, &pe) || !pe.FromDir || pe.Path != "My Tools" {
		t.Errorf("Create in %q: %v, want a *ModulePathError from the directory's name", bad, err)
	}
	if _, err := os.Stat(bad); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused module made its directory: %v", err)
	}
	if _, err := Create(Options{Dir: t.TempDir(), Module: "bad path/x", Kesoku: k}); !errors.As(err, &pe) || pe.FromDir {
		t.Errorf("Create with a bad --module: %v", err)
	}
}

// TestCreateRefuses never writes over a user's file, and writes nothing
// when it refuses.
func TestCreateRefuses(t *testing.T) {
	t.Parallel()
	k, err := Checkout(fakeClone(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		have  map[string]string
		force bool
		want  any
	}{
		{"not empty", map[string]string{"notes.txt": "mine"}, false, &NotEmptyError{}},
		{"a file in the way", map[string]string{"README.md": "mine", "main.go": "package main // mine"}, true, &ExistsError{}},
		{"a tools package", map[string]string{"tools/other.go": "package tools"}, true, &ExistsError{}},
		{"a go.mod", map[string]string{"go.mod": "module mine"}, true, &ExistsError{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, data := range tt.have {
				write(t, filepath.Join(dir, name), data)
			}
			_, err := Create(Options{Dir: dir, Force: tt.force, Kesoku: k})
			switch tt.want.(type) {
			case *NotEmptyError:
				var e *NotEmptyError
				if !errors.As(err, &e) || !slices.Equal(e.Entries, []string{"notes.txt"}) {
					t.Errorf("Create = %v, want a *NotEmptyError naming notes.txt", err)
				}
			case *ExistsError:
				var e *ExistsError
				if !errors.As(err, &e) {
					t.Errorf("Create = %v, want an *ExistsError", err)
				}
			}
			var got []string
			filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					rel, _ := filepath.Rel(dir, path)
					got = append(got, filepath.ToSlash(rel))
					if want := tt.have[filepath.ToSlash(rel)]; read(t, path) != want {
						t.Errorf("%s was changed", rel)
					}
				}
				return nil
			})
			if len(got) != len(tt.have) {
				t.Errorf("the directory holds %v after a refusal", got)
			}
		})
	}

	// With --force, files beside the module's stay as they are.
	dir := t.TempDir()
	write(t, filepath.Join(dir, "README.md"), "mine")
	if _, err := Create(Options{Dir: dir, Force: true, Kesoku: k}); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(dir, "README.md")) != "mine" {
		t.Error("README.md was changed")
	}
}

// h1 is the go command's hash of one go.mod file, written out here as the
// go command computes it, to check the one Release computes.
func h1(gomod string) string {
	file := sha256.Sum256([]byte(gomod))
	sum := sha256.Sum256(fmt.Appendf(nil, "%x  go.mod\n", file))
	return "h1:" + base64.StdEncoding.EncodeToString(sum[:])
}

// TestRelease requires a release, and takes its requirements and sums
// from the module cache where the go command put it.
func TestRelease(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	gomod := "module github.com/kesoku/kesoku\n\ngo 1.26.0\n\nrequire github.com/spf13/cobra v1.10.2\n"
	write(t, filepath.Join(cache, "cache/download/github.com/kesoku/kesoku/@v/v1.2.0.mod"), gomod)
	write(t, filepath.Join(cache, "cache/download/github.com/kesoku/kesoku/@v/v1.2.0.ziphash"), "h1:zip=\n")
	write(t, filepath.Join(cache, "github.com/kesoku/kesoku@v1.2.0/go.sum"), "github.com/spf13/cobra v1.10.2 h1:y\n")

	k := Release("v1.2.0", cache, "")
	if k.Dir != "" || string(k.GoMod) != gomod {
		t.Errorf("Release = %+v", k)
	}
	wantSums := "github.com/kesoku/kesoku v1.2.0 h1:zip=\ngithub.com/kesoku/kesoku v1.2.0/go.mod " + h1(gomod) + "\ngithub.com/spf13/cobra v1.10.2 h1:y\n"
	if diff := cmp.Diff(wantSums, string(k.Sums)); diff != "" {
		t.Errorf("sums mismatch (-want +got):\n%s", diff)
	}
	// The build info's checksum is the zip's, when there is one.
	if k := Release("v1.2.0", cache, "h1:info="); !bytes.Contains(k.Sums, []byte("v1.2.0 h1:info=\n")) {
		t.Errorf("sums %s", k.Sums)
	}

	res, err := Create(Options{Dir: filepath.Join(t.TempDir(), "m"), Kesoku: k})
	if err != nil {
		t.Fatal(err)
	}
	wantMod := "module m\n\ngo 1.26.0\n\nrequire github.com/kesoku/kesoku v1.2.0\n\nrequire github.com/spf13/cobra v1.10.2 // indirect\n"
	if diff := cmp.Diff(wantMod, read(t, filepath.Join(res.Dir, "go.mod"))); diff != "" {
		t.Errorf("go.mod mismatch (-want +got):\n%s", diff)
	}
	if !res.Complete {
		t.Error("a release found in the cache is not complete")
	}

	// Not in the cache: required alone, for go mod tidy to complete.
	res, err = Create(Options{Dir: filepath.Join(t.TempDir(), "m"), Kesoku: Release("v1.3.0", cache, "")})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(res.Dir, "go.mod")); res.Complete || !strings.Contains(got, "require github.com/kesoku/kesoku v1.3.0\n") || strings.Contains(got, "cobra") {
		t.Errorf("complete %v, go.mod:\n%s", res.Complete, got)
	}
	if _, err := os.Stat(filepath.Join(res.Dir, "go.sum")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a go.sum without sums: %v", err)
	}
}

// TestThis finds the clone this test was built in.
func TestThis(t *testing.T) {
	t.Parallel()
	k, err := This(func() string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if k.Dir != root || k.Version != checkoutVersion || k.Sums == nil {
		t.Errorf("This = dir %q, version %q, want the clone %s", k.Dir, k.Version, root)
	}
}

// TestCheckout refuses a directory that is not kesoku's.
func TestCheckout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var e *NotKesokuError
	if _, err := Checkout(dir); !errors.As(err, &e) {
		t.Errorf("Checkout of an empty directory: %v", err)
	}
	write(t, filepath.Join(dir, "go.mod"), "module example.com/other\n")
	if _, err := Checkout(dir); !errors.As(err, &e) || !strings.Contains(err.Error(), `declares module "example.com/other"`) {
		t.Errorf("Checkout of another module: %v", err)
	}
}

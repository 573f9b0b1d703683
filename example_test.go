package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/mod/modfile"
)

func init() { scriptCmds["example"] = cmdExample }

// exampleDir is the module of examples/: a user's module of tools, with
// its own go.mod.
const exampleDir = "examples/mytools"

// cmdExample copies the module of examples/mytools into the script's
// directory, as a user's module outside kesoku's repository, its replace
// directive pointing at this checkout:
//
//	example
func cmdExample(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: example")
	}
	root := ts.Getenv("KESOKU_ROOT")
	src := filepath.Join(root, exampleDir)
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		dst := ts.MkAbs(rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	ts.Check(err)
	editGoMod(ts, func(mod *modfile.File) {
		ts.Check(mod.AddReplace(kesokuModule, "", root, ""))
	})
}

const kesokuModule = "github.com/kesoku/kesoku"

// TestExampleModule keeps examples/mytools buildable offline: its go.mod
// requires kesoku through a replace directive to this checkout and lists
// every requirement of kesoku's own go.mod at the same version, and its
// go.sum holds every line of kesoku's. With less, the go command walks
// kesoku's module graph into go.mod files that building kesoku never
// fetched, and fails on a fresh module cache without a network.
func TestExampleModule(t *testing.T) {
	t.Parallel()
	parse := func(path string) *modfile.File {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := modfile.Parse(path, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	kesoku, example := parse("go.mod"), parse(filepath.Join(exampleDir, "go.mod"))
	if strings.HasPrefix(example.Module.Mod.Path, kesokuModule) {
		t.Errorf("the example's module path %s is under kesoku's: it could import internal packages", example.Module.Mod.Path)
	}
	have := map[string]string{}
	for _, r := range example.Require {
		have[r.Mod.Path] = r.Mod.Version
	}
	if _, ok := have[kesokuModule]; !ok {
		t.Errorf("%s/go.mod does not require %s", exampleDir, kesokuModule)
	}
	for _, r := range kesoku.Require {
		if v := have[r.Mod.Path]; v != r.Mod.Version {
			t.Errorf("%s/go.mod requires %s %q; kesoku's go.mod, %s: copy kesoku's requirements", exampleDir, r.Mod.Path, v, r.Mod.Version)
		}
	}
	replaced := false
	for _, r := range example.Replace {
		replaced = replaced || r.Old.Path == kesokuModule && r.New.Path == "../.."
	}
	if !replaced {
		t.Errorf("%s/go.mod does not replace %s with ../..", exampleDir, kesokuModule)
	}
	sums, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	exampleSums, err := os.ReadFile(filepath.Join(exampleDir, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for line := range bytes.Lines(sums) {
		if !bytes.Contains(exampleSums, line) {
			t.Errorf("%s/go.sum lacks %s", exampleDir, bytes.TrimSpace(line))
		}
	}
}

package main

import (
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxSynopsisWords bounds the first sentence of a package's comment, the
// synopsis that go doc and pkg.go.dev show beside the package's name: a
// reader takes it in at a glance, and the rest of the comment goes below.
const maxSynopsisWords = 25

// TestPackageSynopsesAreShort holds every package of the module to a
// package comment whose first sentence is at most maxSynopsisWords words.
func TestPackageSynopsesAreShort(t *testing.T) {
	t.Parallel()
	synopses := packageSynopses(t)
	if len(synopses) < 10 {
		t.Fatalf("found only %d packages", len(synopses))
	}
	for dir, s := range synopses {
		switch n := len(strings.Fields(s)); {
		case s == "":
			t.Errorf("%s: no package comment (// Package ... before its package clause)", dir)
		case n > maxSynopsisWords:
			t.Errorf("%s: the package comment's first sentence is %d words, want at most %d (the rest goes below it):\n\t%s", dir, n, maxSynopsisWords, s)
		}
	}
}

// packageSynopses returns the synopsis of every package of the module's
// own directories (not testdata, nor another module such as an example's),
// by directory.
func packageSynopses(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != "." {
			return filepath.SkipDir // another module
		}
		text, found, err := packageDoc(path)
		if err != nil {
			return err
		}
		if found {
			out[filepath.ToSlash(path)] = new(doc.Package).Synopsis(text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// packageDoc returns the package comment of the Go package in dir (its
// files that are not tests), and whether dir holds one.
func packageDoc(dir string) (text string, found bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false, err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return "", false, err
		}
		found = true
		if f.Doc != nil && text == "" {
			text = f.Doc.Text()
		}
	}
	return text, found, nil
}

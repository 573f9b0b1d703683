package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSecurityPromisesHeld holds SECURITY.md to the tests: every promise
// under "What kesoku promises" names at least one test ("Held by:"), and
// every test it names exists, as a Go test function in the package it
// names or as a script under testdata/script. A test renamed or removed
// fails here until the page says what holds the promise now.
func TestSecurityPromisesHeld(t *testing.T) {
	data, err := os.ReadFile("SECURITY.md")
	if err != nil {
		t.Fatal(err)
	}
	_, promises, ok := strings.Cut(string(data), "## What kesoku promises")
	if !ok {
		t.Fatal(`SECURITY.md has no "## What kesoku promises" section`)
	}
	goTest := regexp.MustCompile("`([a-z][a-z0-9/]*): (Test\\w+)`")
	script := regexp.MustCompile("`([a-z0-9_]+\\.txtar)`")
	n := 0
	for _, item := range strings.Split(promises, "\n- ")[1:] {
		n++
		first, _, _ := strings.Cut(item, "\n")
		_, held, ok := strings.Cut(item, "Held by:")
		if !ok {
			t.Errorf("SECURITY.md: the promise %q names no test (Held by: ...)", first)
			continue
		}
		refs := 0
		for _, m := range goTest.FindAllStringSubmatch(held, -1) {
			refs++
			if !hasTest(t, m[1], m[2]) {
				t.Errorf("SECURITY.md: %s names %s in %s, which has no such test", first, m[2], m[1])
			}
		}
		for _, m := range script.FindAllStringSubmatch(held, -1) {
			refs++
			if _, err := os.Stat(filepath.Join("testdata", "script", m[1])); err != nil {
				t.Errorf("SECURITY.md: %s names the script %s: %v", first, m[1], err)
			}
		}
		if refs == 0 {
			t.Errorf("SECURITY.md: the promise %q has a Held by: line that names no test", first)
		}
	}
	if n < 10 {
		t.Errorf("SECURITY.md holds %d promises; the section was not read as meant", n)
	}
}

// hasTest reports whether a _test.go file in dir declares func name.
func hasTest(t *testing.T, dir, name string) bool {
	files, err := filepath.Glob(filepath.Join(filepath.FromSlash(dir), "*_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	decl := regexp.MustCompile(`(?m)^func ` + name + `\(t \*testing\.T\)`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if decl.Match(data) {
			return true
		}
	}
	return false
}

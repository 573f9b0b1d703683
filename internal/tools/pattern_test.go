package tools

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpandBraces(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"a", []string{"a"}},
		{"*.{ts,tsx}", []string{"*.ts", "*.tsx"}},
		{"{a,b}{c,d}", []string{"ac", "ad", "bc", "bd"}},
		{"{a,{b,c}}x", []string{"ax", "bx", "cx"}},
		{"{a}", []string{"{a}"}},
		{"{a{b,c}}", []string{"{ab}", "{ac}"}},
		{"{a,b", []string{"{a,b"}},
		{"a,b}", []string{"a,b}"}},
		{`\{a,b}`, []string{`\{a,b}`}},
		{"{,x}y", []string{"y", "xy"}},
		{"src/{a,b}/**/*.{go,md}", []string{"src/a/**/*.go", "src/a/**/*.md", "src/b/**/*.go", "src/b/**/*.md"}},
	}
	for _, tt := range tests {
		got, err := expandBraces(tt.in)
		if err != nil {
			t.Errorf("expandBraces(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("expandBraces(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
	if _, err := expandBraces(strings.Repeat("{a,b,c}", 6)); err == nil {
		t.Errorf("expandBraces of 3^6 alternatives succeeded")
	}
}

func TestGlobMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{"*.go", []string{"a.go", ".x.go"}, []string{"a/b.go", "a.gox"}},
		{"**/*.go", []string{"a.go", "a/b.go", "a/b/c.go"}, []string{"a.txt", "a/b.txt"}},
		{"a/**", []string{"a/x", "a/x/y"}, []string{"b/x"}},
		{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"a/x/c", "b"}},
		{"**/a/**/b/**", []string{"a/b/c", "x/a/y/b/z"}, []string{"b/a/c"}},
		{"**", []string{"a", "a/b"}, nil},
		{"*/x", []string{"a/x"}, []string{"x", "a/b/x"}},
		{"?.{c,h}", []string{"a.c", "b.h"}, []string{"ab.c", "a.cc"}},
		{"[a-c]*.txt", []string{"a.txt", "cz.txt"}, []string{"d.txt"}},
		{"./a//b/", []string{"a/b"}, []string{"a"}},
		{"**/**/**/x", []string{"x", "a/x", "a/b/c/x"}, []string{"a/y"}},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Errorf("compileGlob(%q): %v", tt.pattern, err)
			continue
		}
		for _, m := range tt.match {
			if !g.match(m) {
				t.Errorf("%q does not match %q", tt.pattern, m)
			}
		}
		for _, m := range tt.noMatch {
			if g.match(m) {
				t.Errorf("%q matches %q", tt.pattern, m)
			}
		}
	}
	for _, bad := range []string{"", "[", "a/[b", `x\`} {
		if _, err := compileGlob(bad); err == nil {
			t.Errorf("compileGlob(%q) succeeded", bad)
		}
	}
}

func TestMayMatchBelow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		dir     string
		want    bool
	}{
		{"*.go", "a", false},
		{"*/*.go", "a", true},
		{"*/*.go", "a/b", false},
		{"a/*/c", "a/x", true},
		{"a/*/c", "b", false},
		{"a/**/c", "a/x/y/z", true},
		{"**/c", "x", true},
		{"{a,b}/c", "b", true},
	}
	for _, tt := range tests {
		g, err := compileGlob(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.mayMatchBelow(tt.dir); got != tt.want {
			t.Errorf("%q.mayMatchBelow(%q) = %v, want %v", tt.pattern, tt.dir, got, tt.want)
		}
	}
}

func TestMatchFile(t *testing.T) {
	t.Parallel()
	g, err := compileGlob("{*.go,cmd/**/*.md}")
	if err != nil {
		t.Fatal(err)
	}
	for rel, want := range map[string]bool{
		"a.go": true, "x/y/a.go": true, "cmd/a.md": true, "cmd/x/a.md": true, "x/cmd/a.md": false, "a.md": false,
	} {
		if got := g.matchFile(rel); got != want {
			t.Errorf("matchFile(%q) = %v, want %v", rel, got, want)
		}
	}
}

// FuzzGlob compiles random patterns and matches them against random
// paths: no panic, and a compiled pattern's literal path matches itself.
func FuzzGlob(f *testing.F) {
	for _, s := range []string{"**/*.go", "{a,b}/{c,{d,e}}", "[", "a/**/b/**/c", `\{x}`, "{{{{", "}}}{,}", "?*[!a-z]"} {
		f.Add(s, "a/b/c.go")
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		g, err := compileGlob(pattern)
		if err != nil {
			return
		}
		g.match(name)
		g.matchFile(name)
		g.mayMatchBelow(name)
		if !strings.ContainsAny(pattern, `*?[\{},`) && len(splitPattern(pattern)) > 0 {
			lit := strings.Join(splitPattern(pattern), "/")
			if !g.match(lit) {
				t.Errorf("literal pattern %q does not match %q", pattern, lit)
			}
		}
	})
}

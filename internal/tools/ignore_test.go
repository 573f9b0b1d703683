package tools

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestIgnoreSet(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		".gitignore":          {Data: []byte("# comment\n\n*.log\n!keep.log\nbuild/\n/top.txt\ndocs/*.tmp\n\\#hash\nsp \n**/gen/**\n")},
		"sub/.gitignore":      {Data: []byte("!x.log\nlocal\n")},
		"sub/deep/.gitignore": {Data: []byte("*.log\n")},
	}
	s := newIgnoreSet(fsys)
	tests := []struct {
		name  string
		isDir bool
		want  bool
	}{
		{"a.log", false, true},
		{"keep.log", false, false},
		{"x/y/z.log", false, true},
		{"build", true, true},
		{"build", false, false}, // a file called build: the rule is for directories
		{"x/build", true, true},
		{"top.txt", false, true},
		{"sub/top.txt", false, false}, // anchored to the top
		{"docs/a.tmp", false, true},
		{"docs/x/a.tmp", false, false},
		{"x/docs/a.tmp", false, false},
		{"#hash", false, true},
		{"sp", false, true}, // trailing spaces are not part of the pattern
		{"a/gen/b.go", false, true},
		{"sub/x.log", false, false},     // re-included below
		{"sub/y.log", false, true},      // still ignored from above
		{"sub/deep/x.log", false, true}, // the deeper file decides
		{"sub/local", true, true},
		{"sub/a/local", false, true},
		{"local", false, false}, // sub's rule does not reach up
		{"main.go", false, false},
	}
	for _, tt := range tests {
		if got := s.ignored(tt.name, tt.isDir); got != tt.want {
			t.Errorf("ignored(%q, dir=%v) = %v, want %v", tt.name, tt.isDir, got, tt.want)
		}
	}
}

func TestParseIgnoreSkipsMalformed(t *testing.T) {
	t.Parallel()
	rules := parseIgnore(strings.NewReader("[\nok\n"))
	if len(rules) != 1 {
		t.Errorf("got %d rules, want 1 (the malformed one dropped)", len(rules))
	}
}

// FuzzParseIgnore parses random .gitignore files and matches a path
// against them: no panic.
func FuzzParseIgnore(f *testing.F) {
	f.Add("*.log\n!keep.log\nbuild/\n/top\n**/x/**\n", "a/b/c.log")
	f.Add("\\!x\n[\n\n#\n/\n!\n", "x")
	f.Fuzz(func(t *testing.T, data, name string) {
		s := newIgnoreSet(fstest.MapFS{".gitignore": {Data: []byte(data)}})
		s.ignored(strings.Trim(name, "/"), false)
		s.ignored(strings.Trim(name, "/"), true)
	})
}

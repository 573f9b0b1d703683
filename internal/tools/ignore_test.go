package tools

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
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

// TestIgnoreAgreesWithGit builds one tree with .gitignore files and holds
// the walk's idea of what is ignored to git's: the files a walk that
// skips ignored entries (and ignored directories whole) keeps are exactly
// the untracked files git ls-files --others --exclude-standard lists.
func TestIgnoreAgreesWithGit(t *testing.T) {
	t.Parallel()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	ignores := map[string]string{
		".gitignore": "# comment\n\n*.log\n!keep.log\nbuild/\n/top.txt\ndocs/*.tmp\n\\#hash\n\\!bang\nsp \n**/gen/**\n" +
			"a/**/b.txt\n[xy]z.dat\n[!q]q.dat\n{a,b}.txt\nlit**al\nout/\n!out/keep.txt\nonly/*/\n",
		"sub/.gitignore":      "!x.log\nlocal\nnested/deep/\n*.bak\n!important.bak\n",
		"sub/deep/.gitignore": "*.log\n!*.bak\n",
	}
	files := []string{
		"main.go", "a.log", "keep.log", "x/y/z.log", "x/y/keep.log",
		"build/out.o", "x/build/out.o", "build.txt", "top.txt", "sub/top.txt",
		"docs/a.tmp", "docs/x/a.tmp", "x/docs/a.tmp", "#hash", "!bang", "sp",
		"a/gen/b.go", "gen/c.go", "a/b.txt", "a/x/y/b.txt", "b.txt", "x/a/b.txt",
		"xz.dat", "zz.dat", "aq.dat", "qq.dat", "{a,b}.txt", "a.txt",
		"litxyzal", "lit/al", "out/a.txt", "out/keep.txt",
		"only/f", "only/d/f", "only/d/e/f",
		"sub/x.log", "sub/y.log", "sub/local", "sub/a/local/f", "local",
		"sub/nested/deep/f", "sub/nested/f", "sub/deep/x.log", "sub/deep/k.bak",
		"sub/a.bak", "sub/important.bak",
	}
	write := func(name, data string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range ignores {
		write(name, data)
	}
	for _, name := range files {
		write(name, "")
	}
	git := func(args ...string) string {
		t.Helper()
		c := exec.Command(gitPath, args...)
		c.Dir = dir
		// Nothing of the machine's git set-up (a global excludes file) may
		// take part.
		c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "HOME="+dir)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	git("init", "-q")
	want := strings.Split(strings.TrimSuffix(git("ls-files", "--others", "--exclude-standard", "-z"), "\x00"), "\x00")
	slices.Sort(want)
	if len(want) < 10 {
		t.Fatalf("git keeps only %q", want)
	}

	fsys := os.DirFS(dir)
	s := newIgnoreSet(fsys)
	var got []string
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case p == ".":
			return nil
		case d.IsDir() && d.Name() == ".git":
			return fs.SkipDir
		case s.ignored(p, d.IsDir()) && d.IsDir():
			return fs.SkipDir
		case s.ignored(p, d.IsDir()):
			return nil
		case !d.IsDir():
			got = append(got, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("files kept mismatch (-git +ours):\n%s", diff)
	}
}

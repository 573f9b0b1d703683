package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// secret is what every file outside the workspace holds: no tool may ever
// return it.
const secret = "SECRET-outside-the-workspace"

// fixture is a workspace for the tools: an AWD, staging outside it, and a
// directory outside both, with links that lead out.
type fixture struct {
	awd, staging, outside string
	tc                    *registry.ToolContext
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{awd: t.TempDir(), staging: t.TempDir(), outside: t.TempDir()}
	f.tc = &registry.ToolContext{AWD: f.awd, Staging: f.staging, SessionID: "test"}
	writeFiles(t, f.outside, map[string]string{
		"secret":          secret + "\n",
		"dir/inner.txt":   secret + "\n",
		"dir/inner.go":    "package x // " + secret + "\n",
		"dir/deep/x.go":   "package x // " + secret + "\n",
		"dir/.gitignore":  "",
		"dir/README.md":   secret + "\n",
		"dir/data/a.json": `{"s": "` + secret + `"}`,
	})
	relOut, err := filepath.Rel(f.awd, f.outside)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.MkdirAll(filepath.Join(f.awd, "sub"), 0o755))
	links := map[string]string{
		"out-file":     filepath.Join(f.outside, "secret"),
		"out-file-rel": filepath.Join(relOut, "secret"),
		"out-dir":      filepath.Join(f.outside, "dir"),
		"out-dir-rel":  filepath.Join(relOut, "dir"),
		"sub/out-mid":  filepath.Join("..", relOut),
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(f.awd, name)))
	}
	return f
}

// escapes are path arguments that lead out of the fixture's workspace,
// each in its own way. Every file tool must refuse every one of them as
// an invalid argument.
func (f *fixture) escapes() map[string]string {
	return map[string]string{
		"dot-dot":                  "../secret",
		"dot-dot deep":             "sub/../../secret",
		"dot-dot only":             "..",
		"absolute outside":         filepath.Join(f.outside, "secret"),
		"absolute outside dir":     filepath.Join(f.outside, "dir"),
		"absolute root":            "/",
		"link to file outside":     "out-file",
		"rel link to file outside": "out-file-rel",
		"link to dir outside":      "out-dir",
		"file under link to dir":   "out-dir/inner.txt",
		"rel link to dir outside":  "out-dir-rel/inner.txt",
		"link in the middle":       "sub/out-mid/dir/inner.txt",
		"link in the middle, dir":  "sub/out-mid/dir",
	}
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(data), 0o644))
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// assertInvalidArg fails unless err marks the argument arg as invalid and
// its message contains want.
func assertInvalidArg(t testing.TB, err error, arg, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want an invalid argument %q", arg)
	}
	if !toolspec.IsInvalidArgs(err) {
		t.Fatalf("error %q is not an invalid argument", err)
	}
	if !strings.HasPrefix(err.Error(), "args."+arg+":") {
		t.Errorf("error %q does not name the argument %q", err, arg)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err, want)
	}
}

// assertOutsideIntact fails when anything outside the workspace changed.
func (f *fixture) assertOutsideIntact(t testing.TB) {
	t.Helper()
	var n int
	err := filepath.WalkDir(f.outside, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !strings.Contains(string(data), secret) && filepath.Base(p) != ".gitignore" {
			t.Errorf("%s outside the workspace now holds %q", p, data)
		}
		return nil
	})
	must(t, err)
	if n != 7 {
		t.Errorf("outside the workspace: %d files, want 7", n)
	}
}

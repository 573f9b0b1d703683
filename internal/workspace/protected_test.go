package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProtected registers kesoku's own files — an output being written,
// a config file that is not there yet, a config directory — and checks
// that no write reaches them, under any name, while reads still do.
func TestProtected(t *testing.T) {
	t.Parallel()
	awd := t.TempDir()
	out := filepath.Join(awd, "out.jsonl")
	must(t, os.WriteFile(out, []byte("{}\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(awd, ".config", "kesoku"), 0o755))
	must(t, os.MkdirAll(filepath.Join(awd, "sub"), 0o755))
	must(t, os.Symlink("out.jsonl", filepath.Join(awd, "link")))
	must(t, os.Symlink(".config", filepath.Join(awd, "cfg")))
	must(t, os.Symlink(filepath.Join(awd, "kesoku.yaml"), filepath.Join(awd, "dangling")))
	if err := os.Link(out, filepath.Join(awd, "hard")); err != nil {
		t.Logf("no hard link: %v", err)
	}
	w, err := New(awd, "",
		Protected{Path: out, Why: "this run writes its records to it"},
		Protected{Path: filepath.Join(awd, "kesoku.yaml"), Why: "it is the config file"},
		Protected{Path: filepath.Join(awd, ".config", "kesoku"), Why: "it is the user's config directory"},
	)
	must(t, err)
	defer w.Close()

	refused := map[string]string{
		"out.jsonl":                         "writes its records",
		"./sub/../out.jsonl":                "writes its records",
		out:                                 "writes its records",
		"link":                              "writes its records",
		"kesoku.yaml":                       "config file",
		"dangling":                          "config file",
		".config/kesoku/config.yaml":        "config directory",
		".config/kesoku/trusted/x":          "config directory",
		"cfg/kesoku/config.yaml":            "config directory",
		filepath.Join(awd, "cfg", "kesoku"): "config directory",
	}
	if _, err := os.Stat(filepath.Join(awd, "hard")); err == nil {
		refused["hard"] = "writes its records"
	}
	for name, why := range refused {
		for op, write := range map[string]func(string, []byte) (Location, error){"WriteFile": w.WriteFile, "AppendFile": w.AppendFile} {
			_, err := write(name, []byte("pwned\x00"))
			if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), why) {
				t.Errorf("%s(%q) error = %v, want ErrReadOnly saying %q", op, name, err, why)
			}
		}
	}
	if data, _ := os.ReadFile(out); string(data) != "{}\n" {
		t.Errorf("the output changed: %q", data)
	}
	for _, name := range []string{"kesoku.yaml", ".config/kesoku/config.yaml"} {
		if _, err := os.Lstat(filepath.Join(awd, name)); err == nil {
			t.Errorf("%s was created", name)
		}
	}
	if f, err := w.Open("out.jsonl"); err != nil {
		t.Errorf("reading a protected file: %v", err)
	} else {
		f.Close()
	}
	for _, name := range []string{"out.jsonl.bak", ".config/other", "kesoku.yaml.txt"} {
		if _, err := w.WriteFile(name, []byte("x")); err != nil {
			t.Errorf("WriteFile(%q) beside a protected file: %v", name, err)
		}
	}
}

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The AWD's .kesoku holds the transcript being written and the saved
// outputs: tools read it but never write it, directly or through a link.
func TestKesokuDirReadOnly(t *testing.T) {
	t.Parallel()
	awd := t.TempDir()
	sessions := filepath.Join(awd, ".kesoku", "sessions")
	if err := os.MkdirAll(sessions, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, "s.jsonl"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".kesoku/sessions", filepath.Join(awd, "ln")); err != nil {
		t.Fatal(err)
	}
	w, err := New(awd, "")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, name := range []string{".kesoku/sessions/s.jsonl", ".kesoku/new", filepath.Join(sessions, "s.jsonl"), "ln/s.jsonl", "ln/new"} {
		_, err := w.WriteFile(name, []byte("x"))
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), ".kesoku") {
			t.Errorf("WriteFile(%q) error = %v, want ErrReadOnly naming .kesoku", name, err)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(sessions, "s.jsonl")); string(data) != "{}\n" {
		t.Errorf("the transcript changed: %q", data)
	}
	if _, err := w.Open(".kesoku/sessions/s.jsonl"); err != nil {
		t.Errorf("reading .kesoku: %v", err)
	}
	if _, err := w.WriteFile("kesoku-notes.txt", []byte("x")); err != nil {
		t.Errorf("a write next to .kesoku: %v", err)
	}
}

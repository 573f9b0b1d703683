//go:build unix

package workspace

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenFIFO names a FIFO: Open must refuse it rather than block until
// a writer comes.
func TestOpenFIFO(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.awd, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	w := f.open(t)
	_, err := w.Open("pipe")
	if err == nil || !strings.Contains(err.Error(), `path "pipe": is not a regular file`) {
		t.Errorf("Open(pipe) error = %v, want \"is not a regular file\"", err)
	}
	if _, err := w.Open("sub"); err != nil {
		t.Errorf("Open of a directory: %v", err)
	}
}

//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestWriteFIFO names a FIFO to write: opening one for writing blocks
// until a reader comes, so WriteFile and AppendFile must refuse it, as
// Open does, and never open it.
func TestWriteFIFO(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.awd, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	must(t, os.Symlink("pipe", filepath.Join(f.awd, "to-pipe")))
	w := f.open(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for _, name := range []string{"pipe", "to-pipe"} {
			for op, write := range map[string]func(string, []byte) (Location, error){"WriteFile": w.WriteFile, "AppendFile": w.AppendFile} {
				_, err := write(name, []byte("x"))
				if err == nil || !strings.Contains(err.Error(), `is not a regular file`) {
					t.Errorf("%s(%s) error = %v, want \"is not a regular file\"", op, name, err)
				}
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("writing a FIFO still blocks after 10s: it was opened")
	}
}

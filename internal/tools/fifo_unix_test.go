//go:build unix

package tools

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFIFORefused names a FIFO: opening one would block until a writer
// came, so the tools must refuse it before opening.
func TestFIFORefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.awd, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ctx := context.Background()
	if _, err := ReadFile(ctx, f.tc, "pipe", 1, 10); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("read_file of a FIFO: error = %v, want \"not a regular file\"", err)
	}
	if _, err := Grep(ctx, f.tc, "x", "pipe", "", false, 10); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("grep of a FIFO: error = %v, want \"not a regular file\"", err)
	}
	// Opening a FIFO for writing blocks until a reader comes; a run with
	// --timeout would leak a thread and two descriptors per call.
	for _, app := range []bool{false, true} {
		if _, err := WriteFile(context.Background(), f.tc, "pipe", "x", app); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("write_file (append %v) of a FIFO: error = %v, want \"not a regular file\"", app, err)
		}
	}
	// A walk meets the FIFO and passes it by.
	if _, err := Grep(ctx, f.tc, "x", "", "", false, 10); err != nil {
		t.Errorf("grep of a tree holding a FIFO: %v", err)
	}
}

// TestFIFOGitignore puts a FIFO where a walk looks for .gitignore rules:
// the walk must pass it by rather than wait for a writer that never comes.
func TestFIFOGitignore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.awd, ".gitignore"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Grep(context.Background(), f.tc, "x", "", "", false, 10)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("grep of a tree whose .gitignore is a FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("grep of a tree whose .gitignore is a FIFO still runs after 10s: it opened the FIFO")
	}
}

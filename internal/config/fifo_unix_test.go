//go:build unix

package config

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFIFO: a kesoku.yaml that is a FIFO is refused, not opened: opening
// it would block every command until a writer came.
func TestFIFO(t *testing.T) {
	t.Parallel()
	awd := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(awd, FileName), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := Load(Options{AWD: awd, Keys: keys})
	if err == nil || !strings.HasSuffix(err.Error(), FileName+": not a regular file") {
		t.Errorf("error = %v, want \"not a regular file\"", err)
	}
}

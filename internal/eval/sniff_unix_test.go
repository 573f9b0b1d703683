//go:build unix

package eval

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestIsCaseFileOfAFIFO: a FIFO nothing writes to is no eval file, said
// at once: it is not opened, which would wait for a writer.
func TestIsCaseFileOfAFIFO(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "cases.yaml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if IsCaseFile(path) {
		t.Error("a FIFO is taken for an eval file")
	}
}

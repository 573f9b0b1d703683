//go:build unix

package request

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCountLeavesAPipeAlone counts a named pipe: reading it again would
// take its requests from the run, so Count does not.
func TestCountLeavesAPipeAlone(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.WriteString("{\"name\": \"a\"}\n{\"name\": \"b\"}\n")
	}()
	f, err := Open(context.Background(), path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := f.Count(context.Background()); n != -1 || err != nil {
		t.Errorf("Count of a named pipe = %d, %v; want -1", n, err)
	}
	var names []string
	for r := range f.Requests() {
		names = append(names, r.Name)
	}
	if diff := cmp.Diff([]string{"a", "b"}, names); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}

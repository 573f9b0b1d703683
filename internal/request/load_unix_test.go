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

// TestOpenAFIFOWithoutAWriterIsCancelled: a named pipe nothing writes to
// yet is waited for only as long as ctx allows (an interrupt ends the
// wait), and a writer that never writes is left when ctx ends, as
// standard input is.
func TestOpenAFIFOWithoutAWriterIsCancelled(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if f, err := Open(ctx, path, "", nil); err == nil {
		f.Close()
		t.Fatal("Open of a FIFO nothing writes to, interrupted: no error")
	}

	// A writer that opens and then says nothing: reading ends with ctx.
	opened := make(chan *os.File, 1)
	go func() {
		w, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			opened <- nil
			return
		}
		opened <- w
	}()
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		f, err := Open(ctx, path, FormatYAML, nil)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	w := <-opened
	if w == nil {
		t.Fatal("the writer could not open the FIFO")
	}
	defer w.Close()
	cancel()
	if err := <-done; err == nil {
		t.Error("Open of a FIFO whose writer says nothing, interrupted: no error")
	}
}

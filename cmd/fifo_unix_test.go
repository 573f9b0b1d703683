//go:build unix

package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kesoku/kesoku/internal/app/apptest"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
)

// fifo makes a named pipe in dir that nothing writes to.
func fifo(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	return path
}

// runCancelled runs kesoku with args under a context already cancelled,
// as after an interrupt: a command that waited on a FIFO's open would
// never return.
func runCancelled(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}, AWD: dir, Signals: (&apptest.Signals{}).Source}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return run(ctx, g, args), errOut.String()
}

// TestDiffFIFOWithoutAWriter: diff given a FIFO nothing writes to waits
// for its writer only until it is interrupted, as run does.
func TestDiffFIFOWithoutAWriter(t *testing.T) {
	dir := t.TempDir()
	pipe := fifo(t, dir, "old.jsonl")
	other := filepath.Join(dir, "new.jsonl")
	os.WriteFile(other, nil, 0o644)
	if code, stderr := runCancelled(t, dir, "diff", pipe, other); code != ExitInterrupted {
		t.Errorf("diff of a FIFO, interrupted: exit %d, want %d; stderr:\n%s", code, ExitInterrupted, stderr)
	}
}

// TestValidateFIFO: validate reads a FIFO as run does, once (kesoku
// validate <(...)): its look for an eval file neither opens it, which
// would wait for a writer, nor takes its start from the reader.
func TestValidateFIFO(t *testing.T) {
	dir := t.TempDir()
	pipe := fifo(t, dir, "requests.jsonl")
	go func() {
		// Opened when validate opens it to read.
		w, err := os.OpenFile(pipe, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.WriteString(`{"name":"read_file","args":{"path":"a.txt"}}` + "\n")
		w.Close()
	}()
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}, AWD: dir, Signals: (&apptest.Signals{}).Source}
	if code := run(context.Background(), g, []string{"validate", pipe}); code != ExitOK || !strings.Contains(errOut.String(), "1 request") {
		t.Errorf("validate of a FIFO: exit %d; stderr:\n%s", code, errOut.String())
	}
}

// TestBatchSubmitRefusesAFIFO: a batch reads its request file again
// (collect does), which a FIFO cannot give: submit refuses one before it
// opens it, and sends nothing.
func TestBatchSubmitRefusesAFIFO(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	srv := llmtest.NewServer(llmtest.Claude, "test-key", llmtest.Reply{Text: "never"})
	defer srv.Close()
	dir := t.TempDir()
	pipe := fifo(t, dir, "requests.jsonl")
	code, _, stderr := batchIn(t, dir, &apptest.Signals{}, "submit", pipe, "--model", "claude-sonnet-4-5", "--base-url", srv.URL)
	if code != ExitUsage || !strings.Contains(stderr, "requests.jsonl is a FIFO, not a regular file") {
		t.Errorf("submit of a FIFO: exit %d, want %d; stderr:\n%s", code, ExitUsage, stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

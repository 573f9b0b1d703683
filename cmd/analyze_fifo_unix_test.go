//go:build unix

package cmd

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kesoku/kesoku/internal/llm/llmtest"
)

// TestAnalyzeRefusesAFIFO: opening a FIFO would wait for a writer for
// ever; analyze checks the type first.
func TestAnalyzeRefusesAFIFO(t *testing.T) {
	setKeys(t)
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(llmtest.Gemini, analyzeKey, llmtest.Reply{Text: "never"})
	defer srv.Close()
	for _, extra := range [][]string{nil, {"--json"}} {
		args := append([]string{"analyze", pipe, "--model", "gemini-test", "--base-url", srv.URL}, extra...)
		stdout, stderr, code := kesoku(t, args...)
		if code != 2 || !strings.Contains(stderr+stdout, "pipe is not a regular file (a named pipe)") {
			t.Errorf("kesoku %v = %d, stdout %q, stderr %q; want 2 saying it is a named pipe", args, code, stdout, stderr)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests, want none", n)
	}
}

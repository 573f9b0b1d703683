package cmd

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/message"
)

// progressBuffer is a bytes.Buffer the bar's ticker may write while the test
// reads.
type progressBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *progressBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *progressBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	ok := &message.Record{}
	failed := &message.Record{IsError: true}
	tests := []struct {
		name         string
		tty, quiet   bool
		wantBar      bool
		wantInOutput []string
	}{
		{"terminal", true, false, true, []string{"3/10", "1 failed", "req/s"}},
		{"pipe", false, false, false, nil},
		{"terminal, quiet", true, true, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var errOut progressBuffer
			g := &Globals{IO: &IOStreams{Err: &errOut, ErrTTY: tt.tty}, Quiet: tt.quiet}
			p := newProgress(g, 10, "running")
			for _, rec := range []*message.Record{ok, failed, ok} {
				p.record(rec)
			}
			if got := p.done.Load(); got != 3 || p.failed.Load() != 1 {
				t.Errorf("counted %d done, %d failed; want 3 and 1", got, p.failed.Load())
			}
			if (p.bar != nil) != tt.wantBar {
				t.Fatalf("bar drawn: %v, want %v", p.bar != nil, tt.wantBar)
			}
			if tt.wantBar {
				deadline := time.Now().Add(5 * time.Second)
				for !strings.Contains(errOut.String(), "3/10") && time.Now().Before(deadline) {
					time.Sleep(10 * time.Millisecond)
				}
			}
			p.finish()
			out := errOut.String()
			for _, want := range tt.wantInOutput {
				if !strings.Contains(out, want) {
					t.Errorf("progress output %q does not show %q", out, want)
				}
			}
			if !tt.wantBar && out != "" {
				t.Errorf("wrote %q to a non-terminal", out)
			}
		})
	}
}

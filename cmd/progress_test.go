package cmd

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kesoku/kesoku/message"
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
			g := &globals{IO: &ioStreams{Err: &errOut, ErrTTY: tt.tty}, Quiet: tt.quiet}
			p := newProgress(g, 10, "running", nil)
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

// TestProgressKeepsRecordsOffTheBar writes records to the terminal the bar
// is on (standard output and error both the one terminal): every record
// starts on a line the bar was cleared from, and the bar comes back below.
func TestProgressKeepsRecordsOffTheBar(t *testing.T) {
	t.Parallel()
	var tty progressBuffer
	g := &globals{IO: &ioStreams{Out: &tty, Err: &tty, OutTTY: true, ErrTTY: true}}
	p := newProgress(g, 10, "running", nil)
	out := p.around(&tty, true)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(tty.String(), "0/10") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	const rec = "{\"id\":\"1\"}\n"
	if _, err := io.WriteString(out, rec); err != nil {
		t.Fatal(err)
	}
	p.finish()
	screen := tty.String()
	i := strings.Index(screen, rec)
	if i < 0 {
		t.Fatalf("the record is not on the terminal: %q", screen)
	}
	if !strings.HasSuffix(screen[:i], clearLine) {
		t.Errorf("the record was written on the bar's line: %q", screen)
	}
	if after := screen[i+len(rec):]; !strings.Contains(after, "0/10") {
		t.Errorf("the bar was not drawn again below the record: %q", after)
	}
	var other bytes.Buffer
	if p.around(&other, false) != io.Writer(&other) {
		t.Errorf("records that do not go to the terminal were wrapped")
	}
}

// TestProgressTotalShrinksBySkipped checks that requests skipped by
// --resume come off the bar's total rather than counting as done.
func TestProgressTotalShrinksBySkipped(t *testing.T) {
	t.Parallel()
	var errOut progressBuffer
	g := &globals{IO: &ioStreams{Err: &errOut, ErrTTY: true}}
	p := newProgress(g, 10, "running", nil)
	defer p.finish()
	p.skip()
	p.skip()
	p.record(&message.Record{})
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(errOut.String(), "1/8") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := p.bar.GetMax64(); got != 8 {
		t.Errorf("bar total = %d, want 10 less 2 skipped", got)
	}
	if s := errOut.String(); !strings.Contains(s, "1/8") || !strings.Contains(s, "2 skipped") {
		t.Errorf("bar %q does not show 1/8 and the skipped", s)
	}
}

// TestProgressTotalLeavesOutOtherRecords checks that the records of a
// transcript that are no requests come off the bar's total, without a
// word.
func TestProgressTotalLeavesOutOtherRecords(t *testing.T) {
	t.Parallel()
	var errOut progressBuffer
	g := &globals{IO: &ioStreams{Err: &errOut, ErrTTY: true}}
	p := newProgress(g, 10, "running", func() int64 { return 4 })
	defer p.finish()
	p.record(&message.Record{})
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(errOut.String(), "1/6") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := p.bar.GetMax64(); got != 6 {
		t.Errorf("bar total = %d, want 10 less 4 records that are no requests", got)
	}
	if s := errOut.String(); strings.Contains(s, "skipped") {
		t.Errorf("bar %q speaks of skipped requests", s)
	}
}

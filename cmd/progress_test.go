package cmd

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/config"
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

// fakeClock is a progressClock that ticks when the test says.
type fakeClock struct {
	mu       sync.Mutex
	t        time.Time
	ticks    chan time.Time
	interval time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC), ticks: make(chan time.Time)}
}

func (f *fakeClock) clock() progressClock {
	return progressClock{
		now: func() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.t },
		ticker: func(d time.Duration) (<-chan time.Time, func()) {
			f.mu.Lock()
			f.interval = d
			f.mu.Unlock()
			return f.ticks, func() {}
		},
	}
}

// advance moves the clock on by d and ticks: the send returns once the
// progress took the tick (and draws, which finish waits for).
func (f *fakeClock) advance(d time.Duration) {
	f.mu.Lock()
	f.t = f.t.Add(d)
	t := f.t
	f.mu.Unlock()
	f.ticks <- t
}

func TestProgressOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	ok := &message.Record{}
	failed := &message.Record{IsError: true}
	tests := []struct {
		name         string
		tty, quiet   bool
		verbose      bool
		interval     time.Duration
		wantInOutput []string
	}{
		{"terminal", true, false, false, barInterval, []string{"3/10", "1 failed", "18.0 req/min", "eta 23s"}},
		{"log", false, false, false, logInterval, []string{"kesoku: running: 3/10 done, 1 failed, 18.0 req/min, eta 23s, after 10s\n"}},
		{"log, verbose", false, false, true, verboseInterval, []string{"kesoku: running: 3/10 done, 1 failed, 18.0 req/min, eta 23s, after 10s\n"}},
		{"terminal, quiet", true, true, false, 0, nil},
		{"log, quiet", false, true, false, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var errOut progressBuffer
			g := &globals{IO: &ioStreams{Err: &errOut, ErrTTY: tt.tty}, Quiet: tt.quiet, Verbose: tt.verbose}
			fc := newFakeClock()
			p := newProgressClock(g, 10, "running", nil, fc.clock())
			for _, rec := range []*message.Record{ok, failed, ok} {
				p.record(rec)
			}
			if got := p.done.Load(); got != 3 || p.failed.Load() != 1 {
				t.Errorf("counted %d done, %d failed; want 3 and 1", got, p.failed.Load())
			}
			if fc.interval != tt.interval {
				t.Errorf("ticks every %v, want %v", fc.interval, tt.interval)
			}
			if !tt.tty && errOut.String() != "" {
				t.Errorf("wrote %q to a log before the first tick", errOut.String())
			}
			if !tt.quiet {
				fc.advance(10 * time.Second)
			}
			p.finish()
			out := errOut.String()
			for _, want := range tt.wantInOutput {
				if !strings.Contains(out, want) {
					t.Errorf("progress output %q does not show %q", out, want)
				}
			}
			if tt.quiet && out != "" {
				t.Errorf("wrote %q with -q", out)
			}
			if !tt.tty && strings.Contains(out, "\033") {
				t.Errorf("wrote a terminal's codes to a log: %q", out)
			}
		})
	}
}

// TestProgressLogUnknownTotal: a run that reads standard input has no
// total: the log says what was done, and how fast, without an eta.
func TestProgressLogUnknownTotal(t *testing.T) {
	t.Parallel()
	var errOut progressBuffer
	g := &globals{IO: &ioStreams{Err: &errOut}}
	fc := newFakeClock()
	p := newProgressClock(g, -1, "running", nil, fc.clock())
	fc.advance(10 * time.Second)
	for range 1200 {
		p.record(&message.Record{})
	}
	fc.advance(10 * time.Second)
	p.finish()
	want := "kesoku: running: 0 done, after 10s\nkesoku: running: 1200 done, 60 req/s, after 20s\n"
	if got := errOut.String(); got != want {
		t.Errorf("log %q, want %q", got, want)
	}
}

// TestProgressBarFitsTheTerminal: however long the description grows
// (failures, skips, big numbers), a frame never reaches the terminal's
// last column: a line that wrapped would leave the frame before it on
// the line above, a staircase of stale bars.
func TestProgressBarFitsTheTerminal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cols                   int
		total, skipped, failed int
		want                   []string
	}{
		{80, 1000, 0, 3, []string{"running (3 failed)   3% |                 | 30/1000, 3.0 req/s [10s, eta 5m23s]"}},
		{80, 1000, 12, 300, []string{"running (300 failed, 12 skipped)  91% |██████ | 900/988, 90 req/s [10s, eta 1s]"}},
		{80, 1_000_000, 1234, 18930, []string{"running (18930 failed, 1234 skipped) 56789/998766, 11 req/s [1h23m, eta 22h56m]"}},
		{60, 1000, 12, 300, []string{"running (300 failed, 12 skipped) 900/988, 90 req/s, eta 1s"}},
		{40, 1000, 12, 300, nil},
		{20, 1_000_000, 1234, 18930, nil},
	} {
		var errOut progressBuffer
		g := &globals{IO: &ioStreams{Err: &errOut, ErrTTY: true, ErrCols: func() int { return tt.cols }}}
		fc := newFakeClock()
		p := newProgressClock(g, int64(tt.total), "running", nil, fc.clock())
		for range tt.skipped {
			p.skip()
		}
		done := max(30, 3*tt.failed)
		if tt.total == 1_000_000 {
			done = 56789
		}
		for i := range done {
			p.record(&message.Record{IsError: i < tt.failed})
		}
		elapsed := 10 * time.Second
		if tt.total == 1_000_000 {
			elapsed = time.Hour + 23*time.Minute
		}
		fc.advance(elapsed)
		p.finish()
		screen := errOut.String()
		for _, f := range strings.Split(screen, clearLine) {
			if w := utf8.RuneCountInString(f); w >= tt.cols {
				t.Errorf("%d columns: a frame of %d columns: %q", tt.cols, w, f)
			}
		}
		for _, want := range tt.want {
			if !strings.Contains(screen, want) {
				t.Errorf("%d columns: no frame shows %q: %q", tt.cols, want, screen)
			}
		}
	}
}

// TestProgressKeepsRecordsOffTheBar writes records to the terminal the bar
// is on (standard output and error both the one terminal): every record
// starts on a line the bar was cleared from, and the bar comes back below.
func TestProgressKeepsRecordsOffTheBar(t *testing.T) {
	t.Parallel()
	var tty progressBuffer
	g := &globals{IO: &ioStreams{Out: &tty, Err: &tty, OutTTY: true, ErrTTY: true}}
	p := newProgressClock(g, 10, "running", nil, newFakeClock().clock())
	out := p.around(&tty, true)
	if !strings.Contains(tty.String(), "0/10") {
		t.Fatalf("no bar drawn at the start: %q", tty.String())
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
	fc := newFakeClock()
	p := newProgressClock(g, 10, "running", nil, fc.clock())
	p.skip()
	p.skip()
	p.record(&message.Record{})
	fc.advance(time.Second)
	p.finish()
	if got := p.counts().max; got != 8 {
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
	fc := newFakeClock()
	p := newProgressClock(g, 10, "running", func() int64 { return 4 }, fc.clock())
	p.record(&message.Record{})
	fc.advance(time.Second)
	p.finish()
	if !strings.Contains(errOut.String(), "1/6") {
		t.Errorf("bar %q does not show 1/6", errOut.String())
	}
	if got := p.counts().max; got != 6 {
		t.Errorf("bar total = %d, want 10 less 4 records that are no requests", got)
	}
	if s := errOut.String(); strings.Contains(s, "skipped") {
		t.Errorf("bar %q speaks of skipped requests", s)
	}
}

// TestProgressOfAnEval: an eval's progress, as the sink tells it of every
// record, counts runs, judged: the verdicts passed and failed (not the
// transcripts' records), those an earlier eval finished, and what was
// spent.
func TestProgressOfAnEval(t *testing.T) {
	t.Parallel()
	spent := func() []string { return []string{"1200 tokens", "$0.0123"} }
	for _, tt := range []struct {
		name string
		tty  bool
		want string
	}{
		{"log", false, "kesoku: evaluating: 2/3 done, 1 passed, 1 failed, 1 skipped, 1200 tokens, $0.0123, 12.0 runs/min, eta 5s, after 10s\n"},
		{"terminal", true, "evaluating (1 passed, 1 failed, 1 skipped, 1200 tokens, $0.0123)  66% |"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var errOut progressBuffer
			g := &globals{IO: &ioStreams{Err: &errOut, ErrTTY: tt.tty, ErrCols: func() int { return 120 }}}
			fc := newFakeClock()
			var p app.Progress = newEvalProgress(g, 4, spent, fc.clock())
			p.Skip()
			p.Record(&message.Record{Type: message.TypeToolCall})
			p.Record(&message.Record{Type: message.TypeToolResult, IsError: true})
			p.Record(&message.Record{Type: message.TypeVerdict})
			p.Record(&message.Record{Type: message.TypeVerdict, IsError: true})
			fc.advance(10 * time.Second)
			p.Finish()
			if got := errOut.String(); !strings.Contains(got, tt.want) {
				t.Errorf("progress %q does not show %q", got, tt.want)
			}
		})
	}
}

// TestRunSaysServerStartsAboveTheBar: on a terminal, the line that says
// which MCP server a run starts (and waits for) goes above the progress
// bar, on a line the bar was cleared from, never onto the bar.
func TestRunSaysServerStartsAboveTheBar(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	conf := filepath.Join(dir, "servers.yaml")
	reqs := filepath.Join(dir, "calls.jsonl")
	if err := os.WriteFile(conf, []byte("mcpServers:\n  dead:\n    command: sh\n    args: [-c, \"exit 3\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(reqs, []byte(`{"id": "a", "name": "dead__x", "args": {}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{AWD: dir, Named: conf})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	var tty progressBuffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &tty, ErrTTY: true}, AWD: dir, config: cfg}
	c := newRunCmd(g, runRun)
	c.SetArgs([]string{reqs})
	c.SilenceUsage, c.SilenceErrors = true, true
	c.Execute()
	screen := tty.String()
	i := strings.Index(screen, "kesoku: starting the MCP server dead ")
	if i < 0 {
		t.Fatalf("the run does not say it starts the server: %q", screen)
	}
	if !strings.HasSuffix(screen[:i], clearLine) {
		t.Errorf("the line was written onto the bar: %q", screen)
	}
}

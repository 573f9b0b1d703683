package cmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/kesoku/kesoku/message"
)

// progress counts records as they are written and shows them on standard
// error from those counters on a ticker: the workers and the writer only
// add to counters, and never wait for the terminal. On a terminal it is a
// bar, redrawn in place and fitted to the terminal's width; in a log (CI,
// a pipe) it is a line every logInterval, so that a slow batch is seen to
// move; with -q it is nothing.
type progress struct {
	done, failed, skipped atomic.Int64
	// passed counts what was judged and passed (an eval's runs): shown
	// once judged is set, as are the notes of extra (what was spent).
	passed atomic.Int64
	judged bool
	extra  func() []string
	// unit is what the rate counts: requests, or an eval's runs.
	unit string
	// total is how many requests the run has (-1 when not known); the bar
	// counts to total less the skipped ones.
	total int64
	// others, when set, says how many of the lines or list elements that
	// total counted were Message records that are no requests.
	others func() int64
	what   string
	clock  progressClock
	start  time.Time
	// line is standard error under the bar, on a terminal; log is standard
	// error when it is no terminal. At most one is set.
	line *barLine
	log  io.Writer
	// cols is the terminal's width, asked at each frame: it may change.
	cols func() int
	// outTTY says standard output is a terminal: the bar's, when it is
	// drawn on one.
	outTTY   bool
	stopTick chan struct{}
	ticked   chan struct{}
	finished bool
}

// progressClock is the time the progress is measured by: the real one,
// or a test's, which ticks when the test says.
type progressClock struct {
	now func() time.Time
	// ticker returns a channel that ticks every d, and how to stop it.
	ticker func(d time.Duration) (<-chan time.Time, func())
}

var realClock = progressClock{
	now: time.Now,
	ticker: func(d time.Duration) (<-chan time.Time, func()) {
		t := time.NewTicker(d)
		return t.C, t.Stop
	},
}

const (
	// barInterval is how often the bar is redrawn on a terminal.
	barInterval = 100 * time.Millisecond
	// logInterval is how often a line of progress goes to a log: often
	// enough that a CI job is seen to be alive (and not killed for
	// silence), seldom enough that the log stays readable; verboseInterval
	// is with -v.
	logInterval     = 10 * time.Second
	verboseInterval = 2 * time.Second
	// barWidth is the widest the bar itself is drawn.
	barWidth = 30
)

// newProgress returns counters for total records (-1 when not known), and
// shows them on standard error unless -q: a bar on a terminal, a line
// every logInterval otherwise. others, when not nil, says how many of
// what total counted turned out to be no requests (see progress.others).
func newProgress(g *globals, total int64, what string, others func() int64) *progress {
	return newProgressClock(g, total, what, others, realClock)
}

func newProgressClock(g *globals, total int64, what string, others func() int64, clock progressClock) *progress {
	p := &progress{total: total, others: others, what: what, clock: clock, start: clock.now(), cols: g.IO.ErrCols, outTTY: g.IO.OutTTY}
	p.show(g)
	return p
}

// newEvalProgress returns counters for the total runs of an eval (less
// those an earlier eval finished, told as skipped), each judged: the
// passed are shown, and extra's notes (what was spent) after the counts.
// The sink tells it of every record; it counts the verdicts.
func newEvalProgress(g *globals, total int64, extra func() []string, clock progressClock) *evalProgress {
	p := &progress{total: total, what: "evaluating", clock: clock, start: clock.now(), cols: g.IO.ErrCols, outTTY: g.IO.OutTTY,
		judged: true, extra: extra, unit: "runs"}
	p.show(g)
	return &evalProgress{p}
}

// evalProgress is an eval's progress as a sink tells it: of the records
// of each run, only its verdict counts.
type evalProgress struct{ *progress }

func (p *evalProgress) Record(rec *message.Record) {
	if rec.Type == message.TypeVerdict {
		p.verdict(rec)
	}
}

// show starts showing p on standard error, as g says: a bar on a terminal,
// a line a log, nothing with -q.
func (p *progress) show(g *globals) {
	if g.Quiet {
		return
	}
	interval := barInterval
	switch {
	case g.IO.ErrTTY:
		p.line = &barLine{w: g.IO.Err}
		// Drawn at once, so that the run is seen to have begun.
		p.draw()
	case g.Verbose:
		p.log, interval = g.IO.Err, verboseInterval
	default:
		p.log, interval = g.IO.Err, logInterval
	}
	ticks, stop := p.clock.ticker(interval)
	p.stopTick = make(chan struct{})
	p.ticked = make(chan struct{})
	go p.tick(ticks, stop)
}

// around returns out for records that go to the terminal the bar is on:
// each write takes the bar off its line and puts it back below the
// records, so that no record line starts with a bar. Any other out is
// returned as it is.
func (p *progress) around(out io.Writer, outTTY bool) io.Writer {
	if p.line == nil || !outTTY {
		return out
	}
	return &aroundBar{line: p.line, out: out}
}

// Record, Skip, Finish and Around are the progress as a sink tells it
// (app.Progress).
func (p *progress) Record(rec *message.Record)     { p.record(rec) }
func (p *progress) Skip()                          { p.skip() }
func (p *progress) Finish()                        { p.finish() }
func (p *progress) Around(out io.Writer) io.Writer { return p.around(out, p.outTTY) }

// record counts one written record.
func (p *progress) record(rec *message.Record) {
	p.done.Add(1)
	if rec.IsError {
		p.failed.Add(1)
	}
}

// verdict counts one run of an eval, judged: passed or failed.
func (p *progress) verdict(rec *message.Record) {
	p.done.Add(1)
	if rec.IsError {
		p.failed.Add(1)
	} else {
		p.passed.Add(1)
	}
}

// skip counts one request skipped as finished by an earlier run: it gets
// no record, so the bar's total shrinks by one.
func (p *progress) skip() { p.skipped.Add(1) }

func (p *progress) tick(ticks <-chan time.Time, stop func()) {
	defer close(p.ticked)
	defer stop()
	for {
		select {
		case <-ticks:
			p.draw()
		case <-p.stopTick:
			return
		}
	}
}

// counts is what progress has to show at one moment.
type counts struct {
	done, failed, skipped int64
	// passed is shown when judged; extra are notes after the counts.
	passed int64
	judged bool
	extra  []string
	unit   string
	// max is the number of records the run will write; -1 when not known.
	max     int64
	elapsed time.Duration
}

func (p *progress) counts() counts {
	c := counts{done: p.done.Load(), failed: p.failed.Load(), skipped: p.skipped.Load(), max: -1, elapsed: p.clock.now().Sub(p.start),
		passed: p.passed.Load(), judged: p.judged, unit: p.unit}
	if p.extra != nil {
		c.extra = p.extra()
	}
	if p.total >= 0 {
		c.max = p.total - c.skipped
		if p.others != nil {
			c.max -= p.others()
		}
		c.max = max(c.max, c.done)
	}
	return c
}

// rate is records a second; 0 before anything was done.
func (c counts) rate() float64 {
	if c.done == 0 || c.elapsed <= 0 {
		return 0
	}
	return float64(c.done) / c.elapsed.Seconds()
}

// eta is how long the rest will take at the rate so far; 0 when not
// known.
func (c counts) eta() time.Duration {
	r := c.rate()
	if c.max < 0 || r == 0 {
		return 0
	}
	return (time.Duration(float64(c.max-c.done)/r*float64(time.Second)) + time.Second/2).Truncate(time.Second)
}

// notes are the failed and skipped, when there are any.
func (c counts) notes() []string {
	var n []string
	if c.judged {
		n = append(n, fmt.Sprintf("%d passed", c.passed))
	}
	if c.failed > 0 {
		n = append(n, fmt.Sprintf("%d failed", c.failed))
	}
	if c.skipped > 0 {
		n = append(n, fmt.Sprintf("%d skipped", c.skipped))
	}
	return append(n, c.extra...)
}

func (c counts) rateText() string {
	r, unit := c.rate(), c.unit
	if unit == "" {
		unit = "req"
	}
	switch {
	case r >= 10:
		return fmt.Sprintf("%.0f %s/s", r, unit)
	case r >= 1:
		return fmt.Sprintf("%.1f %s/s", r, unit)
	case r*60 >= 1:
		return fmt.Sprintf("%.1f %s/min", r*60, unit)
	}
	return fmt.Sprintf("%.1f %s/h", r*3600, unit)
}

// logLine is a line of progress for a log: "running: 120/1000 done, 3
// failed, 12 req/s, eta 1m13s".
func (c counts) logLine(what string) string {
	parts := []string{fmt.Sprintf("%d done", c.done)}
	if c.max >= 0 {
		parts[0] = fmt.Sprintf("%d/%d done", c.done, c.max)
	}
	parts = append(parts, c.notes()...)
	if c.done > 0 {
		parts = append(parts, c.rateText())
		if c.max >= 0 {
			parts = append(parts, "eta "+c.eta().String())
		}
	}
	parts = append(parts, "after "+c.elapsed.Truncate(time.Second).String())
	return what + ": " + strings.Join(parts, ", ")
}

// barFrame is the bar for a terminal cols wide: "running (1 failed)  30%
// |█████      | 3/10, 12 req/s [4s, eta 9s]". It never reaches the last
// column (a terminal that wraps there would leave the old frame behind on
// the line above): the bar shrinks first, then goes, then the time taken,
// and what is still too long is cut.
func (c counts) barFrame(what string, cols int) string {
	head := what
	if n := c.notes(); len(n) > 0 {
		head += " (" + strings.Join(n, ", ") + ")"
	}
	count := fmt.Sprintf("%d", c.done)
	if c.max >= 0 {
		count += fmt.Sprintf("/%d", c.max)
	} else {
		count += " done"
	}
	if c.done > 0 {
		count += ", " + c.rateText()
	}
	eta := ""
	if c.max >= 0 && c.done > 0 {
		eta = "eta " + shortDuration(c.eta())
	}
	tail := count + " [" + shortDuration(c.elapsed)
	if eta != "" {
		tail += ", " + eta
	}
	tail += "]"
	room := cols - 1
	if c.max > 0 {
		// "head  30% |bar| tail"
		if w := min(barWidth, room-utf8.RuneCountInString(head)-len(tail)-9); w >= 5 {
			fill := int(int64(w) * c.done / c.max)
			return fmt.Sprintf("%s %3d%% |%s%s| %s", head, int(c.done*100/c.max), strings.Repeat("█", fill), strings.Repeat(" ", w-fill), tail)
		}
	}
	line := head + " " + tail
	if utf8.RuneCountInString(line) > room && eta != "" {
		line = head + " " + count + ", " + eta
	}
	if r := []rune(line); len(r) > room {
		line = string(r[:max(room, 0)])
	}
	return line
}

// shortDuration is d as a bar shows it: to the second under an hour
// ("4m2s"), to the minute above ("22h56m").
func shortDuration(d time.Duration) string {
	if d < time.Hour {
		return d.Truncate(time.Second).String()
	}
	return strings.TrimSuffix(d.Truncate(time.Minute).String(), "0s")
}

// draw shows the counters: the bar redrawn in place, or a line of the log.
func (p *progress) draw() {
	c := p.counts()
	switch {
	case p.line != nil:
		cols := 80
		if p.cols != nil {
			if n := p.cols(); n > 0 {
				cols = n
			}
		}
		p.line.Write([]byte(clearLine + c.barFrame(p.what, cols)))
	case p.log != nil:
		fmt.Fprintf(p.log, "kesoku: %s\n", c.logLine(p.what))
	}
}

// finish stops drawing and clears the bar, so that what follows on
// standard error starts on a clean line. Only the first call does.
func (p *progress) finish() {
	if p.stopTick == nil || p.finished {
		return
	}
	p.finished = true
	close(p.stopTick)
	<-p.ticked
	if p.line != nil {
		p.line.Write([]byte(clearLine))
	}
}

// barLine is standard error under the bar: it remembers the bar as last
// drawn (each frame is one write, which begins with clearLine; clearLine
// alone clears it), so that records written to the same terminal can be
// put above it.
type barLine struct {
	mu    sync.Mutex
	w     io.Writer
	frame []byte
}

// clearLine clears the line the cursor is on and goes to its start.
const clearLine = "\033[2K\r"

func (l *barLine) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if string(b) == clearLine {
		l.frame = l.frame[:0]
	} else {
		l.frame = append(l.frame[:0], b...)
	}
	return l.w.Write(b)
}

// hold takes the bar off its line and keeps it off, whatever else writes
// around it, until release: a question at the terminal waits for its
// answer on that line.
func (p *progress) hold() (release func()) {
	if p == nil || p.line == nil {
		return func() {}
	}
	l := p.line
	l.mu.Lock()
	shown := len(l.frame) > 0
	if shown {
		io.WriteString(l.w, clearLine)
	}
	return func() {
		if shown {
			l.w.Write(l.frame)
		}
		l.mu.Unlock()
	}
}

// aroundBar writes records to a terminal that shows the bar: it clears the
// bar's line, writes the records (whole lines), and draws the bar again
// below them.
type aroundBar struct {
	line *barLine
	out  io.Writer
}

func (a *aroundBar) Write(b []byte) (int, error) {
	a.line.mu.Lock()
	defer a.line.mu.Unlock()
	shown := len(a.line.frame) > 0
	if shown {
		io.WriteString(a.line.w, clearLine)
	}
	n, err := a.out.Write(b)
	if shown {
		a.line.w.Write(a.line.frame)
	}
	return n, err
}

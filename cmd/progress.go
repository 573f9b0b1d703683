package cmd

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/kesoku/kesoku/message"
)

// progress counts records as they are written and, on a terminal, draws a
// bar on standard error from those counters on a ticker: the workers and
// the writer only add to counters, and never wait for the terminal.
type progress struct {
	done, failed, skipped atomic.Int64
	// total is how many requests the run has (-1 when not known); the bar
	// counts to total less the skipped ones.
	total, max int64
	// others, when set, says how many of the lines or list elements that
	// total counted were Message records that are no requests.
	others   func() int64
	bar      *progressbar.ProgressBar
	line     *barLine
	stopTick chan struct{}
	ticked   chan struct{}
	finished bool
}

// progressInterval is how often the bar is redrawn.
const progressInterval = 100 * time.Millisecond

// newProgress returns counters for total records (-1 when not known), and
// a bar drawn from them when standard error is a terminal and -q is not
// given; never in pipes or CI logs. others, when not nil, says how many of
// what total counted turned out to be no requests (see progress.others).
func newProgress(g *globals, total int64, what string, others func() int64) *progress {
	p := &progress{total: total, max: total, others: others}
	if !g.IO.ErrTTY || g.Quiet {
		return p
	}
	p.line = &barLine{w: g.IO.Err}
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(p.line),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("req"),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(total > 0),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(progressInterval),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionUseANSICodes(true),
		// Drawn at once, so that the rate is counted from the start of the
		// run rather than from the first record.
		progressbar.OptionSetRenderBlankState(true),
	)
	p.stopTick = make(chan struct{})
	p.ticked = make(chan struct{})
	go p.tick(what)
	return p
}

// around returns out for records that go to the terminal the bar is on:
// each write takes the bar off its line and puts it back below the
// records, so that no record line starts with a bar. Any other out is
// returned as it is.
func (p *progress) around(out io.Writer, outTTY bool) io.Writer {
	if p.bar == nil || !outTTY {
		return out
	}
	return &aroundBar{line: p.line, out: out}
}

// record counts one written record.
func (p *progress) record(rec *message.Record) {
	p.done.Add(1)
	if rec.IsError {
		p.failed.Add(1)
	}
}

// skip counts one request skipped as finished by an earlier run: it gets
// no record, so the bar's total shrinks by one.
func (p *progress) skip() { p.skipped.Add(1) }

func (p *progress) tick(what string) {
	defer close(p.ticked)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			p.draw(what)
		case <-p.stopTick:
			return
		}
	}
}

func (p *progress) draw(what string) {
	if p.total > 0 {
		m := p.total - p.skipped.Load()
		if p.others != nil {
			m -= p.others()
		}
		if m != p.max && m > 0 {
			p.max = m
			p.bar.ChangeMax64(m)
		}
	}
	var notes []string
	if f := p.failed.Load(); f > 0 {
		notes = append(notes, fmt.Sprintf("%d failed", f))
	}
	if s := p.skipped.Load(); s > 0 {
		notes = append(notes, fmt.Sprintf("%d skipped", s))
	}
	if len(notes) > 0 {
		p.bar.Describe(what + " (" + strings.Join(notes, ", ") + ")")
	}
	p.bar.Set64(p.done.Load())
}

// finish stops drawing and clears the bar, so that what follows on
// standard error starts on a clean line. Only the first call does.
func (p *progress) finish() {
	if p.bar == nil || p.finished {
		return
	}
	p.finished = true
	close(p.stopTick)
	<-p.ticked
	p.bar.Clear()
}

// barLine is standard error under the bar: it remembers the bar as last
// drawn (each frame is one write; "\033[2K\r" clears it), so that records
// written to the same terminal can be put above it.
type barLine struct {
	mu    sync.Mutex
	w     io.Writer
	frame []byte
}

// clearLine is what the bar writes to clear itself with ANSI codes.
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

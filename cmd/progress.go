package cmd

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/kesoku/kesoku/internal/message"
)

// progress counts records as they are written and, on a terminal, draws a
// bar on standard error from those counters on a ticker: the workers and
// the writer only add to counters, and never wait for the terminal.
type progress struct {
	done, failed atomic.Int64
	bar          *progressbar.ProgressBar
	stopTick     chan struct{}
	ticked       chan struct{}
}

// progressInterval is how often the bar is redrawn.
const progressInterval = 100 * time.Millisecond

// newProgress returns counters for total records (-1 when not known), and
// a bar drawn from them when standard error is a terminal and -q is not
// given; never in pipes or CI logs.
func newProgress(g *Globals, total int64, what string) *progress {
	p := &progress{}
	if !g.IO.ErrTTY || g.Quiet {
		return p
	}
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(g.IO.Err),
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
	)
	p.stopTick = make(chan struct{})
	p.ticked = make(chan struct{})
	go p.tick(what)
	return p
}

// record counts one written record.
func (p *progress) record(rec *message.Record) {
	p.done.Add(1)
	if rec.IsError {
		p.failed.Add(1)
	}
}

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
	if f := p.failed.Load(); f > 0 {
		p.bar.Describe(fmt.Sprintf("%s (%d failed)", what, f))
	}
	p.bar.Set64(p.done.Load())
}

// finish stops drawing and clears the bar, so that what follows on
// standard error starts on a clean line.
func (p *progress) finish() {
	if p.bar == nil {
		return
	}
	close(p.stopTick)
	<-p.ticked
	p.bar.Clear()
}

package app

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
)

// SignalSource delivers the signals that interrupt kesoku (SIGINT and
// SIGTERM) to ch until stop is called. The process's own is cmd's; tests
// give their own (apptest.Signals), so that no test signals its own
// process.
type SignalSource func(ch chan<- os.Signal) (stop func())

// Interrupts turns signals into interrupts of the turn in progress. The
// first signal of a turn sets the interrupted flag and cancels the turn's
// context, so that nothing new starts and calls in flight are cancelled;
// the second ends the grace those calls get. Between turns (at the
// interactive prompt) a signal only calls idle. kesoku run, analyze and a
// one-prompt session are one turn from start to end.
type Interrupts struct {
	ch       chan os.Signal
	stopSrc  func()
	done     chan struct{}
	stopOnce sync.Once
	idle     func()
	// flag is the turn's interrupted flag, read without the lock: the
	// runner checks it before every call.
	flag atomic.Bool

	mu     sync.Mutex
	cancel context.CancelFunc // of the turn in progress, nil between turns
	count  int                // signals during this turn
	grace  chan struct{}      // closed by the second signal of a turn
}

// WatchSignals starts watching for the signals of src (none when nil);
// idle, when not nil, is called for a signal that comes between turns.
// Call Stop when done, to give the signals back to their default action.
func WatchSignals(src SignalSource, idle func()) *Interrupts {
	ir := &Interrupts{
		ch:    make(chan os.Signal, 4),
		done:  make(chan struct{}),
		grace: make(chan struct{}),
		idle:  idle,
	}
	ir.stopSrc = func() {}
	if src != nil {
		ir.stopSrc = src(ir.ch)
	}
	go ir.loop()
	return ir
}

func (ir *Interrupts) loop() {
	for {
		select {
		case <-ir.done:
			return
		case <-ir.ch:
		}
		ir.mu.Lock()
		switch {
		case ir.cancel == nil:
			if ir.idle != nil {
				ir.idle()
			}
		case ir.count == 0:
			ir.count++
			ir.flag.Store(true)
			ir.cancel()
		case ir.count == 1:
			ir.count++
			close(ir.grace)
		}
		ir.mu.Unlock()
	}
}

// Turn starts a turn: its context is cancelled by the next signal, or by
// end.
func (ir *Interrupts) Turn(ctx context.Context) (_ context.Context, end func()) {
	ctx, cancel := context.WithCancel(ctx)
	ir.mu.Lock()
	ir.cancel, ir.count = cancel, 0
	ir.flag.Store(false)
	ir.mu.Unlock()
	return ctx, func() {
		ir.mu.Lock()
		ir.cancel = nil
		ir.mu.Unlock()
		cancel()
	}
}

// Interrupted reports whether a signal came during the turn: the runner's
// IsInterrupted.
func (ir *Interrupts) Interrupted() bool { return ir.flag.Load() }

// EndGrace is the channel the second signal of a turn closes: a new one
// once a turn has closed the last.
func (ir *Interrupts) EndGrace() <-chan struct{} {
	ir.mu.Lock()
	defer ir.mu.Unlock()
	if ir.count >= 2 {
		ir.grace = make(chan struct{})
	}
	return ir.grace
}

// Stop stops watching.
func (ir *Interrupts) Stop() {
	ir.stopOnce.Do(func() {
		ir.stopSrc()
		close(ir.done)
	})
}

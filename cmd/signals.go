package cmd

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// interrupts wires SIGINT and SIGTERM to a run (SPEC §5): the first sets
// the interrupted flag (the seed's is_interrupted) and cancels the run's
// context, so that nothing new starts and calls in flight are cancelled;
// the second ends the grace those calls get.
type interrupts struct {
	flag     atomic.Bool
	endGrace chan struct{}
	signals  chan os.Signal
	stopOnce sync.Once
	done     chan struct{}
}

// watchSignals starts watching for SIGINT and SIGTERM. The returned
// context is cancelled by the first; call stop when the run is over, to
// give the signals back to their default action.
func watchSignals(parent context.Context) (context.Context, *interrupts) {
	ctx, cancel := context.WithCancel(parent)
	ir := &interrupts{
		endGrace: make(chan struct{}),
		signals:  make(chan os.Signal, 2),
		done:     make(chan struct{}),
	}
	signal.Notify(ir.signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer cancel()
		n := 0
		for {
			select {
			case <-ir.signals:
				n++
				switch n {
				case 1:
					ir.flag.Store(true)
					cancel()
				case 2:
					close(ir.endGrace)
				}
			case <-ir.done:
				return
			}
		}
	}()
	return ctx, ir
}

// interrupted reports whether a signal came: the runner's IsInterrupted.
func (ir *interrupts) interrupted() bool { return ir.flag.Load() }

// stop stops watching.
func (ir *interrupts) stop() {
	ir.stopOnce.Do(func() {
		signal.Stop(ir.signals)
		close(ir.done)
	})
}

package cmd

import (
	"context"
	"os"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeSignals is a signalSource that a test sends signals through, so that
// no test signals its own process.
type fakeSignals struct {
	mu  sync.Mutex
	chs []chan<- os.Signal
}

func (f *fakeSignals) source(ch chan<- os.Signal) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.chs = append(f.chs, ch)
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.chs = slices.DeleteFunc(f.chs, func(c chan<- os.Signal) bool { return c == ch })
	}
}

// send delivers sig to everything watching, as the kernel would; it fails
// the test when nothing watches.
func (f *fakeSignals) send(t *testing.T, sig os.Signal) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.chs) == 0 {
		t.Errorf("signal %v sent with nothing watching", sig)
	}
	for _, ch := range f.chs {
		ch <- sig
	}
}

func (f *fakeSignals) watching() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.chs)
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not happen", what)
	}
}

// TestInterrupts: the first signal of a turn interrupts it (flag set,
// context cancelled), the second ends the grace; a signal between turns
// only calls idle; a new turn starts uninterrupted, with a new grace once
// the last one was used.
func TestInterrupts(t *testing.T) {
	t.Parallel()
	sig := &fakeSignals{}
	idle := make(chan struct{}, 1)
	ir := (&Globals{Signals: sig.source}).watchSignals(func() { idle <- struct{}{} })

	ctx, end := ir.turn(context.Background())
	if ir.interrupted() || ctx.Err() != nil {
		t.Fatal("interrupted before any signal")
	}
	grace := ir.endGrace()
	sig.send(t, os.Interrupt)
	waitClosed(t, ctx.Done(), "the first signal cancelling the turn")
	if !ir.interrupted() {
		t.Error("the first signal did not set the interrupted flag")
	}
	select {
	case <-grace:
		t.Fatal("the grace ended on the first signal")
	default:
	}
	sig.send(t, syscall.SIGTERM)
	waitClosed(t, grace, "the second signal ending the grace")
	end()

	sig.send(t, os.Interrupt)
	select {
	case <-idle:
	case <-time.After(10 * time.Second):
		t.Fatal("a signal between turns did not call idle")
	}

	next := ir.endGrace()
	if next == grace {
		t.Error("the grace a turn used up was handed out again")
	}
	ctx, end = ir.turn(context.Background())
	defer end()
	if ir.interrupted() || ctx.Err() != nil {
		t.Error("the new turn starts interrupted")
	}

	ir.stop()
	if n := sig.watching(); n != 0 {
		t.Errorf("%d watchers left after stop", n)
	}
}

// TestInterruptsWithoutSource: Globals without a signal source (tests
// that build them by hand) watch nothing and never interrupt.
func TestInterruptsWithoutSource(t *testing.T) {
	t.Parallel()
	ir := (&Globals{}).watchSignals(nil)
	ctx, end := ir.turn(context.Background())
	end()
	ir.stop()
	if ir.interrupted() {
		t.Error("interrupted without a signal")
	}
	if ctx.Err() == nil {
		t.Error("end did not cancel the turn's context")
	}
}

package app

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/app/apptest"
)

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
	sig := &apptest.Signals{}
	idle := make(chan struct{}, 1)
	ir := WatchSignals(sig.Source, func() { idle <- struct{}{} })

	ctx, end := ir.Turn(context.Background())
	if ir.Interrupted() || ctx.Err() != nil {
		t.Fatal("interrupted before any signal")
	}
	grace := ir.EndGrace()
	sig.Send(t, os.Interrupt)
	waitClosed(t, ctx.Done(), "the first signal cancelling the turn")
	if !ir.Interrupted() {
		t.Error("the first signal did not set the interrupted flag")
	}
	select {
	case <-grace:
		t.Fatal("the grace ended on the first signal")
	default:
	}
	sig.Send(t, syscall.SIGTERM)
	waitClosed(t, grace, "the second signal ending the grace")
	end()

	sig.Send(t, os.Interrupt)
	select {
	case <-idle:
	case <-time.After(10 * time.Second):
		t.Fatal("a signal between turns did not call idle")
	}

	next := ir.EndGrace()
	if next == grace {
		t.Error("the grace a turn used up was handed out again")
	}
	ctx, end = ir.Turn(context.Background())
	defer end()
	if ir.Interrupted() || ctx.Err() != nil {
		t.Error("the new turn starts interrupted")
	}

	ir.Stop()
	if n := sig.Watching(); n != 0 {
		t.Errorf("%d watchers left after stop", n)
	}
}

// TestInterruptsWithoutSource: without a signal source nothing is
// watched and nothing interrupts.
func TestInterruptsWithoutSource(t *testing.T) {
	t.Parallel()
	ir := WatchSignals(nil, nil)
	ctx, end := ir.Turn(context.Background())
	end()
	ir.Stop()
	if ir.Interrupted() {
		t.Error("interrupted without a signal")
	}
	if ctx.Err() == nil {
		t.Error("end did not cancel the turn's context")
	}
}

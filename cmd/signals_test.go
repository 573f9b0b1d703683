package cmd

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// TestWatchSignals sends the test process SIGINT twice: the first
// interrupts (flag set, context cancelled), the second ends the grace.
func TestWatchSignals(t *testing.T) {
	ctx, ir := watchSignals(context.Background())
	defer ir.stop()
	if ir.interrupted() || ctx.Err() != nil {
		t.Fatal("interrupted before any signal")
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the first SIGINT did not cancel the context")
	}
	if !ir.interrupted() {
		t.Error("the first SIGINT did not set the interrupted flag")
	}
	select {
	case <-ir.endGrace:
		t.Fatal("the grace ended on the first signal")
	default:
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ir.endGrace:
	case <-time.After(5 * time.Second):
		t.Fatal("the second signal did not end the grace")
	}
}

package cmd

import (
	"bytes"
	"strings"
	"testing"
)

// TestHardStopAfterTheSecondSignal: once the second signal has come (its
// grace channel closed), a run that does not end is ended with exit
// status 130, saying so; one that ended first is left alone.
func TestHardStopAfterTheSecondSignal(t *testing.T) {
	t.Parallel()
	exited := make(chan int, 1)
	var log bytes.Buffer
	grace := make(chan struct{})
	hardStop(func(code int) { exited <- code })(grace, &log)
	close(grace)
	if code := <-exited; code != ExitInterrupted {
		t.Errorf("exit %d, want %d", code, ExitInterrupted)
	}
	if !strings.Contains(log.String(), "after the second signal") {
		t.Errorf("said %q", log.String())
	}

	// Ended before the second signal: nothing happens, whenever it comes.
	grace = make(chan struct{})
	stop := hardStop(func(code int) { t.Errorf("exit %d after the run ended", code) })(grace, &log)
	stop()
	close(grace)
}

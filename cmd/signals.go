package cmd

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// notifySignals is the process's own signals: SIGINT and SIGTERM, the
// source of interrupts in Main (app.SignalSource).
func notifySignals(ch chan<- os.Signal) func() {
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return func() { signal.Stop(ch) }
}

// hardStopAfter is how long a run goes on after its second signal: the
// second signal ends the grace of the calls in flight, and what is left
// (the records of what was cut) takes milliseconds to write. A run still
// going then waits on something that may never come (a FIFO or a pipe
// nobody reads), and the process ends.
const hardStopAfter = 3 * time.Second

// hardStop makes the globals' HardStop, which ends the process with exit
// once grace is closed (the second signal) and hardStopAfter has passed
// without stop being called; it says so on log first.
func hardStop(exit func(code int)) func(grace <-chan struct{}, log io.Writer) (stop func()) {
	return func(grace <-chan struct{}, log io.Writer) func() {
		done := make(chan struct{})
		go func() {
			select {
			case <-grace:
			case <-done:
				return
			}
			t := time.NewTimer(hardStopAfter)
			defer t.Stop()
			select {
			case <-t.C:
				fmt.Fprintf(log, "kesoku: still not done %v after the second signal (waiting on an output nobody reads?): stopped; the records not written are finished by --resume\n", hardStopAfter)
				exit(ExitInterrupted)
			case <-done:
			}
		}()
		return func() { close(done) }
	}
}

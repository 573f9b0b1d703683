package cmd

import (
	"os"
	"os/signal"
	"syscall"
)

// notifySignals is the process's own signals: SIGINT and SIGTERM, the
// source of interrupts in Main (app.SignalSource).
func notifySignals(ch chan<- os.Signal) func() {
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return func() { signal.Stop(ch) }
}

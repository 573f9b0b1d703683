package cmd

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/kesoku/kesoku/internal/app"
)

// notifySignals is the process's own signals: SIGINT and SIGTERM, the
// source of interrupts in Main (app.SignalSource).
func notifySignals(ch chan<- os.Signal) func() {
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return func() { signal.Stop(ch) }
}

// watchSignals starts watching for the signals of g's source, for a
// command that makes no environment of its own (app.Env.WatchSignals);
// idle, when not nil, is called for a signal between turns. Stop it when
// done.
func (g *globals) watchSignals(idle func()) *app.Interrupts {
	return app.WatchSignals(g.Signals, idle)
}

// Package apptest gives tests a source of signals for a command's
// environment.
//
// A test sends signals through it, so that no test signals its own
// process.
package apptest

import (
	"os"
	"slices"
	"sync"
	"testing"
)

// Signals is an app.SignalSource that a test sends signals through.
type Signals struct {
	mu  sync.Mutex
	chs []chan<- os.Signal
}

// Source is the source to give the environment (app.Options.Signals).
func (f *Signals) Source(ch chan<- os.Signal) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.chs = append(f.chs, ch)
	return func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.chs = slices.DeleteFunc(f.chs, func(c chan<- os.Signal) bool { return c == ch })
	}
}

// Send delivers sig to everything watching, as the kernel would; it
// fails the test when nothing watches.
func (f *Signals) Send(t testing.TB, sig os.Signal) {
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

// Watching is how many watch now.
func (f *Signals) Watching() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.chs)
}

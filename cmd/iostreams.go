package cmd

import (
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams owns every terminal decision: data goes to Out, status and
// progress to Err, and progress or colour only when Err is a terminal.
type IOStreams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer

	InTTY, OutTTY, ErrTTY bool
}

// System returns the process's own streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTTY:  isTerminal(os.Stdin),
		OutTTY: isTerminal(os.Stdout),
		ErrTTY: isTerminal(os.Stderr),
	}
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// ColorEnabled reports whether colour may be used on Out: only on a
// terminal, and never under NO_COLOR.
func (s *IOStreams) ColorEnabled() bool {
	_, noColor := os.LookupEnv("NO_COLOR")
	return s.OutTTY && !noColor
}

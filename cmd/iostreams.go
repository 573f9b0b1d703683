package cmd

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"

	"golang.org/x/term"
)

// ioStreams owns every terminal decision: data goes to Out, status and
// progress to Err, and progress or colour only when Err is a terminal.
type ioStreams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer

	InTTY, OutTTY, ErrTTY bool
	// ErrCols is how many columns wide the terminal of Err is now (it
	// may be resized); nil or 0 when not known.
	ErrCols func() int
}

// systemStreams returns the process's own streams.
func systemStreams() *ioStreams {
	return &ioStreams{
		In: os.Stdin, Out: os.Stdout, Err: os.Stderr,
		InTTY:  isTerminal(os.Stdin),
		OutTTY: isTerminal(os.Stdout),
		ErrTTY: isTerminal(os.Stderr),
		ErrCols: func() int {
			w, _, err := term.GetSize(int(os.Stderr.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
	}
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// noteReading tells a user at a terminal that kesoku reads the requests
// of files from what they type ("-" among files), and how to end them:
// without it kesoku would wait in silence. Not when quiet, and never
// when standard input is a file or a pipe.
func (s *ioStreams) noteReading(files []string, quiet bool) {
	if quiet || !s.InTTY || !slices.Contains(files, "-") {
		return
	}
	fmt.Fprintf(s.Err, "kesoku: reading requests from standard input; end them with %s\n", endOfInput())
}

// endOfInput is the keys that end what is typed at a terminal.
func endOfInput() string {
	if runtime.GOOS == "windows" {
		return "Ctrl-Z and Enter"
	}
	return "Ctrl-D"
}

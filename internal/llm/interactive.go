package llm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/kesoku/kesoku/internal/termtext"
)

// Turns start the turns of an interactive session: each turn's context
// is cancelled by an interrupt, or by end.
type Turns interface {
	Turn(ctx context.Context) (_ context.Context, end func())
}

// InteractiveOptions are what an interactive session reads from and
// writes to.
type InteractiveOptions struct {
	// In is what the person types, a prompt per line; Err is where the
	// prompt sign, notices and errors go.
	In  io.Reader
	Err io.Writer
	// Quiet leaves out the greeting and the transcript's name at the end.
	Quiet bool
	// Word words the error that ended a turn for the person; nil is its
	// Error.
	Word func(error) string
	// Out is where answers go; JSON says the records are printed instead.
	Out  *AnswerWriter
	JSON bool
	// Transcript is the transcript's path, told at the end.
	Transcript string
	// Turns starts each turn; Interrupted is called after a turn an
	// interrupt ended (a new runner, whose grace is not used up).
	Turns       Turns
	Interrupted func()
}

// Interactive reads a prompt per line until end of input (Ctrl-D), and
// sends each to the session. An interrupt ends the turn in progress and
// comes back to the prompt; an error ends the turn, not the session, but
// for a call deferred (*DeferredError), at which the session stops.
func Interactive(ctx context.Context, s *Session, o InteractiveOptions) error {
	in := bufio.NewReader(o.In)
	if !o.Quiet {
		fmt.Fprintln(o.Err, "Type a prompt and press Enter; Ctrl-C interrupts a turn, Ctrl-D ends the session.")
	}
	for {
		fmt.Fprint(o.Err, "> ")
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(o.Err)
			if !o.Quiet {
				fmt.Fprintf(o.Err, "transcript: %s\n", o.Transcript)
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read the prompt: %w", err)
		}
		prompt := strings.TrimSpace(line)
		if prompt == "" {
			continue
		}
		if err := CheckUTF8("the prompt", prompt); err != nil {
			fmt.Fprintf(o.Err, "kesoku: %v; type it again\n", err)
			continue
		}
		turnCtx, end := o.Turns.Turn(ctx)
		answer, err := s.Send(turnCtx, prompt)
		end()
		switch {
		case errors.Is(err, ErrInterrupted):
			o.Out.EndLine()
			fmt.Fprintln(o.Err, "interrupted")
			if o.Interrupted != nil {
				o.Interrupted()
			}
		case errors.As(err, new(*DeferredError)):
			// The session waits for the answers: it stops, to be resumed.
			o.Out.EndLine()
			return err
		case err != nil:
			if errors.As(err, new(*CutError)) && answer != "" {
				o.Out.Answer(answer, o.Out.streamed, o.JSON)
			}
			o.Out.EndLine()
			word := error.Error
			if o.Word != nil {
				word = o.Word
			}
			fmt.Fprintf(o.Err, "kesoku: %s\n", termtext.Lines(word(err)))
		default:
			if err := o.Out.Answer(answer, o.Out.streamed, o.JSON); err != nil {
				return err
			}
		}
		o.Out.streamed = false
	}
}

// AnswerWriter writes the model's text: streamed as it arrives, or the
// answer at the end, always ending on a newline. The text is a model's: a
// colour, a window title, a cleared screen in it are escaped (its line
// breaks and tabs kept), as everything from outside is before it reaches
// a terminal; the records keep it as it was.
type AnswerWriter struct {
	mu       sync.Mutex
	w        io.Writer
	streamed bool
	// open says the last text written did not end a line.
	open bool
}

// NewAnswerWriter writes answers to w.
func NewAnswerWriter(w io.Writer) *AnswerWriter { return &AnswerWriter{w: w} }

// Text writes streamed text (SessionOptions.OnText).
func (a *AnswerWriter) Text(s string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	io.WriteString(a.w, termtext.Lines(s))
	a.streamed = true
	a.open = !strings.HasSuffix(s, "\n")
}

// EndLine ends a streamed line, before tool calls or an error are shown.
func (a *AnswerWriter) EndLine() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.open {
		io.WriteString(a.w, "\n")
		a.open = false
	}
}

// Answer finishes a turn: a streamed answer is already out; otherwise it
// is written now. With jsonOut nothing is: the records say it.
func (a *AnswerWriter) Answer(answer string, streamed, jsonOut bool) error {
	if jsonOut {
		return nil
	}
	if streamed {
		a.EndLine()
		return nil
	}
	answer = termtext.Lines(answer)
	if !strings.HasSuffix(answer, "\n") {
		answer += "\n"
	}
	_, err := io.WriteString(a.w, answer)
	return err
}

// CheckUTF8 refuses text that is not UTF-8 (a terminal in Latin-1, a file
// piped in another encoding): the providers take only UTF-8, and the SDKs
// would send each bad byte as U+FFFD, the prompt broken. what names the
// text in the error.
func CheckUTF8(what, s string) error {
	at := termtext.InvalidUTF8(s)
	if at < 0 {
		return nil
	}
	return fmt.Errorf("%s is not UTF-8 text (byte %#02x at offset %d); convert it first (iconv -t UTF-8)", what, s[at], at)
}

package llm

import (
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

// Prompter is the person's side of an interactive session, at the
// terminal: cmd's. The loop (Interactive) asks it for prompts and tells it
// how each turn ended; it alone reads and writes the terminal.
type Prompter interface {
	// Prompt asks for the next prompt and returns the line typed; an
	// error (io.EOF: Ctrl-D) ends the session.
	Prompt() (string, error)
	// Refused says a prompt was not sent, and why: it is to be typed
	// again.
	Refused(err error)
	// Interrupted says an interrupt ended the turn in progress.
	Interrupted()
	// InterruptedAtPrompt says an interrupt came while no turn was in
	// progress: it ends nothing.
	InterruptedAtPrompt()
	// Failed says err ended the turn, not the session.
	Failed(err error)
	// Ended says the session ended at the end of input, and where its
	// transcript is.
	Ended(transcript string)
}

// InteractiveOptions are what an interactive session reads from and
// writes to.
type InteractiveOptions struct {
	// Prompter is the person at the terminal.
	Prompter Prompter
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

// Interactive sends each prompt the person types to the session, until
// the end of input (Ctrl-D). An interrupt ends the turn in progress and
// comes back to the prompt; an error ends the turn, not the session, but
// for a call deferred (*DeferredError), at which the session stops.
func Interactive(ctx context.Context, s *Session, o InteractiveOptions) error {
	p := o.Prompter
	for {
		line, err := p.Prompt()
		if err != nil && line == "" {
			p.Ended(o.Transcript)
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
			p.Refused(err)
			continue
		}
		turnCtx, end := o.Turns.Turn(ctx)
		answer, err := s.Send(turnCtx, prompt)
		end()
		switch {
		case errors.Is(err, ErrInterrupted):
			o.Out.EndLine()
			p.Interrupted()
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
			p.Failed(err)
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

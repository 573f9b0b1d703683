package app

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/notice"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/tracing"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
)

// SessionOptions are what an agent session over the environment is asked
// to do. The caller has checked them: the tools offered, the transcript
// resumed, the prompt.
type SessionOptions struct {
	// Specs are the tools offered to the model; Registry holds them and
	// no others.
	Specs    []*toolset.Tool
	Registry runner.Tools

	System   string
	MaxTurns int
	// Old is the transcript resumed (Resume its file), nil for a new
	// session; Output is the transcript's file asked for, "" for the
	// layout's.
	Old            []*message.Record
	Resume, Output string

	// Prompt is the one prompt of the session; Interactive asks Prompter,
	// the person at the terminal, for a prompt after another instead.
	Prompt      string
	Interactive bool
	Prompter    llm.Prompter

	// Answer is where the answer goes, and Tally what the session's
	// requests cost: the caller's, which tells of both at the end. Stream
	// shows the answer as it comes; JSON writes the session's records to
	// Out in its place.
	Answer *llm.AnswerWriter
	Tally  *llm.Tally
	Out    io.Writer
	Stream bool
	JSON   bool

	// ShowCalls, when set, is told the tool calls the model asks for in
	// a turn, before they run (their names and arguments redacted, not
	// escaped).
	ShowCalls func(calls []*llm.ToolCall)
	// Started, when set, is told the session's id, its model, the model's
	// provider and the transcript's path, once it is ready to send.
	Started func(id, model, provider, transcript string)
}

// SessionError is what ended a session once it ran: the model's refusal,
// an answer cut short, an interrupt (llm.ErrInterrupted). Transcript is
// the transcript's path, to continue from.
type SessionError struct {
	Transcript string
	Err        error
}

func (e *SessionError) Error() string {
	return fmt.Sprintf("%v (transcript: %s)", e.Err, e.Transcript)
}

func (e *SessionError) Unwrap() error { return e.Err }

// Session runs an agent session with the environment's model, its calls
// run by the ToolRunner, writing its transcript as it goes. The
// transcript is protected from the tools.
func (e *Env) Session(ctx context.Context, o SessionOptions) error {
	// The transcript's path is named after the session: its id is needed
	// before the session is made. A UUIDv7, so that transcripts sort by
	// when they began.
	sessionID := llm.SessionIDOf(o.Old)
	if sessionID == "" {
		sessionID = message.NewID()
	}
	path := llm.TranscriptPath(e.Layout(), o.Output, o.Resume, sessionID)
	w, err := llm.OpenTranscript(path, o.Resume, o.Old)
	if err != nil {
		return err
	}
	defer w.Close()
	e.RecordsTo(path, "it is the transcript of this session")
	var store message.Store = w
	if o.JSON {
		out := records.NewWriter(o.Out)
		defer out.Flush()
		store = stores{w, out}
	}

	rm := e.Model
	model, err := rm.Build(ctx)
	if err != nil {
		return err
	}
	out, tell, quiet := o.Answer, e.opts.Tell, e.opts.Quiet
	// Should a provider, a proxy or a tool echo a key or a token (any
	// provider's, any server's), it goes no further: not to the
	// transcript, the terminal or the model.
	redact := e.secrets
	redact.Add(rm.Redactor().Secrets()...)
	sopts := llm.SessionOptions{
		Provider:  model,
		Store:     store,
		SessionID: sessionID,
		System:    o.System,
		Tools:     o.Specs,
		MaxTurns:  o.MaxTurns,
		Redactor:  redact,
		Tally:     o.Tally,
	}
	if o.Stream {
		sopts.OnText = out.Text
	}
	sopts.OnNotice = func(msg string) {
		out.EndLine()
		if !quiet {
			tell.Tell(notice.Warning, msg)
		}
	}
	sopts.OnCalls = func(calls []*llm.ToolCall) {
		out.EndLine()
		if o.ShowCalls != nil {
			o.ShowCalls(calls)
		}
	}
	ropts := e.RunnerOptions()
	ropts.SessionID = sessionID
	ropts.Store = redact.Store(store)
	ropts.Model = media.WithOptions(model, e.MediaOptions(o.Tally))
	newRunner := func(endGrace <-chan struct{}) *runner.ToolRunner {
		ropts.EndGrace = endGrace
		return runner.New(o.Registry, ropts)
	}
	s := llm.NewSession(sopts)
	if len(o.Old) > 0 {
		// kesoku approve's answers to the calls the session stopped at.
		fin := records.NewFinished()
		for _, rec := range o.Old {
			fin.Add(records.HeadOf(rec))
		}
		e.SetApprovals(fin)
		if err := s.Resume(ctx, o.Old); err != nil {
			return err
		}
	}
	if o.Started != nil {
		o.Started(sessionID, rm.Name(), rm.Provider(), path)
	}
	// The session's span holds its model requests and tool calls.
	ctx = e.traced(ctx)
	ctx, span := tracing.From(ctx).Agent(ctx, tracing.Agent{SessionID: sessionID, Provider: model.Name(), Model: model.ModelName()})
	defer span.End()

	if o.Interactive {
		ir := e.WatchSignals(o.Prompter.InterruptedAtPrompt)
		s.SetRunner(newRunner(ir.EndGrace()))
		err := llm.Interactive(ctx, s, llm.InteractiveOptions{
			Prompter: o.Prompter, Out: out, JSON: o.JSON, Transcript: path,
			// The interrupt may have used up the runner's end of grace.
			Turns: ir, Interrupted: func() { s.SetRunner(newRunner(ir.EndGrace())) },
		})
		if errors.As(err, new(*llm.DeferredError)) {
			return &SessionError{Transcript: path, Err: err}
		}
		return err
	}
	// One prompt: the first signal ends the session, the second the grace
	// of the calls still running, as for kesoku run.
	ir := e.WatchSignals(nil)
	runCtx, end := ir.Turn(ctx)
	defer end()
	s.SetRunner(newRunner(ir.EndGrace()))
	answer, err := s.Send(runCtx, o.Prompt)
	if err != nil {
		span.Error(err)
		if errors.As(err, new(*llm.CutError)) && answer != "" {
			// The partial answer is shown as it would have been; the exit
			// status and the line on stderr say it is partial.
			out.Answer(answer, o.Stream, o.JSON)
		}
		out.EndLine()
		return &SessionError{Transcript: path, Err: err}
	}
	return out.Answer(answer, o.Stream, o.JSON)
}

// stores is a Store that appends to several: the transcript and, with
// the records printed, standard output.
type stores []message.Store

func (ss stores) Append(ctx context.Context, recs ...*message.Record) error {
	for _, s := range ss {
		if err := s.Append(ctx, recs...); err != nil {
			return err
		}
	}
	return nil
}

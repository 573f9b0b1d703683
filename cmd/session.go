package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// sessionOptions are what `kesoku session` was asked to do.
type sessionOptions struct {
	g     *globals
	model provider.Config
	// Registry holds the tools; registry.Default but in tests.
	Registry *registry.Registry

	System string
	toolChoice
	MaxTurns int
	callFlags
	JSON      bool
	Output    string
	Resume    string
	Stream    bool
	streamSet bool
	// InlineLimit is analyze_media's --inline-limit.
	InlineLimit sizeValue

	Prompt string
}

// newSessionCmd builds `kesoku session`; tests pass runF to see the
// options the flags made.
func newSessionCmd(g *globals, runF func(context.Context, *sessionOptions) error) *cobra.Command {
	opts := &sessionOptions{g: g, Registry: registry.Default, InlineLimit: media.DefaultInlineLimit}
	c := &cobra.Command{
		Use:   "session [PROMPT]",
		Short: "Run an agent session: the model calls tools until it answers",
		Long: `session runs the agent loop: the prompt goes to the model, the model's tool
calls run as kesoku run runs requests (one turn's calls at once, up to
--jobs), their results go back, and so on until the model answers with
text. The answer goes to standard output, streamed as it arrives on a
terminal; --json prints the session's Message records instead.

The prompt is the argument, or standard input when it is not a terminal;
with neither, session is interactive: a prompt per line, Ctrl-C interrupts
the turn, Ctrl-D ends the session. The transcript is written as it goes to
-o FILE (default .kesoku/sessions/<session_id>.jsonl in the AWD). The model
is offered the tools that only read: --tools NAME,... offers others in their
place, --tools +write_file adds one to them and -NAME takes one away.

EXIT STATUS
  0    the model answered (tool calls that failed were told to the model)
  1    the provider refused the request, the model gave no answer, its
       answer was cut short (the partial answer is printed, the transcript
       marks it "cut", stderr names the reason), or --max-turns was reached
  2    bad usage: no model, no key, no prompt, an unknown tool, a
       transcript that cannot be read; nothing was sent
  130  interrupted (SIGINT or SIGTERM); the transcript is valid to resume
`,
		Example: `  kesoku session "what is 12345+67890? use the tool" --model gemini-2.5-flash
  echo "list the Go files here" |
    kesoku session --model claude-sonnet-4-5 --tools list_dir,glob
  kesoku session --model gemini-2.5-flash          # interactive, on a terminal`,
		Args: promptArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				if opts.Prompt = strings.TrimSpace(args[0]); opts.Prompt == "" {
					return usageErrf("the prompt is empty: give a prompt with more than spaces in it")
				}
			}
			opts.toolChoice.set(c)
			opts.streamSet = c.Flags().Changed("stream")
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runSession(c.Context(), opts)
		},
	}
	f := c.Flags()
	registerToolModelFlags(f, &opts.model, &opts.InlineLimit)
	f.StringVar(&opts.System, "system", "", "the system instruction")
	opts.toolChoice.register(f)
	intVar(f, &opts.MaxTurns, "max-turns", "", llm.DefaultMaxTurns, 1, maxTurns, "turns a prompt may take")
	opts.callFlags.register(f, 4, "calls of a turn at once")
	f.BoolVar(&opts.JSON, "json", false, "print the session's records, not the answer")
	f.StringVarP(&opts.Output, "output", "o", "", "the transcript `FILE`")
	f.StringVar(&opts.Resume, "resume", "", "continue the session of the transcript `FILE`, appending to it (or, with -o, to a copy)")
	f.BoolVar(&opts.Stream, "stream", false, "show the answer as it comes (default: on a terminal)")
	return seeAlso(c, "providers", "records", "resume", "safety")
}

// maxTurns bounds --max-turns: past it the bound is no bound.
const maxTurns = 10_000

func runSession(ctx context.Context, opts *sessionOptions) error {
	g := opts.g
	// Everything that can be refused is refused before anything runs: the
	// model (a session always calls it, so it needs its key now), the
	// tools offered, the transcript resumed, the prompt.
	_, env, err := g.env(ctx, app.Options{
		Tools: opts.Registry, Calls: opts.callFlags.calls(),
		Model: opts.model, ModelRequired: true, InlineLimit: int64(opts.InlineLimit),
	})
	if err != nil {
		return err
	}
	defer env.Close()
	rm := env.Model
	offer, err := g.offeredTools(env.Tools, opts.toolChoice, true)
	if err != nil {
		return err
	}
	old, err := opts.resumed()
	if err != nil {
		return err
	}
	interactive := opts.Prompt == "" && g.IO.InTTY
	if err := opts.readPrompt(old); err != nil {
		return err
	}

	// The transcript's path is named after the session: its id is needed
	// before the session is made. A UUIDv7, so that transcripts sort by
	// when they began.
	sessionID := llm.SessionIDOf(old)
	if sessionID == "" {
		sessionID = message.NewID()
	}
	path := llm.TranscriptPath(env.Layout(), opts.Output, opts.Resume, sessionID)
	w, err := llm.OpenTranscript(path, opts.Resume, old)
	if err != nil {
		return err
	}
	defer w.Close()
	env.Protect(path, "it is the transcript of this session")
	var store message.Store = w
	if opts.JSON {
		out := records.NewWriter(g.IO.Out)
		defer out.Flush()
		store = sessionStores{w, out}
	}

	model, err := rm.Build(ctx)
	if err != nil {
		return err
	}
	stream := g.IO.OutTTY && !opts.JSON
	if opts.streamSet {
		stream = opts.Stream && !opts.JSON
	}
	out := llm.NewAnswerWriter(g.IO.Out)
	// Should a provider, a proxy or a tool echo the key, it goes no further.
	redact := rm.Redactor()
	// What the session's requests cost, the tools' own among them, is told
	// at the end, however it ends.
	tally := &llm.Tally{}
	defer func() {
		if !g.Quiet {
			out.EndLine()
			if line := usageLine(tally); line != "" {
				fmt.Fprintf(g.IO.Err, "kesoku: %s\n", line)
			}
		}
	}()
	sopts := llm.SessionOptions{
		Provider:  model,
		Store:     store,
		SessionID: sessionID,
		System:    opts.System,
		Tools:     offer.Specs,
		MaxTurns:  opts.MaxTurns,
		Redactor:  redact,
		Tally:     tally,
	}
	if stream {
		sopts.OnText = out.Text
	}
	sopts.OnNotice = func(msg string) {
		out.EndLine()
		if !g.Quiet {
			fmt.Fprintf(g.IO.Err, "kesoku: %s\n", termtext.Lines(msg))
		}
	}
	sopts.OnCalls = func(calls []*llm.ToolCall) {
		out.EndLine()
		if g.Quiet || !(g.IO.ErrTTY || g.Verbose) {
			return
		}
		for _, c := range calls {
			// The model chose the name and the arguments.
			fmt.Fprintf(g.IO.Err, "  → %s %s\n", termtext.Escape(c.Name), termtext.Escape(sessionArgsLine(string(c.Args), 200)))
		}
	}
	ropts := env.RunnerOptions()
	ropts.SessionID = sessionID
	ropts.Store = redact.Store(store)
	ropts.Model = media.WithOptions(model, env.MediaOptions(tally))
	newRunner := func(endGrace <-chan struct{}) *runner.ToolRunner {
		ropts.EndGrace = endGrace
		return runner.New(offer.Registry, ropts)
	}
	s := llm.NewSession(sopts)
	if len(old) > 0 {
		if err := s.Resume(ctx, old); err != nil {
			return err
		}
	}
	if g.Verbose {
		fmt.Fprintf(g.IO.Err, "session %s with %s (%s); transcript %s\n", sessionID, rm.Name(), rm.Provider(), path)
	}

	if interactive {
		ir := env.WatchSignals(func() { fmt.Fprint(g.IO.Err, "\n(Ctrl-D ends the session)\n> ") })
		s.SetRunner(newRunner(ir.EndGrace()))
		return llm.Interactive(ctx, s, llm.InteractiveOptions{
			In: g.IO.In, Err: g.IO.Err, Quiet: g.Quiet, Out: out, JSON: opts.JSON, Transcript: path, Word: errorText,
			// The interrupt may have used up the runner's end of grace.
			Turns: ir, Interrupted: func() { s.SetRunner(newRunner(ir.EndGrace())) },
		})
	}
	// One prompt: the first signal ends the session, the second the grace
	// of the calls still running, as for kesoku run.
	ir := env.WatchSignals(nil)
	runCtx, end := ir.Turn(ctx)
	defer end()
	s.SetRunner(newRunner(ir.EndGrace()))
	answer, err := s.Send(runCtx, opts.Prompt)
	if errors.Is(err, llm.ErrInterrupted) {
		out.EndLine()
		if !g.Quiet {
			fmt.Fprintf(g.IO.Err, "kesoku: interrupted; the transcript is %s (continue with --resume %s)\n", path, path)
		}
		return &exitError{code: ExitInterrupted, silent: true}
	}
	if err != nil {
		if errors.As(err, new(*llm.CutError)) && answer != "" {
			// The partial answer is shown as it would have been; the exit
			// status and the line on stderr say it is partial.
			out.Answer(answer, stream, opts.JSON)
		}
		out.EndLine()
		return fmt.Errorf("session: %w (transcript: %s)", err, path)
	}
	return out.Answer(answer, stream, opts.JSON)
}

// resumed is the transcript --resume names, read whole; none without it.
func (opts *sessionOptions) resumed() ([]*message.Record, error) {
	if opts.Resume == "" {
		return nil, nil
	}
	var old []*message.Record
	err := records.ReadFile(opts.Resume, func(r *message.Record) error { old = append(old, r); return nil })
	if err != nil {
		return nil, usageErrf("--resume: %w", err)
	}
	if len(old) == 0 {
		return nil, usageErrf("--resume %s: the transcript holds no records", opts.Resume)
	}
	return old, nil
}

// readPrompt reads the prompt from standard input when it is no terminal
// and the command line gave none, and checks that prompt and --system are
// text the providers take.
func (opts *sessionOptions) readPrompt(old []*message.Record) error {
	g := opts.g
	if opts.Prompt == "" && !g.IO.InTTY {
		data, err := io.ReadAll(g.IO.In)
		if err != nil {
			return usageErrf("read the prompt from standard input: %w", err)
		}
		opts.Prompt = strings.TrimSpace(string(data))
		switch {
		case opts.Prompt != "":
		case opts.Resume == "":
			return usageErrf("no prompt: give one as an argument or on standard input")
		case !llm.AwaitsModel(old):
			return usageErrf("no prompt: the transcript %s ends with the model's answer; give a prompt to go on", opts.Resume)
		}
	}
	if err := llm.CheckUTF8("the prompt", opts.Prompt); err != nil {
		return usageErr(err)
	}
	if err := llm.CheckUTF8("--system", opts.System); err != nil {
		return usageErr(err)
	}
	return nil
}

// sessionStores is a Store that appends to several: the transcript and,
// with --json, standard output.
type sessionStores []message.Store

func (ss sessionStores) Append(ctx context.Context, recs ...*message.Record) error {
	for _, s := range ss {
		if err := s.Append(ctx, recs...); err != nil {
			return err
		}
	}
	return nil
}

// sessionArgsLine is a call's arguments on one line, cut at limit bytes
// (never inside a character).
func sessionArgsLine(s string, limit int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > limit {
		for limit > 0 && !utf8.RuneStart(s[limit]) {
			limit--
		}
		s = s[:limit] + "…"
	}
	return s
}

// usageLine says what a run's model requests cost, in one line: "usage:
// 1234 input tokens (1000 read from the cache, 200 written to it), 56
// output tokens, in 2 requests". Requests whose usage the model did not
// report are counted as such, never as free. It is "" when nothing was
// asked.
func usageLine(t *llm.Tally) string {
	u, n := t.Total()
	if n == 0 {
		return ""
	}
	unreported := t.Unreported()
	if unreported == n {
		return fmt.Sprintf("usage: not reported by the model, in %d %s", n, english.Plural(n, "request", "requests"))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "usage: %d input tokens", u.InputTokens)
	switch {
	case u.CacheReadTokens > 0 && u.CacheWriteTokens > 0:
		fmt.Fprintf(&b, " (%d read from the cache, %d written to it)", u.CacheReadTokens, u.CacheWriteTokens)
	case u.CacheReadTokens > 0:
		fmt.Fprintf(&b, " (%d read from the cache)", u.CacheReadTokens)
	case u.CacheWriteTokens > 0:
		fmt.Fprintf(&b, " (%d written to the cache)", u.CacheWriteTokens)
	}
	fmt.Fprintf(&b, ", %d output tokens, in %d %s", u.OutputTokens, n, english.Plural(n, "request", "requests"))
	if unreported > 0 {
		fmt.Fprintf(&b, " (%d of them reported none)", unreported)
	}
	return b.String()
}

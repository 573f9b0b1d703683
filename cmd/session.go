package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/records"
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
	budget    budgetFlags
	perms     permissionFlags
	JSON      bool
	Output    string
	Resume    string
	Stream    bool
	streamSet bool
	// InlineLimit is analyze_media's --inline-limit.
	InlineLimit sizeValue
	cassette    cassetteFlags

	Prompt string
}

// newSessionCmd builds `kesoku session`; tests pass runF to see the
// options the flags made.
func newSessionCmd(g *globals, runF func(context.Context, *sessionOptions) error) *cobra.Command {
	opts := &sessionOptions{g: g, Registry: registry.Default, InlineLimit: media.DefaultInlineLimit}
	c := &cobra.Command{
		Use:   "session [PROMPT]",
		Short: "Run an agent session: the model calls tools until it answers",
		Long: `session runs the agent loop: the model's tool calls run as kesoku run runs
requests (a turn's calls at once, up to --jobs) and their results go back,
until the model answers with text on standard output (--json prints the
session's records instead). The prompt is the argument, or standard input;
with neither, on a terminal, it is interactive (Ctrl-C interrupts a turn,
Ctrl-D ends it). The transcript goes to -o FILE (.kesoku/sessions/<id>.jsonl
by default). The model is offered the tools that only read, or --tools.

EXIT STATUS
  0    the model answered (tool calls that failed were told to the model)
  1    the provider refused, no answer, an answer cut short, --max-turns
  2    bad usage: no model, no key, no prompt, an unknown tool, a
       transcript that cannot be read; nothing was sent
  4    the budget was spent (--max-budget-usd, --max-budget-tokens)
  5    stopped at a call that waits (--on-ask defer, hook): kesoku approve
  130  interrupted (SIGINT or SIGTERM); the transcript is valid to resume
`,
		Example: `  kesoku session "what is 12345+67890? use the tool" --model gemini-2.5-flash
  echo "list the Go files here" | kesoku session --model claude-sonnet-4-5
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
	opts.cassette.register(f)
	f.StringVar(&opts.System, "system", "", "the system instruction")
	opts.toolChoice.register(f)
	intVar(f, &opts.MaxTurns, "max-turns", "", llm.DefaultMaxTurns, 1, maxTurns, "turns a prompt may take")
	opts.budget.register(f)
	opts.callFlags.register(f, 4, "calls of a turn at once")
	f.BoolVar(&opts.JSON, "json", false, "print the session's records, not the answer")
	f.StringVarP(&opts.Output, "output", "o", "", "the transcript `FILE`")
	f.StringVar(&opts.Resume, "resume", "", "go on with the transcript `FILE` (with -o, in a copy)")
	f.BoolVar(&opts.Stream, "stream", false, "show the answer as it comes (default: on a terminal)")
	opts.perms.register(f, true)
	return seeAlso(c, "providers", "records", "resume", "safety", "budgets")
}

// maxTurns bounds --max-turns: past it the bound is no bound.
const maxTurns = 10_000

func runSession(ctx context.Context, opts *sessionOptions) error {
	g := opts.g
	// Everything that can be refused is refused before anything runs: the
	// model (a session always calls it, so it needs its key now), the
	// tools offered, the transcript resumed, the prompt, the rules.
	pol, err := opts.perms.options(g.asker(false))
	if err != nil {
		return err
	}
	_, env, err := g.env(ctx, opts.cassette.apply(app.Options{
		Tools: opts.Registry, Calls: opts.callFlags.calls(),
		Model: opts.model, ModelRequired: true, InlineLimit: int64(opts.InlineLimit),
		Starting: g.startNotes().tell, Policy: pol,
	}))
	if err != nil {
		return err
	}
	defer env.Close()
	offer, err := g.offeredTools(env.Tools, opts.toolChoice, true)
	if err != nil {
		return err
	}
	old, err := opts.resumed()
	if err != nil {
		return err
	}
	if err := opts.readPrompt(old); err != nil {
		return err
	}
	// What the session's requests cost, the tools' own among them, is told
	// at the end, however it ends.
	tally, err := opts.budget.tally(g.config.Prices(), env.Model.Name())
	if err != nil {
		return err
	}
	answer := llm.NewAnswerWriter(g.IO.Out)
	defer g.tellUsage(answer, tally, opts.budget)
	so := opts.session(offer, old, tally, answer)
	err = env.Session(ctx, so)
	return sessionErr(err, g.Quiet, g.IO.Err)
}

// session is what the session is to be: the tools offered, what it
// resumes, where its answer and the calls it makes are shown.
func (opts *sessionOptions) session(offer *offering, old []*message.Record, tally *llm.Tally, answer *llm.AnswerWriter) app.SessionOptions {
	g := opts.g
	stream := g.IO.OutTTY && !opts.JSON
	if opts.streamSet {
		stream = opts.Stream && !opts.JSON
	}
	so := app.SessionOptions{
		Specs: offer.Specs, Registry: offer.Registry,
		System: opts.System, MaxTurns: opts.MaxTurns,
		Old: old, Resume: opts.Resume, Output: opts.Output,
		Prompt: opts.Prompt, Interactive: opts.Prompt == "" && g.IO.InTTY, Prompter: g.prompter(),
		Answer: answer, Tally: tally, Out: g.IO.Out, Stream: stream, JSON: opts.JSON,
	}
	if !g.Quiet && (g.IO.ErrTTY || g.Verbose) {
		so.ShowCalls = g.showCalls
	}
	if g.Verbose {
		so.Started = func(id, model, provider, transcript string) {
			fmt.Fprintf(g.IO.Err, "session %s with %s (%s); transcript %s\n", id, model, provider, transcript)
		}
	}
	return so
}

// tellUsage tells what a session's requests cost, unless -q.
func (g *globals) tellUsage(answer *llm.AnswerWriter, tally *llm.Tally, budget budgetFlags) {
	if g.Quiet {
		return
	}
	answer.EndLine()
	if line := usageLine(tally); line != "" {
		if budget.set() {
			line += "; " + budgetLine(tally, budget)
		}
		fmt.Fprintf(g.IO.Err, "kesoku: %s\n", line)
	}
}

// sessionErr words what ended a session: an interrupt says how to go on
// (unless quiet), anything else names the transcript.
func sessionErr(err error, quiet bool, w io.Writer) error {
	var se *app.SessionError
	if !errors.As(err, &se) {
		return err
	}
	if errors.Is(se.Err, llm.ErrInterrupted) {
		if !quiet {
			fmt.Fprintf(w, "kesoku: interrupted; the transcript is %s (continue with --resume %s)\n", se.Transcript, se.Transcript)
		}
		return &exitError{code: ExitInterrupted, silent: true}
	}
	if de, ok := errors.AsType[*llm.DeferredError](se.Err); ok {
		return deferredErr(se.Transcript, de.IDs, "go on with kesoku session --resume "+shellQuote([]string{se.Transcript})+" and the same flags")
	}
	if errors.As(se.Err, new(*llm.BudgetError)) {
		return &exitError{code: ExitBudget, err: fmt.Errorf("session: %w: no model request was sent after that (transcript: %s; go on with --resume %s)", se.Err, se.Transcript, se.Transcript)}
	}
	return fmt.Errorf("session: %w (transcript: %s)", se.Err, se.Transcript)
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
	b.WriteString(tokensText(u))
	fmt.Fprintf(&b, ", in %d %s", n, english.Plural(n, "request", "requests"))
	if unreported > 0 {
		fmt.Fprintf(&b, " (%d of them reported none)", unreported)
	}
	return b.String()
}

// tokensText says the tokens of u: "usage: 10 input tokens (2 read from
// the cache), 5 output tokens".
func tokensText(u message.Usage) string {
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
	fmt.Fprintf(&b, ", %d output tokens", u.OutputTokens)
	return b.String()
}

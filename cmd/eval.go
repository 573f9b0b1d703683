package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/cassette"
	"github.com/kesoku/kesoku/internal/eval"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// evalOptions are what `kesoku eval` was asked to do.
type evalOptions struct {
	g        *globals
	model    provider.Config
	Registry *registry.Registry

	Files     []string
	Output    string
	Resume    bool
	Shard     shardValue
	JUnit     string
	Jobs      int
	Repeat    int
	Threshold float64
	System    string
	MaxTurns  int
	Summary   summaryFormat
	toolChoice
	callFlags
	budget      budgetFlags
	cassette    cassetteFlags
	InlineLimit sizeValue
	perms       permissionFlags
}

func newEvalCmd(g *globals, runF func(context.Context, *evalOptions) error) *cobra.Command {
	opts := &evalOptions{g: g, Registry: registry.Default, InlineLimit: media.DefaultInlineLimit}
	c := &cobra.Command{
		// --model, unless every run replays its cassette, which names its
		// model.
		Use:   "eval FILE... [--model MODEL]",
		Short: "Run a dataset of agent sessions, each checked against its case",
		Long: `eval runs each case of the FILEs (YAML, JSON or JSON Lines) as kesoku
session runs a prompt, --jobs at once, and checks what the session did
against what the case expects (kesoku help eval-files). Each case's
transcript, then its verdict, go to -o FILE (default: standard output).
With --cassette DIR holding every run's cassette, the runs replay them
offline and --model may be left out: each cassette names its model.

EXIT STATUS
  0    every case passed (or pass@1 reached --threshold)
  1    a case failed
  2    bad usage or an eval file with a mistake; nothing was sent
  4    the budget was spent: unfinished cases have a budget verdict
  130  interrupted; the cases cut short are not written (--resume: again)
`,
		Example: `  kesoku eval cases.yaml --model gemini-2.5-flash -o results.jsonl
  kesoku eval cases.jsonl --model claude-sonnet-4-5 --repeat 5 --threshold 0.8`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrf("eval: no eval FILE")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			if opts.Resume && (opts.Output == "" || opts.Output == "-") {
				return usageErrf("--resume needs -o FILE: the verdicts of the earlier eval are read from it")
			}
			opts.Files = args
			opts.toolChoice.set(c)
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runEval(c.Context(), opts)
		},
	}
	f := c.Flags()
	registerToolModelFlags(f, &opts.model, &opts.InlineLimit)
	f.StringVarP(&opts.Output, "output", "o", "", "the records `FILE` (default: standard output)")
	f.BoolVar(&opts.Resume, "resume", false, "skip runs with a final verdict in the -o file; append")
	f.Var(&opts.Shard, "shard", shardUsage)
	f.StringVar(&opts.JUnit, "junit", "", "a JUnit XML report of the cases, to `FILE`")
	intVar(f, &opts.Jobs, "jobs", "j", 4, 1, maxJobs, "cases at once")
	intVar(f, &opts.callFlags.Jobs, "tool-jobs", "", 4, 1, maxJobs, "calls of a turn at once")
	opts.callFlags.registerBounds(f)
	intVar(f, &opts.Repeat, "repeat", "", 1, 1, eval.MaxRepeat, "runs of each case")
	rateVar(f, &opts.Threshold, "threshold", 0, 0, 1, "the pass@1 that passes; 0: all must")
	f.StringVar(&opts.System, "system", "", "the system instruction of cases without one")
	intVar(f, &opts.MaxTurns, "max-turns", "", llm.DefaultMaxTurns, 1, maxTurns, "turns a case may take")
	opts.toolChoice.register(f)
	opts.budget.register(f)
	opts.cassette.registerDir(f)
	registerSummary(f, &opts.Summary)
	opts.perms.register(f, false)
	return seeAlso(c, "eval-files", "budgets", "records", "shards", "providers")
}

func runEval(ctx context.Context, o *evalOptions) error {
	g := o.g
	if err := checkOutputIsNoInput(g, o.Output, o.Files, "an eval file", "cases"); err != nil {
		return err
	}
	if err := checkReportPath(o.JUnit, append([]string{o.Output}, o.Files...)...); err != nil {
		return err
	}
	// Every case is read and checked before anything is sent, then read
	// again as it runs: what is held is the cases under way.
	cases, err := eval.Open(o.Files, eval.OpenOptions{Capitals: o.cassette.File != ""})
	if err != nil {
		return usageErr(err)
	}
	defer cases.Close()
	if c := cases.Capitals(); c != nil {
		return usageErrf("%s: case %q: the case at %s has this id but for capitals: with --cassette their cassettes would be one file where file names ignore case (macOS, Windows)", c.Pos, c.ID, c.First)
	}
	eopts, err := o.envOptions(cases.First())
	if err != nil {
		return err
	}
	ctx, env, err := g.env(ctx, eopts)
	if err != nil {
		return err
	}
	defer env.Close()
	offers, err := o.offers(env, cases)
	if err != nil {
		return err
	}
	tally, err := o.budget.tally(g.config.Prices(), env.Model.Name())
	if err != nil {
		return err
	}
	mode, _ := cassette.ParseMode(o.cassette.Mode)
	result, err := env.Eval(ctx, app.EvalOptions{
		Cases: offers.cases(cases), Set: cases, Repeat: o.Repeat, Jobs: o.Jobs,
		System: o.System, MaxTurns: o.MaxTurns, Tally: tally,
		CassetteDir: o.cassette.File, CassetteMode: mode, Shard: request.Shard(o.Shard), Threshold: o.Threshold,
		Output: o.Output, Stdout: g.IO.Out, Resume: o.Resume, JUnit: o.JUnit,
		Progress: func(total int64) app.Progress { return newEvalProgress(g, total, spentNotes(tally), realClock) },
	})
	if err != nil {
		return appErr(err)
	}
	return o.close(result, tally)
}

// envOptions are the environment of the eval whose first case is first:
// with a cassette directory, that case's first cassette says whether the
// eval replays.
func (o *evalOptions) envOptions(first string) (app.Options, error) {
	mode, _ := cassette.ParseMode(o.cassette.Mode)
	// A batch of cases asks no one: a call the rules ask about is denied.
	pol, err := o.perms.options(nil)
	if err != nil {
		return app.Options{}, err
	}
	opts := app.Options{
		Tools: o.Registry, Calls: o.callFlags.calls(),
		Model: o.model, ModelRequired: true, InlineLimit: int64(o.InlineLimit),
		CassetteMode: mode, Trace: "eval", Policy: pol,
	}
	if dir := o.cassette.File; dir != "" {
		opts.CassetteDir, opts.CassetteProbe = dir, cassette.PathIn(dir, first, 1)
	}
	return opts, nil
}

// offerings are the tools each list of the cases offers, by eval.ToolsKey.
type offerings map[string]*offering

// offers chooses every case's tools before anything is sent: a case that
// names an unknown tool is a mistake in the file. Cases offer few lists
// of tools: each is chosen once.
func (o *evalOptions) offers(env *app.Env, cases *eval.Set) (offerings, error) {
	offers := offerings{}
	for _, l := range cases.Tools() {
		choice := o.toolChoice
		if l.Tools != nil {
			choice = toolChoice{Tools: l.Tools, named: true}
		}
		offer, err := o.g.offeredTools(env.Tools, choice, true)
		if err != nil {
			return nil, usageErrf("%s: %w", l.Pos, err)
		}
		offers[eval.ToolsKey(l.Tools)] = offer
		for _, n := range l.Expected {
			if err := unknownTool(env.Tools, offer, n.Tool); err != nil {
				return nil, usageErrf("%s: case %q: expect: %w", n.Pos, n.Case, err)
			}
		}
	}
	return offers, nil
}

// cases are the cases of set, each with the tools it offers.
func (offers offerings) cases(set *eval.Set) iter.Seq2[app.EvalCase, error] {
	return func(yield func(app.EvalCase, error) bool) {
		for c, err := range set.All() {
			var ec app.EvalCase
			if err == nil {
				offer := offers[eval.ToolsKey(c.Tools)]
				ec = app.EvalCase{Case: c, Specs: offer.Specs, Registry: offer.Registry}
			}
			if !yield(ec, err) {
				return
			}
		}
	}
}

// close says what the eval did and ends it with its exit status.
func (o *evalOptions) close(result app.EvalReport, tally *llm.Tally) error {
	sum := result.Summary
	o.tellSummary(sum, tally, result)
	switch {
	case result.Interrupted:
		return &exitError{code: ExitInterrupted, silent: true}
	case result.Budget:
		return &exitError{code: ExitBudget, silent: true}
	case sum.Failed == 0 || (o.Threshold > 0 && sum.PassAt1 >= o.Threshold):
		return nil
	}
	return errFailures
}

// evalSummary is --summary json's object. Command names it as every
// command's summary does, for a script that reads several.
type evalSummary struct {
	Command string `json:"command"`
	eval.Summary
	Threshold   float64  `json:"threshold,omitempty"`
	Interrupted bool     `json:"interrupted,omitempty"`
	Usage       usageSum `json:"usage"`
}

type usageSum struct {
	message.Usage
	Requests int      `json:"requests"`
	CostUSD  *float64 `json:"cost_usd,omitempty"`
}

// tellSummary says what the eval did on stderr: a line, or one JSON
// object.
func (o *evalOptions) tellSummary(sum eval.Summary, tally *llm.Tally, report app.EvalReport) {
	g := o.g
	if o.Summary == summaryJSON {
		u, n := tally.Total()
		js := evalSummary{Command: "eval", Summary: sum, Threshold: o.Threshold, Interrupted: report.Interrupted, Usage: usageSum{Usage: u, Requests: n}}
		if cost, known := tally.Cost(); known {
			js.Usage.CostUSD = &cost
		}
		b, _ := json.Marshal(js)
		g.IO.Err.Write(append(b, '\n'))
		return
	}
	if g.Quiet {
		return
	}
	line := "eval: " + sum.Text() + thresholdText(sum, o.Threshold)
	if report.Interrupted {
		line += "; interrupted: the cases cut short were not written"
	}
	fmt.Fprintf(g.IO.Err, "kesoku: %s\n", termtext.Escape(line))
	if u := usageLine(tally); u != "" {
		if o.budget.set() {
			u += "; " + budgetLine(tally, o.budget)
		}
		fmt.Fprintf(g.IO.Err, "kesoku: %s\n", u)
	}
	if report.Budget {
		fmt.Fprintf(g.IO.Err, "kesoku: the budget is spent: %s\n", strings.TrimPrefix(budgetLine(tally, o.budget), "spent "))
	}
}

// thresholdText says, where runs failed, whether pass@1 reached
// --threshold: a log that shows a failed case shows why the eval passed.
func thresholdText(sum eval.Summary, threshold float64) string {
	if threshold <= 0 || sum.Failed == 0 {
		return ""
	}
	if sum.PassAt1 >= threshold {
		return fmt.Sprintf("; pass@1 %.2f reaches --threshold %g: the eval passes", sum.PassAt1, threshold)
	}
	return fmt.Sprintf("; pass@1 %.2f is under --threshold %g", sum.PassAt1, threshold)
}

// spentNotes are the notes of progress that say what the eval spent so
// far: its tokens, and their cost where the model has a price.
func spentNotes(t *llm.Tally) func() []string {
	return func() []string {
		u, n := t.Total()
		if n == 0 {
			return nil
		}
		notes := []string{fmt.Sprintf("%d tokens", u.InputTokens+u.OutputTokens)}
		if cost, known := t.Cost(); known {
			notes = append(notes, llm.Dollars(cost))
		}
		return notes
	}
}

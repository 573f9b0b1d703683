package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/cassette"
	"github.com/kesoku/kesoku/internal/eval"
	"github.com/kesoku/kesoku/internal/junit"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/records"
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
		Use:   "eval FILE... --model MODEL",
		Short: "Run a dataset of agent sessions, each checked against its case",
		Long: `eval runs each case of the FILEs (YAML, JSON or JSON Lines) as kesoku
session runs a prompt, --jobs at once, and checks what the session did
against what the case expects (kesoku help eval-files). Each case's
transcript, then its verdict, go to -o FILE (default: standard output).

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
	f.BoolVar(&opts.Resume, "resume", false, "skip runs with a verdict in the -o file; append")
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
	// Every case is read and checked before anything is sent, then read
	// again as it runs: what is held is the cases under way.
	cases, err := eval.Open(o.Files)
	if err != nil {
		return usageErr(err)
	}
	defer cases.Close()
	mode, _ := cassette.ParseMode(o.cassette.Mode)
	// A batch of cases asks no one: a call the rules ask about is denied.
	pol, err := o.perms.options(nil)
	if err != nil {
		return err
	}
	opts := app.Options{
		Tools: o.Registry, Calls: o.callFlags.calls(),
		Model: o.model, ModelRequired: true, InlineLimit: int64(o.InlineLimit),
		CassetteMode: mode, Trace: "eval", Policy: pol,
	}
	if dir := o.cassette.File; dir != "" {
		opts.CassetteDir, opts.CassetteProbe = dir, cassette.PathIn(dir, cases.First(), 1)
	}
	ctx, env, err := g.env(ctx, opts)
	if err != nil {
		return err
	}
	defer env.Close()
	env.RecordsTo(o.Output, "it is the file this eval writes its records to")
	// Every case's tools are chosen before anything is sent: a case that
	// names an unknown tool is a mistake in the file. Cases offer few
	// lists of tools: each is chosen once.
	offers := map[string]*offering{}
	for _, l := range cases.Tools() {
		choice := o.toolChoice
		if l.Tools != nil {
			choice = toolChoice{Tools: l.Tools, named: true}
		}
		offer, err := g.offeredTools(env.Tools, choice, true)
		if err != nil {
			return usageErrf("%s: %w", l.Pos, err)
		}
		offers[toolsKey(l.Tools)] = offer
	}
	tally, err := o.budget.tally(g.config.Prices(), env.Model.Name())
	if err != nil {
		return err
	}
	env.Protect(o.JUnit, "it is the file this eval writes its JUnit report to")
	report, err := createReport(o.JUnit, "kesoku eval", append([]string{o.Output}, o.Files...)...)
	if err != nil {
		return err
	}
	if report != nil {
		defer report.Abandon()
	}
	// Progress counts the runs of this eval's share, those an earlier
	// eval finished taken off as they are skipped.
	total := cases.Runs(o.Repeat)
	prog := newEvalProgress(g, request.Shard(o.Shard).Of(total), spentNotes(tally), realClock)
	defer prog.finish()
	var out recordsOut
	var resumed *records.Resumed
	if o.Resume {
		// Read under the file's lock: no other writer adds verdicts
		// between what this eval skips and what it appends.
		resumed, err = records.ResumeEval(o.Output)
		if re, ok := errors.AsType[*records.ReadError](err); ok {
			return usageErrf("--resume: %w", re.Err)
		}
		if err != nil {
			return usageErr(err)
		}
		out = resumed
	} else if out, err = openRecords(o.Output, prog.around(g.IO.Out, g.IO.OutTTY)); err != nil {
		return usageErr(err)
	}
	defer out.Close()
	// A case's testcase is named by its file, and by its repeat when
	// there are several.
	repeats := cases.Repeats(o.Repeat)
	fileAt := func(position int64) string { return cases.FileAt(position, o.Repeat) }
	eopts := app.EvalOptions{
		Cases: func(yield func(app.EvalCase, error) bool) {
			for c, err := range cases.All() {
				var ec app.EvalCase
				if err == nil {
					offer := offers[toolsKey(c.Tools)]
					ec = app.EvalCase{Case: c, Specs: offer.Specs, Registry: offer.Registry}
				}
				if !yield(ec, err) {
					return
				}
			}
		},
		Repeat: o.Repeat, Jobs: o.Jobs,
		System: o.System, MaxTurns: o.MaxTurns, Tally: tally,
		CassetteDir: o.cassette.File, CassetteMode: mode,
		Shard: o.Shard.K, Shards: o.Shard.N,
		Write: func(recs []*message.Record) error {
			for _, rec := range recs {
				if err := out.Write(rec); err != nil {
					return err
				}
				if rec.Type == message.TypeVerdict {
					prog.verdict(rec)
				}
				if report != nil && rec.Type == message.TypeVerdict {
					if err := report.Add(junit.VerdictCase(rec, fileAt(rec.Position), repeats)); err != nil {
						return err
					}
				}
			}
			// A case is on disk whole before the next starts: a file that
			// cannot take it stops the eval before it spends more.
			if f, ok := out.(interface{ Flush() error }); ok {
				return f.Flush()
			}
			return nil
		},
	}
	if resumed != nil {
		eopts.Earlier = func(position int64, id string) (bool, bool) {
			failed, ok := resumed.Verdicts.Skip(position, id)
			if ok {
				prog.skip()
			}
			return !failed, ok
		}
	}
	result, err := env.Eval(ctx, eopts)
	prog.finish()
	// A shard that wrote a block for every run of its share says so
	// last, with the whole eval's count, for merge.
	var end *message.Record
	if o.Shard.N > 0 && err == nil && !result.Interrupted {
		end = records.ShardEndRecord("", records.ShardEnd{Shard: o.Shard.K, Shards: o.Shard.N, Requests: result.Total})
	}
	switch {
	case resumed != nil && err == nil && !result.Interrupted:
		// Every run came: the file becomes the one an uninterrupted eval
		// would have written, one block a run. An eval cut short leaves
		// what it appended for the next --resume.
		if _, err = resumed.Compact(end); err == nil && report != nil {
			err = reportVerdicts(report, o.Output, fileAt, repeats)
		}
	case end != nil:
		err = out.Write(end)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	// An interrupted eval's report holds the cases written.
	if err = closeReport(report, err); err != nil {
		return err
	}
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

// toolsKey names a case's list of tools; nil, the command's choice, is
// a name no list has.
func toolsKey(tools []string) string {
	if tools == nil {
		return "\x00"
	}
	return fmt.Sprintf("%q", tools)
}

// evalSummary is --summary json's object.
type evalSummary struct {
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
		js := evalSummary{Summary: sum, Threshold: o.Threshold, Interrupted: report.Interrupted, Usage: usageSum{Usage: u, Requests: n}}
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
	line := "eval: " + sum.Text()
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

// reportVerdicts makes report again from the verdicts of the eval file at
// path: a resumed eval's report holds the runs of the earlier eval too.
func reportVerdicts(report *junit.Report, path string, fileAt func(position int64) string, repeats bool) error {
	if err := report.Reset(); err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	err := records.ReadFile(path, func(rec *message.Record) error {
		if rec.Type != message.TypeVerdict {
			return nil
		}
		return report.Add(junit.VerdictCase(rec, fileAt(rec.Position), repeats))
	})
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
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

package cmd

import (
	"context"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/termtext"
)

// mergeOptions are what `kesoku merge` was asked to do.
type mergeOptions struct {
	g       *globals
	Parts   []string
	Output  string
	JUnit   string
	Summary summaryFormat
}

func newMergeCmd(g *globals, runF func(context.Context, *mergeOptions) error) *cobra.Command {
	opts := &mergeOptions{g: g}
	c := &cobra.Command{
		Use:   "merge PART... [-o FILE]",
		Short: "Join the records of a run's (or an eval's) shards in order",
		Long: `merge joins the records files of the N shards of one run (kesoku run
--shard K/N, K = 1 ... N), given in any order, into the file the whole run
would have written: one record per request, in request order, each line as
its shard wrote it. Records go to standard output, or to -o. The shards of
kesoku eval join alike, a run's transcript and verdict as one; a closing
line says the whole eval's pass rates, and merge exits as the eval would.

Each record goes in its place by the position its shard wrote; a resumed
shard's later record of a request takes the place of its aborted one.
Parts that cannot be the N shards of one run (cut short, unfinished, one
missing or given twice) are refused, naming the part and why: kesoku help
shards has the rules. Give the shards one --session.

--junit writes a JUnit report of the merged records as they are written:
it says what the merged file holds, so shards need no report of their own.

EXIT STATUS
  0    every merged record succeeded (an eval: as its shards' --threshold)
  1    at least one error record (aborted ones included), or a case failed
  2    bad usage, a part that cannot be read, parts that are not the shards
       of one run, or an -o file another kesoku writes to; nothing is
       written
  4    an eval's shards hold runs its budget cut, as the eval exits`,
		Example: `  kesoku merge part-1.jsonl part-2.jsonl part-3.jsonl part-4.jsonl -o all.jsonl
  kesoku merge part-*.jsonl > results.jsonl`,
		Args: argSpec{what: "PART", min: 1, max: -1, hint: "give the records files of the run's shards, in any order"}.args,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Parts = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runMerge(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "write the records to `FILE`, not standard output")
	f.StringVar(&opts.JUnit, "junit", "", "also write a JUnit XML report to `FILE`, for CI")
	registerSummary(f, &opts.Summary)
	return seeAlso(c, "shards", "ci")
}

func runMerge(_ context.Context, o *mergeOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	rep, err := app.Merge(app.MergeOptions{Parts: o.Parts, Output: o.Output, Stdout: o.g.IO.Out, JUnit: o.JUnit})
	if err != nil {
		return appErr(err)
	}
	o.g.printSummary(o.Summary, &rep)
	if rep.Eval != nil && o.Summary != summaryJSON && !o.g.Quiet {
		fmt.Fprintf(o.g.IO.Err, "kesoku: %s\n", termtext.Escape("eval: "+rep.Eval.Text()+thresholdText(*rep.Eval, rep.Threshold)))
		if u := rep.Usage; u != nil && u.InputTokens+u.OutputTokens > 0 {
			// As the eval says it, but the requests, which verdicts do
			// not count.
			fmt.Fprintf(o.g.IO.Err, "kesoku: %s\n", tokensText(u.Usage))
		}
	}
	switch {
	case rep.Eval != nil && rep.Eval.Budget > 0:
		// As the eval unsharded exits.
		return &exitError{code: ExitBudget, silent: true}
	case rep.Eval != nil && rep.Threshold > 0 && rep.Eval.PassAt1 >= rep.Threshold:
		// The shards' --threshold passes the whole eval, as it would
		// have passed it unsharded.
		return nil
	case rep.HasErrors():
		return errFailures
	}
	return nil
}

// check refuses an -o file that is also a part, under whatever name, and
// a report's path that is one of the files.
func (o *mergeOptions) check() error {
	if o.Output != "" && o.Output != "-" {
		if st, err := os.Stat(o.Output); err == nil {
			for _, p := range o.Parts {
				if pst, err := os.Stat(p); err == nil && os.SameFile(st, pst) {
					return usageErrf("-o %s is also a part (%s): merging would overwrite it", o.Output, p)
				}
			}
		}
	}
	return checkReportPath(o.JUnit, append([]string{o.Output}, o.Parts...)...)
}

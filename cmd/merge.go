package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/merge"
	"github.com/kesoku/kesoku/message"
)

// mergeOptions are what `kesoku merge` was asked to do.
type mergeOptions struct {
	g      *Globals
	Parts  []string
	Output string
}

func newMergeCmd(g *Globals, runF func(context.Context, *mergeOptions) error) *cobra.Command {
	opts := &mergeOptions{g: g}
	c := &cobra.Command{
		Use:   "merge PART... [-o FILE]",
		Short: "Join the records of a run's shards back into request order",
		Long: `merge joins the records files of the N shards of one run (kesoku run
--shard K/N, K = 1 ... N), given as shard 1 to N, into the file the whole
run would have written: one record per request, in request order, each
line as its shard wrote it. Records go to standard output, or to -o.

Shard K holds the requests at positions K, K+N, K+2N, ..., so the whole
run's order is the shards' records taken in turn; cat and jq cannot do
that. A shard resumed with --resume may hold an aborted record of a
request and, later, its finished one: the finished one takes the aborted
one's place. When the requests have no ids of their own (call_P, P the
position), the parts may come in any order: their ids say which shard
each is, and merge checks every one is in its place.

Parts that cannot be the N shards of one run (one unfinished, one cut
into another number of shards, two of one shard, a call_P out of its
place) are refused, saying which. merge reads no request file, so a part
of another run whose requests fall in the same places is not told apart:
give the shards one --session, and each record says its run.

EXIT STATUS
  0    every merged record succeeded
  1    at least one error record (aborted ones included)
  2    bad usage, a part that cannot be read, parts that are not the shards
       of one run, or an -o file another kesoku writes to; nothing is
       written`,
		Example: `  kesoku merge part-1.jsonl part-2.jsonl part-3.jsonl part-4.jsonl -o all.jsonl
  kesoku merge $(seq -f 'part-%g.jsonl' 1 16) > results.jsonl`,
		Args: argSpec{what: "PART", min: 1, max: -1, hint: "give the records files of the run's shards, 1 to N"}.args,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Parts = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runMerge(c.Context(), opts)
		},
	}
	c.Flags().StringVarP(&opts.Output, "output", "o", "", "write the records to `FILE`, not standard output")
	return seeAlso(c, "shards")
}

func runMerge(_ context.Context, o *mergeOptions) error {
	g := o.g
	var w io.Writer = g.IO.Out
	var out *os.File
	if o.Output != "" && o.Output != "-" {
		if st, err := os.Stat(o.Output); err == nil {
			for _, p := range o.Parts {
				if pst, err := os.Stat(p); err == nil && os.SameFile(st, pst) {
					return usageErrf("-o %s is also a part (%s): merging would overwrite it", o.Output, p)
				}
			}
		}
		// Held until the rename, so that no run writes records into
		// the file the merge replaces (a run that holds it refuses the
		// merge).
		lock, err := message.LockFile(o.Output)
		if err != nil {
			return usageErr(err)
		}
		defer lock.Close()
		// Written beside and renamed: a merge that fails leaves no half
		// file under the name.
		if out, err = os.CreateTemp(dirOf(o.Output), ".kesoku-merge-*"); err != nil {
			return usageErr(err)
		}
		defer os.Remove(out.Name())
		defer out.Close()
		w = out
	}
	sum, err := merge.Merge(o.Parts, w)
	if err != nil {
		return usageErr(fileError(err))
	}
	if out != nil {
		if err := out.Close(); err != nil {
			return err
		}
		if err := os.Rename(out.Name(), o.Output); err != nil {
			return err
		}
	}
	if !g.Quiet {
		fmt.Fprintln(g.IO.Err, describeMerge(sum, len(o.Parts)))
	}
	if sum.Failed > 0 {
		return errFailures
	}
	return nil
}

// dirOf is the directory of path, "." for a bare name.
func dirOf(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[:i+1]
	}
	return "."
}

// describeMerge says in one line what merge did.
func describeMerge(s merge.Summary, parts int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kesoku: %d %s from %d %s: %d succeeded", s.Records, plural(s.Records, "record", "records"), parts, plural(parts, "shard", "shards"), s.Records-s.Failed)
	if s.Failed > 0 {
		fmt.Fprintf(&b, ", %d failed", s.Failed)
		if s.Aborted > 0 {
			fmt.Fprintf(&b, " (%d aborted: run their shards again with --resume)", s.Aborted)
		}
	}
	if s.Replaced > 0 {
		fmt.Fprintf(&b, "; %d aborted %s replaced by a resumed run's", s.Replaced, plural(s.Replaced, "record", "records"))
	}
	return b.String()
}

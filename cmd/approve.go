package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/termtext"
)

// approveOptions are what `kesoku approve` was asked to do.
type approveOptions struct {
	g      *globals
	File   string
	IDs    []string
	Refuse bool
}

func newApproveCmd(g *globals, runF func(context.Context, *approveOptions) error) *cobra.Command {
	opts := &approveOptions{g: g}
	c := &cobra.Command{
		Use:   "approve FILE [ID...] [--refuse]",
		Short: "Answer the tool calls a run stopped at, to run them on --resume",
		Long: `approve answers the calls that a run or a session deferred: calls the
rules ask about (--ask, permissions: ask) that met no terminal to ask at,
under --on-ask defer. The run stopped there, its records file holding each
such call as a record with status "deferred", and exited with 5.

approve FILE ID... approves the deferred calls of those ids (a request's
id, or a model's call id); --refuse refuses them. Then the same command
with --resume runs each approved call exactly once, and records each
refused one as denied (decided_by: kesoku approve). A call deferred again
needs a new answer. Without an ID, approve lists the deferred calls of
FILE and answers none.

The answer is written on the call's record in FILE, in one step, under its
lock: a file a run writes to is refused.

EXIT STATUS
  0    the calls were answered (or listed)
  2    bad usage, an unreadable FILE, or an ID that names no deferred call
       of FILE (nothing is answered then)`,
		Example: `  kesoku run reqs.yaml --ask write_file --on-ask defer -o out.jsonl  # exits 5
  kesoku approve out.jsonl                 # what waits
  kesoku approve out.jsonl call_2          # yes to call_2
  kesoku run reqs.yaml --ask write_file --on-ask defer -o out.jsonl --resume`,
		Args: argSpec{what: "FILE", min: 1, max: -1, hint: "give the records file of the run that stopped"}.args,
		RunE: func(c *cobra.Command, args []string) error {
			opts.File, opts.IDs = args[0], args[1:]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runApprove(c.Context(), opts)
		},
	}
	c.Flags().BoolVar(&opts.Refuse, "refuse", false, "refuse the calls: --resume records them as denied")
	return seeAlso(c, "permissions")
}

func runApprove(_ context.Context, o *approveOptions) error {
	g := o.g
	if len(o.IDs) == 0 {
		return listDeferred(o)
	}
	done, err := records.Approve(o.File, o.IDs, !o.Refuse)
	if nd, ok := errors.AsType[*records.NoDeferredError](err); ok {
		return usageErrf("%s holds no deferred call of %s: %s", termtext.Escape(o.File), english.Plural(len(nd.IDs), "id", "ids"), deferredList(nd.IDs, nd.Deferred))
	}
	if err != nil {
		return usageErr(err)
	}
	verb := "approved"
	if o.Refuse {
		verb = "refused"
	}
	if !g.Quiet {
		for _, d := range done {
			fmt.Fprintf(g.IO.Err, "kesoku: %s %s (%s)\n", verb, termtext.Escape(d.ID), termtext.Escape(d.Name))
		}
		fmt.Fprintf(g.IO.Err, "kesoku: run the same command with --resume to go on\n")
	}
	return nil
}

// listDeferred prints the deferred calls of the file, one a line: its id,
// its tool, its answer so far.
func listDeferred(o *approveOptions) error {
	if _, err := os.Stat(o.File); err != nil {
		return usageErr(err)
	}
	// Approving no id answers nothing, and lists what there is.
	_, err := records.Approve(o.File, []string{"\x00"}, false)
	nd, ok := errors.AsType[*records.NoDeferredError](err)
	if !ok {
		return usageErr(err)
	}
	for _, d := range nd.Deferred {
		answer := d.Approval
		if answer == "" {
			answer = "waiting"
		}
		fmt.Fprintf(o.g.IO.Out, "%s\t%s\t%s\n", termtext.Escape(d.ID), termtext.Escape(d.Name), answer)
	}
	return nil
}

// deferredList says which ids were not found, and which calls are deferred.
func deferredList(missing []string, all []records.Deferred) string {
	for i, id := range missing {
		missing[i] = termtext.Escape(id)
	}
	s := strings.Join(missing, ", ")
	if len(all) == 0 {
		return s + "; it holds no deferred call at all"
	}
	s += "; its deferred calls are"
	for _, d := range all {
		s += " " + termtext.Escape(d.ID)
	}
	return s
}

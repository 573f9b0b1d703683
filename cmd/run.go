package cmd

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/registry"
)

// runOptions are what `kesoku run` was asked to do.
type runOptions struct {
	g        *globals
	Registry *registry.Registry

	Files    []string
	Output   string
	Session  string
	Format   string
	FailFast bool
	Resume   bool
	Shard    shardValue
	JUnit    string
	Summary  summaryFormat
	// starts say each MCP server as it starts (startNotes).
	starts *startNotes
	callFlags
	perms permissionFlags
	// asker asks at the terminal, nil without one.
	asker *terminalAsker

	// format is the format --format forces, "" for none; set by check.
	format request.Format

	// model is the active model of the calls (--model), for tools that
	// ask one (analyze_media). See cmd/analyze.go.
	model       provider.Config
	InlineLimit sizeValue
}

// newRunCmd builds `kesoku run`; tests pass runF to see the options the
// flags made without running anything.
func newRunCmd(g *globals, runF func(context.Context, *runOptions) error) *cobra.Command {
	opts := &runOptions{g: g, Registry: registry.Default, InlineLimit: media.DefaultInlineLimit}
	c := &cobra.Command{
		Use:   "run FILE... [flags]",
		Short: "Run the tool requests in files and write one record per request",
		Long: `run executes the tool requests in each FILE and writes one Message record
per request, as a JSON line, in request order: to standard output, or to
the file of -o. A FILE is YAML, JSON or JSON Lines, "-" for standard input;
it may hold a session's transcript, whose tool calls are replayed.

Each request is checked against its tool's parameters, then runs, up to
--jobs at once. Every request read gets one record, whatever happens: a
bad argument (with "did you mean"), an error, a panic, a --timeout, an
interrupt. Output past --max-output is cut, kept whole in .kesoku/outputs.
Progress: a bar on a terminal, a line every 10s otherwise (2s with -v).

EXIT STATUS
  0    every record succeeded
  1    at least one error record
  2    bad usage, or a file unreadable, unparsable or empty; nothing ran
  5    stopped at a call that waits (--on-ask defer, hook): kesoku approve
  130  interrupted (SIGINT or SIGTERM); every request still has its record`,
		Example: `  kesoku run testdata/requests.yaml        # the bundled example
  kesoku run batch.jsonl --jobs 8 -o results.jsonl
  jq 'select(.is_error)' results.jsonl     # the failures
  echo '{"name": "calculate_sum", "args": {"a": 1, "b": 2}}' | kesoku run -`,
		Args: requestFileArgs,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Files = args
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runRun(c.Context(), opts)
		},
	}
	f := c.Flags()
	f.StringVarP(&opts.Output, "output", "o", "", "write the records to `FILE`, not standard output")
	f.StringVar(&opts.Session, "session", "", "the records' session_id (default: the file's, or new)")
	checkedVar(f, &opts.Format, "format", "", "the files' format: yaml, json or jsonl", checkRequestFormat)
	opts.callFlags.register(f, 1, "how many calls run at once")
	f.BoolVar(&opts.FailFast, "fail-fast", false, "after the first error, abort the rest")
	f.BoolVar(&opts.Resume, "resume", false, "skip what the -o file has finished; append")
	f.Var(&opts.Shard, "shard", shardUsage)
	f.StringVar(&opts.JUnit, "junit", "", junitUsage)
	registerSummary(f, &opts.Summary)
	registerToolModelFlags(f, &opts.model, &opts.InlineLimit)
	opts.perms.register(f, true)
	return seeAlso(c, "requests", "records", "resume", "shards", "ci")
}

// check refuses flag combinations that make no sense: bad usage, exit 2.
func (o *runOptions) check() error {
	if o.Resume && (o.Output == "" || o.Output == "-") {
		return usageErrf("--resume needs -o FILE: the records of the earlier run are read from it")
	}
	if o.perms.OnAsk == "defer" && (o.Output == "" || o.Output == "-") {
		return usageErrf("--on-ask defer needs -o FILE: a deferred call is answered in it (kesoku approve), and the run resumed from it")
	}
	var err error
	if o.format, err = requestFormat(o.Format, o.Files); err != nil {
		return err
	}
	if err := o.checkOutputIsNoInput(); err != nil {
		return err
	}
	if err := checkReportPath(o.JUnit, append([]string{o.Output}, o.Files...)...); err != nil {
		return err
	}
	return checkToolModel(o.model)
}

// checkOutputIsNoInput refuses an -o file that is also a request file,
// under whatever name: creating it would empty the requests before they
// are read, and --resume would append records to them.
func (o *runOptions) checkOutputIsNoInput() error {
	return checkOutputIsNoInput(o.g, o.Output, o.Files, "a request file", "requests")
}

// checkOutputIsNoInput refuses an output file that is also one of files,
// inputs of the kind what (whose content is their), under whatever name.
func checkOutputIsNoInput(g *globals, output string, files []string, what, their string) error {
	if output == "" || output == "-" {
		return nil
	}
	out, err := os.Stat(output)
	if err != nil {
		return nil // a file that does not exist yet is no input
	}
	for _, name := range files {
		if name == "-" {
			// Standard input redirected from the -o file (run - -o F < F)
			// would read back the records it writes, for ever.
			if st, ok := g.IO.In.(interface{ Stat() (os.FileInfo, error) }); ok {
				if in, err := st.Stat(); err == nil && os.SameFile(in, out) {
					return usageErrf("-o %s is also standard input: the records would be read back as %s", output, their)
				}
			}
			continue
		}
		if in, err := os.Stat(name); err == nil && os.SameFile(in, out) {
			return usageErrf("-o %s is also %s (%s): the records would overwrite the %s", output, what, name, their)
		}
	}
	return nil
}

func runRun(ctx context.Context, o *runOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	// One turn from start to end: the MCP servers start as requests need
	// them, under its context, so that an interrupt cuts a start short.
	o.starts = o.g.startNotes()
	// Standard input that holds requests is nobody's to answer at.
	o.asker = o.g.asker(countStdin(o.Files) > 0)
	pol, err := o.perms.options(o.asker)
	if err != nil {
		return err
	}
	// Records on standard output are no file to approve in and resume.
	pol.NoDefer = pol.NoDefer || o.Output == "" || o.Output == "-"
	ctx, env, err := o.g.env(ctx, app.Options{
		Tools: o.Registry, Calls: o.callFlags.calls(), OneTurn: true,
		Model: o.model, InlineLimit: int64(o.InlineLimit), Starting: o.starts.tell, Trace: "run",
		Policy: pol,
	})
	if err != nil {
		return err
	}
	defer env.Close()
	if o.g.HardStop != nil {
		// Whatever the run waits on, the second signal ends it.
		defer o.g.HardStop(env.Interrupts.EndGrace(), o.g.IO.Err)()
	}
	o.g.IO.noteReading(o.Files, o.g.Quiet)
	rep, err := env.Run(ctx, app.RunOptions{
		Files: o.Files, Format: o.format, Stdin: o.g.IO.In, Output: o.Output, Stdout: o.g.IO.Out, Resume: o.Resume,
		Session: o.Session, FailFast: o.FailFast, Shard: request.Shard(o.Shard), JUnit: o.JUnit,
		Progress: o.progress, Count: o.g.IO.ErrTTY && !o.g.Quiet,
	})
	if err != nil {
		return appErr(err)
	}
	return o.g.closeRun(o.Summary, &rep, o.Output)
}

// progress starts the run's progress, and says each MCP server that
// starts around it.
func (o *runOptions) progress(total int64, others func() int64) app.Progress {
	p := newProgress(o.g, total, "running", others)
	o.starts.to(p.around(o.g.IO.Err, o.g.IO.ErrTTY))
	if o.asker != nil {
		// A question is not drawn over.
		o.asker.hold = p.hold
	}
	return p
}

// closeRun says what a run did and ends it with its exit status.
func (g *globals) closeRun(format summaryFormat, rep *records.RunReport, output string) error {
	g.printSummary(format, rep)
	switch {
	case rep.Interrupted && (!g.Quiet || format == summaryJSON):
		return errInterruptedReported
	case rep.Interrupted:
		return errInterrupted
	case len(rep.Deferred) > 0:
		return deferredErr(output, rep.Deferred, "run the same command with --resume")
	case rep.HasErrors():
		// The exit status describes the file: error records an earlier
		// run left there count as much as new ones.
		return errFailures
	}
	return nil
}

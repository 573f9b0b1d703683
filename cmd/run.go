package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/junit"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/message"
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
	// asker asks at the terminal, nil without one; deferred are the ids
	// of the calls the run deferred.
	asker    *terminalAsker
	deferred []string

	// format is the format --format forces, "" for none; set by check.
	format request.Format
	// resumedSession is the session of the records --resume goes on from.
	resumedSession string

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
  5    stopped at a call the rules ask about (--on-ask defer): kesoku approve
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

// requestFormat checks what run and validate share: --format, and the
// FILE arguments reading standard input at most once. It returns the
// format --format forces ("" for none); its errors are bad usage.
func requestFormat(flag string, files []string) (request.Format, error) {
	format, err := request.ParseFormat(flag)
	if err != nil {
		return "", usageErrf("--format: %w", err)
	}
	if n := countStdin(files); n > 1 {
		return "", usageErrf(`"-" (standard input) given %d times`, n)
	}
	return format, nil
}

// checkOutputIsNoInput refuses an -o file that is also a request file,
// under whatever name: creating it would empty the requests before they
// are read, and --resume would append records to them.
func (o *runOptions) checkOutputIsNoInput() error {
	if o.Output == "" || o.Output == "-" {
		return nil
	}
	out, err := os.Stat(o.Output)
	if err != nil {
		return nil // a file that does not exist yet is no request file
	}
	for _, name := range o.Files {
		if name == "-" {
			// Standard input redirected from the -o file (run - -o F < F)
			// would read back the records it writes, for ever.
			if st, ok := o.g.IO.In.(interface{ Stat() (os.FileInfo, error) }); ok {
				if in, err := st.Stat(); err == nil && os.SameFile(in, out) {
					return usageErrf("-o %s is also standard input: the records would be read back as requests", o.Output)
				}
			}
			continue
		}
		if in, err := os.Stat(name); err == nil && os.SameFile(in, out) {
			return usageErrf("-o %s is also a request file (%s): the records would overwrite the requests", o.Output, name)
		}
	}
	return nil
}

func countStdin(files []string) int {
	n := 0
	for _, f := range files {
		if f == "-" {
			n++
		}
	}
	return n
}

// runnerOptions are the ToolRunner's options of the run: the
// environment's, with the run's interrupts, session and store.
func (o *runOptions) runnerOptions(env *app.Env, store message.Store, finished *records.Finished) runner.Options {
	session := o.Session
	if session == "" {
		session = o.resumedSession
	}
	if session == "" {
		session = message.NewID()
	}
	opts := env.RunnerOptions()
	opts.FailFast = o.FailFast
	opts.IsInterrupted = env.Interrupts.Interrupted
	opts.EndGrace = env.Interrupts.EndGrace()
	opts.Finished = finished
	opts.ArgsHash = true
	opts.Shard = request.Shard(o.Shard)
	opts.SessionID = session
	opts.Store = store
	return opts
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
	ctx, env, err := o.g.env(ctx, app.Options{
		Tools: o.Registry, Calls: o.callFlags.calls(), OneTurn: true,
		Model: o.model, InlineLimit: int64(o.InlineLimit), Starting: o.starts.tell,
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
	env.RecordsTo(o.Output, "it is the file this run writes its records to")
	env.Protect(o.JUnit, "it is the file this run writes its JUnit report to")
	files, err := o.openRequests(ctx)
	if err != nil {
		return err
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	var resumed *records.Resumed
	if o.Resume {
		if resumed, err = o.resume(); err != nil {
			return err
		}
		defer resumed.Close()
	}
	sum, err := o.runRequests(ctx, env, files, resumed)
	if err != nil {
		return err
	}
	o.g.printSummary(o.Summary, &sum)
	switch {
	case sum.Interrupted && (!o.g.Quiet || o.Summary == summaryJSON):
		return errInterruptedReported
	case sum.Interrupted:
		return errInterrupted
	case len(o.deferred) > 0:
		return deferredErr(o.Output, o.deferred, "run the same command with --resume")
	case sum.HasErrors():
		// The exit status describes the file: error records an earlier
		// run left there count as much as new ones.
		return errFailures
	}
	return nil
}

// openRequests opens the request files, standard input among them.
func (o *runOptions) openRequests(ctx context.Context) ([]*request.File, error) {
	o.g.IO.noteReading(o.Files, o.g.Quiet)
	stdin := request.NewInterruptibleReader(ctx, o.g.IO.In)
	files, err := openRequestFiles(ctx, o.Files, o.format, stdin)
	if err != nil && ctx.Err() != nil {
		// An interrupt cut standard input short: what did not parse is
		// what the interrupt left, not the user's mistake.
		return nil, &exitError{code: ExitInterrupted, err: errors.New("interrupted while reading the requests: nothing ran")}
	}
	return files, err
}

// resume opens the -o file of --resume: what it has finished, and its end
// to append to.
func (o *runOptions) resume() (*records.Resumed, error) {
	// Read under the file's lock: another writer cannot add records
	// between what this run reads as finished and what it appends.
	resumed, err := records.Resume(o.Output, nil)
	if re, ok := errors.AsType[*records.ReadError](err); ok {
		return nil, usageErrf("--resume: %w", re.Err)
	}
	if err != nil {
		return nil, usageErr(err)
	}
	if o.Session == "" {
		// The resumed run goes on in the earlier run's session, so that
		// one batch's records are one session. A file's own session_id
		// still wins for its requests.
		o.resumedSession = resumed.Finished.Session
	}
	return resumed, nil
}

// runRequests runs the files' requests and writes their records, with a
// progress bar on a terminal: to the -o file, standard output, or the end
// of the resumed file, which is compacted when every request was read.
func (o *runOptions) runRequests(ctx context.Context, env *app.Env, files []*request.File, resumed *records.Resumed) (records.Summary, error) {
	barShown := o.g.IO.ErrTTY && !o.g.Quiet
	total := requestTotal(ctx, files, barShown)
	others := func() (n int64) {
		for _, f := range files {
			n += f.Others()
		}
		return n
	}
	if sh := request.Shard(o.Shard); !sh.Whole() {
		if total >= 0 {
			total = sh.Of(total)
		}
		// A transcript's records that are no requests fall in any
		// shard's share: the bar's total stays the share of them all.
		others = nil
	}
	prog := newProgress(o.g, total, "running", others)
	defer prog.finish()
	if o.asker != nil {
		// A question is not drawn over.
		o.asker.hold = prog.hold
	}
	o.starts.to(prog.around(o.g.IO.Err, o.g.IO.ErrTTY))
	var out recordsOut
	var finished *records.Finished
	if resumed != nil {
		out, finished = resumed, resumed.Finished
	} else {
		var err error
		if out, err = openRecords(o.Output, prog.around(o.g.IO.Out, o.g.IO.OutTTY)); err != nil {
			return records.Summary{}, usageErr(err)
		}
		defer out.Close()
	}
	ropts := o.runnerOptions(env, out, finished)
	ropts.OnSkip = func(*request.Request) { prog.skip() }
	if finished != nil {
		// The answers kesoku approve gave to the calls deferred.
		env.SetApprovals(finished)
	}
	r := runner.New(env.Tools.Registry, ropts)

	// The report says what was recorded, interrupted or not.
	report, err := createReport(o.JUnit, "kesoku run", append([]string{o.Output}, o.Files...)...)
	if err != nil {
		return records.Summary{}, err
	}
	var sources *junit.Sources
	if report != nil {
		defer report.Abandon()
		sources = &junit.Sources{}
	}
	var read int64 // the requests of the whole run read, every shard's
	sum, runErr := r.Run(ctx, allRequests(files, o.Session != "", sources, &read), func(rec *message.Record) error {
		if err := out.Write(rec); err != nil {
			return err
		}
		if rec.Status == message.StatusDeferred {
			o.deferred = append(o.deferred, rec.ParentID)
		}
		prog.record(rec)
		if report != nil {
			return report.Add(junit.RecordCase(rec, sources.Of(rec.Position)))
		}
		return nil
	})
	prog.finish()
	if runErr == nil {
		runErr = inputErr(files, &sum)
	}
	// A shard (--shard K/N, 1/1 too) that recorded every request of its
	// share says so last, with the run's count: merge then tells it from a
	// part that lost its last records. A shard cut short says nothing, and
	// merge refuses it.
	var end *message.Record
	if sh := request.Shard(o.Shard); sh.N > 0 && runErr == nil && !sum.Interrupted && !sum.FailedFast && len(o.deferred) == 0 {
		end = records.ShardEndRecord(ropts.SessionID, records.ShardEnd{Shard: sh.K, Shards: sh.N, Requests: read})
	}
	if resumed == nil && end != nil {
		if err := out.Write(end); err != nil {
			runErr = err
		}
	}
	if resumed != nil && runErr == nil && !sum.Interrupted {
		// Every request read: the file becomes the one an uninterrupted
		// run would have written. A run cut short leaves the records it
		// appended for the next --resume, which reads them as well.
		c, err := resumed.Compact(end)
		if err != nil {
			return sum, err
		}
		sum.Replaced, sum.Dropped, sum.Foreign, sum.Output = c.Replaced, c.Dropped, c.Foreign, o.Output
		if report != nil && c.Foreign == 0 {
			// The file holds one record per request, in request order:
			// the report is made of them all, those of the earlier run too.
			runErr = reportFile(report, o.Output, sources)
		}
	}
	// An interrupted run's report holds what it recorded.
	runErr = closeReport(report, runErr)
	if err := out.Close(); err != nil && runErr == nil {
		runErr = err
	}
	return sum, runErr
}

// reportFile makes report again from the records of the file at path.
func reportFile(report *junit.Report, path string, sources *junit.Sources) error {
	if err := report.Reset(); err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	err := records.ReadFile(path, func(rec *message.Record) error {
		if rec.Type != message.TypeToolResult {
			return nil
		}
		return report.Add(junit.RecordCase(rec, sources.Of(rec.Position)))
	})
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
}

// inputErr is the first error of reading the request files, as bad usage.
// An interrupt that ended a read of standard input is none: what did not
// come was not read.
func inputErr(files []*request.File, sum *records.Summary) error {
	for _, f := range files {
		err := f.Err()
		if sum.Interrupted && errors.Is(err, context.Canceled) {
			sum.StoppedReading = true
			continue
		}
		if err != nil {
			return usageErr(err)
		}
	}
	return nil
}

// countLimit bounds the time spent counting the requests of JSON Lines
// files for the progress bar's total before the run starts: a file too
// large to count in that time gets a bar without a total.
const countLimit = time.Second

// requestTotal is how many requests the files hold, for the progress bar,
// or -1 when that is not known. Counting a JSON Lines file reads it once
// more, so it is done only when count says a bar will show it.
func requestTotal(ctx context.Context, files []*request.File, count bool) int64 {
	ctx, cancel := context.WithTimeout(ctx, countLimit)
	defer cancel()
	total := int64(0)
	for _, f := range files {
		n := int64(f.Len())
		if n < 0 {
			if !count {
				return -1
			}
			var err error
			if n, err = f.Count(ctx); err != nil || n < 0 {
				return -1
			}
		}
		total += n
	}
	return total
}

// openRequestFiles opens every file before anything runs, so that a file
// that cannot be read or parsed stops the run at once. Every such file is
// reported, not only the first.
func openRequestFiles(ctx context.Context, names []string, format request.Format, stdin io.Reader) ([]*request.File, error) {
	var files []*request.File
	var errs []error
	for _, name := range names {
		f, err := request.Open(ctx, name, format, stdin)
		if err != nil {
			errs = append(errs, fileError(err))
			continue
		}
		files = append(files, f)
	}
	if len(errs) > 0 {
		for _, f := range files {
			f.Close()
		}
		return nil, usageErr(errors.Join(errs...))
	}
	return files, nil
}

// fileError is err with, for a parse error, the offending line and a caret
// under the column.
func fileError(err error) error {
	var pe *request.ParseError
	if errors.As(err, &pe) {
		if s := pe.Snippet(); s != "" {
			return fmt.Errorf("%w\n%s", err, s)
		}
	}
	// "missing.yaml: no such file or directory", as every other message
	// about a file begins with its name, not "open missing.yaml: ...".
	var fe *fs.PathError
	if errors.As(err, &fe) && err == error(fe) {
		return fmt.Errorf("%s: %w", fe.Path, fe.Err)
	}
	return err
}

// allRequests chains the files' requests in order. With --session, the
// flag's session wins over the files' own. sources, when not nil, is
// told where each file's requests begin; read is how many were read.
func allRequests(files []*request.File, sessionFlag bool, sources *junit.Sources, read *int64) iter.Seq[*request.Request] {
	return func(yield func(*request.Request) bool) {
		n := int64(0)
		defer func() { *read = n }()
		for _, f := range files {
			if sources != nil {
				sources.Begin(f.Name, n+1)
			}
			for req := range f.Requests() {
				n++
				if sessionFlag {
					req.SessionID = ""
				}
				if !yield(req) {
					return
				}
			}
		}
	}
}

// recordsOut is where records go: a file or standard output.
type recordsOut interface {
	message.Store
	Write(*message.Record) error
	Close() error
}

// openRecords opens the records' destination: standard output or a new
// file. (--resume opens the end of an existing one, under its lock, as it
// reads it: records.Resume.)
func openRecords(path string, stdout io.Writer) (recordsOut, error) {
	if path == "" || path == "-" {
		return records.NewWriter(stdout), nil
	}
	return records.Create(path)
}

package app

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"

	"github.com/kesoku/kesoku/internal/junit"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/message"
)

// RunOptions are what kesoku run over the environment is asked to do. The
// caller has checked them (the -o file is no request file, --resume has
// one, the report's path is none of the others).
type RunOptions struct {
	// Files are the request files, "-" standard input (Stdin); Format the
	// format they are read as ("" by their names).
	Files  []string
	Format request.Format
	Stdin  io.Reader
	// Output is the records file, "" or "-" for Stdout; Resume goes on
	// with the run that wrote it, appending to it.
	Output string
	Stdout io.Writer
	Resume bool
	// Session is the records' session_id, which wins over the files' own;
	// "" for the files' (or the resumed run's, or a new one).
	Session  string
	FailFast bool
	// Shard is the share of the requests this run runs (K/N), the whole
	// run for none.
	Shard request.Shard
	// JUnit is the path of the JUnit report, "" for none.
	JUnit string
	// Progress, when set, starts showing the progress of total records
	// (-1 when not known; others, when not nil, says how many of what
	// total counted were records that are no requests), and returns it.
	// Count says whether JSON Lines files are worth counting for total
	// (a bar will show it).
	Progress func(total int64, others func() int64) Progress
	Count    bool
}

// UsageError is what was the user's to fix: a request file that cannot be
// read, an -o file that cannot be created, a report that cannot be
// (a *ReportError in it), records a resumed run cannot read (a
// *ResumeError in it).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ResumeError is why the records of the file a run resumes could not be
// read.
type ResumeError struct{ Err error }

func (e *ResumeError) Error() string { return e.Err.Error() }
func (e *ResumeError) Unwrap() error { return e.Err }

// FilesError says which request files could not be opened or parsed:
// every one of them, not only the first.
type FilesError struct{ Errs []error }

func (e *FilesError) Error() string   { return errors.Join(e.Errs...).Error() }
func (e *FilesError) Unwrap() []error { return e.Errs }

// ErrReadInterrupted says an interrupt cut standard input short while the
// requests were read, before anything ran: what did not parse is what the
// interrupt left, not the user's mistake.
var ErrReadInterrupted = errors.New("interrupted while reading the requests: nothing ran")

// Run runs the requests of the files through the ToolRunner and hands
// their records to a sink: the -o file, standard output, or the end of
// the resumed file, which is compacted when every request was read; the
// progress and the JUnit report as they come. A shard that recorded its
// whole share ends its file with a shard_end line. The report says what
// was recorded, interrupted or not.
func (e *Env) Run(ctx context.Context, o RunOptions) (records.RunReport, error) {
	e.RecordsTo(o.Output, "it is the file this run writes its records to")
	e.Protect(o.JUnit, "it is the file this run writes its JUnit report to")
	files, err := openRequests(ctx, o)
	if err != nil {
		return records.RunReport{}, err
	}
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	session := o.Session
	var resumed *records.Resumed
	var out RecordsOut
	if o.Resume {
		// Read under the file's lock: another writer cannot add records
		// between what this run reads as finished and what it appends.
		if resumed, err = records.Resume(o.Output, nil); err != nil {
			if re, ok := errors.AsType[*records.ReadError](err); ok {
				return records.RunReport{}, &UsageError{Err: &ResumeError{re.Err}}
			}
			return records.RunReport{}, &UsageError{Err: err}
		}
		defer resumed.Close()
		if err := resumed.Finished.CheckShard(o.Output, o.Shard.K, o.Shard.N); err != nil {
			return records.RunReport{}, &UsageError{Err: &ResumeError{err}}
		}
		// The resumed run goes on in the earlier run's session, so that
		// one batch's records are one session. A file's own session_id
		// still wins for its requests.
		session, out = cmpOr(session, resumed.Finished.Session), resumed
	}
	if session == "" {
		session = message.NewID()
	}
	var prog Progress
	if o.Progress != nil {
		prog = o.Progress(progressTotal(ctx, files, o))
	}
	if out == nil {
		stdout := o.Stdout
		if prog != nil {
			stdout = prog.Around(stdout)
		}
		if out, err = OpenRecords(o.Output, stdout, false); err != nil {
			if prog != nil {
				prog.Finish()
			}
			return records.RunReport{}, &UsageError{Err: err}
		}
	}
	var sources *junit.Sources
	if o.JUnit != "" {
		sources = &junit.Sources{}
	}
	sink, err := OpenSink(SinkOptions{Records: out, JUnit: o.JUnit, Suite: "kesoku run", Progress: prog,
		Case: func(rec *message.Record) *junit.Case {
			if rec.Type != message.TypeToolResult {
				return nil
			}
			return junit.RecordCase(rec, sources.Of(rec.Position))
		}})
	if err != nil {
		out.Close()
		if prog != nil {
			prog.Finish()
		}
		return records.RunReport{}, &UsageError{Err: err}
	}
	defer sink.Abandon()
	return e.runInto(ctx, o, files, session, resumed, sink, sources)
}

// runInto runs the requests of files into sink.
func (e *Env) runInto(ctx context.Context, o RunOptions, files []*request.File, session string, resumed *records.Resumed, sink *Sink, sources *junit.Sources) (records.RunReport, error) {
	ropts := e.RunnerOptions()
	ropts.FailFast = o.FailFast
	ropts.IsInterrupted = e.Interrupts.Interrupted
	ropts.EndGrace = e.Interrupts.EndGrace()
	ropts.Finished = resumedFinished(resumed)
	ropts.ArgsHash = true
	ropts.Shard = o.Shard
	ropts.SessionID = session
	ropts.Store = sink
	ropts.OnSkip = func(*request.Request) { sink.Skip() }
	if resumed != nil {
		// kesoku approve's answers to the calls the earlier run deferred.
		e.SetApprovals(resumed.Finished)
	}
	r := runner.New(e.Tools.Registry, ropts)
	var read int64 // the requests of the whole run read, every shard's
	var deferred []string
	rep, runErr := r.Run(ctx, allRequests(files, o.Session != "", sources, &read), func(rec *message.Record) error {
		if rec.Status == message.StatusDeferred {
			deferred = append(deferred, rec.ParentID)
		}
		return sink.Write(rec)
	})
	rep.Deferred = deferred
	sink.FinishProgress()
	if runErr == nil {
		runErr = inputErr(files, &rep)
	}
	// A shard (--shard K/N, 1/1 too) that recorded every request of its
	// share says so last, with the run's count: merge then tells it from a
	// part that lost its last records. A shard cut short says nothing, and
	// merge refuses it.
	var end *message.Record
	if o.Shard.N > 0 && runErr == nil && !rep.Interrupted && !rep.FailedFast && len(rep.Deferred) == 0 {
		end = records.ShardEndRecord(session, records.ShardEnd{Shard: o.Shard.K, Shards: o.Shard.N, Requests: read})
	}
	switch {
	case resumed != nil && runErr == nil && !rep.Interrupted:
		// Every request read: the file becomes the one an uninterrupted
		// run would have written. A run cut short leaves the records it
		// appended for the next --resume, which reads them as well.
		c, err := sink.End(resumed, o.Output, end)
		if err != nil && !errors.As(err, new(*ReportError)) {
			return rep, err
		}
		rep.Replaced, rep.Dropped, rep.Foreign, rep.Output = c.Replaced, c.Dropped, c.Foreign, o.Output
		runErr = err
	case resumed == nil && end != nil:
		_, runErr = sink.End(nil, o.Output, end)
	}
	return rep, sink.Close(runErr)
}

func resumedFinished(r *records.Resumed) *records.Finished {
	if r == nil {
		return nil
	}
	return r.Finished
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// openRequests opens the request files, standard input among them,
// before anything runs, so that a file that cannot be read or parsed
// stops the run at once.
func openRequests(ctx context.Context, o RunOptions) ([]*request.File, error) {
	stdin := request.NewInterruptibleReader(ctx, o.Stdin)
	files, err := OpenRequestFiles(ctx, o.Files, o.Format, stdin)
	if err != nil && ctx.Err() != nil {
		return nil, ErrReadInterrupted
	}
	return files, err
}

// OpenRequestFiles opens every file of names; the error of any that
// cannot be read or parsed is a *FilesError of them all.
func OpenRequestFiles(ctx context.Context, names []string, format request.Format, stdin io.Reader) ([]*request.File, error) {
	var files []*request.File
	var errs []error
	for _, name := range names {
		f, err := request.Open(ctx, name, format, stdin)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		files = append(files, f)
	}
	if len(errs) > 0 {
		for _, f := range files {
			f.Close()
		}
		return nil, &FilesError{errs}
	}
	return files, nil
}

// inputErr is the first error of reading the request files. An interrupt
// that ended a read of standard input is none: what did not come was not
// read.
func inputErr(files []*request.File, rep *records.RunReport) error {
	for _, f := range files {
		err := f.Err()
		if rep.Interrupted && errors.Is(err, context.Canceled) {
			rep.StoppedReading = true
			continue
		}
		if err != nil {
			return &UsageError{Err: err}
		}
	}
	return nil
}

// countLimit bounds the time spent counting the requests of JSON Lines
// files for the progress's total before the run starts: a file too large
// to count in that time gets a progress without a total.
const countLimit = time.Second

// progressTotal is the total and the others of the progress of a run (see
// RunOptions.Progress): a shard's share of the requests.
func progressTotal(ctx context.Context, files []*request.File, o RunOptions) (int64, func() int64) {
	total := RequestTotal(ctx, files, o.Count)
	if !o.Shard.Whole() {
		if total >= 0 {
			total = o.Shard.Of(total)
		}
		// A transcript's records that are no requests fall in any
		// shard's share: the total stays the share of them all.
		return total, nil
	}
	return total, func() (n int64) {
		for _, f := range files {
			n += f.Others()
		}
		return n
	}
}

// RequestTotal is how many requests the files hold, or -1 when that is
// not known. Counting a JSON Lines file reads it once more, so it is done
// only when count says it is worth it.
func RequestTotal(ctx context.Context, files []*request.File, count bool) int64 {
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

// allRequests chains the files' requests in order. With a session of the
// run's own, it wins over the files'. sources, when not nil, is told
// where each file's requests begin; read is how many were read.
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

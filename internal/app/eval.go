package app

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kesoku/kesoku/internal/cassette"
	"github.com/kesoku/kesoku/internal/eval"
	"github.com/kesoku/kesoku/internal/junit"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/notice"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/tracing"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
)

// EvalCase is a case with the tools it offers, chosen by the caller
// (as --tools chooses them) before anything runs.
type EvalCase struct {
	*eval.Case
	Specs    []*toolset.Tool
	Registry runner.Tools
}

// EvalOptions are what an eval over the environment is asked to do. The
// caller has checked them (--resume has an -o file, the report's path is
// none of the others).
type EvalOptions struct {
	// Cases gives the cases in order, each when the eval is ready to run
	// it: a case is taken from it once a run of the one before has
	// started, so that what it holds is the few cases under way.
	Cases iter.Seq2[EvalCase, error]
	// Set is the eval's cases as read: how many runs they make (the
	// progress's total), and for the JUnit report the file of each run
	// and whether a case runs more than once. Nil for none of these.
	Set *eval.Set
	// Repeat is how many times each case runs unless it says; Jobs how
	// many runs at once; System and MaxTurns a case's unless it says.
	Repeat, Jobs int
	System       string
	MaxTurns     int
	// Tally counts what the whole eval spends and holds it to the budget.
	Tally *llm.Tally
	// CassetteDir, when set, holds a cassette for each case and repeat,
	// recorded or replayed as CassetteMode says (Auto: each replayed when
	// it exists).
	CassetteDir  string
	CassetteMode cassette.Mode
	// Shard, when N > 0, makes the eval one shard's: only the runs at
	// positions p with (p-1) mod N == K-1 run, ids and positions those of
	// the whole eval.
	Shard request.Shard
	// Threshold is the pass@1 that passes the eval (0: every run must):
	// a shard's end says it, for merge.
	Threshold float64
	// Output is the records file, "" or "-" for Stdout; Resume goes on
	// with the eval that wrote it: a run with a final verdict there does
	// not run again, and counts as it went.
	Output string
	Stdout io.Writer
	Resume bool
	// JUnit is the path of the JUnit report, "" for none: a testcase a
	// verdict.
	JUnit string
	// Progress, when set, starts showing the progress of total runs and
	// returns it; it is told of every record, and counts the verdicts.
	Progress func(total int64) Progress
}

// EvalReport is what an eval did.
type EvalReport struct {
	// Summary adds up the verdicts written, and those of an earlier eval
	// that --resume skipped.
	Summary eval.Summary
	// Interrupted says an interrupt stopped the eval: the runs not written
	// are left for --resume. Budget says the budget ran out.
	Interrupted, Budget bool
	// Total is how many runs the whole eval has, every shard's; Skipped
	// how many runs Earlier had finished.
	Total, Skipped int64
}

// unit is one run of one case: its place in the eval.
type unit struct {
	c        EvalCase
	repeat   int
	position int64
}

// result is what a unit wrote, or why it wrote nothing.
type result struct {
	recs []*message.Record
	run  eval.Run
	// cut says an interrupt cut the run: nothing of it is written.
	cut bool
	// earlier says the run finished in an earlier eval: nothing is
	// written.
	earlier bool
}

// inOrder hands results to write in the order of their numbers, from 0,
// whatever order they finish in: each is written by the goroutine that
// finishes the last one missing before it.
type inOrder struct {
	mu    sync.Mutex
	next  int64
	done  map[int64]result // finished, waiting for their turn
	write func(result)
}

// finish says the run numbered seq came to r, and writes what can be.
func (o *inOrder) finish(seq int64, r result) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.done[seq] = r
	for {
		r, ok := o.done[o.next]
		if !ok {
			return
		}
		delete(o.done, o.next)
		o.next++
		o.write(r)
	}
}

// Eval runs every case of o, each as kesoku session runs a prompt, up to
// o.Jobs at once, started in case order, and hands each run's records to
// a sink in case order, a run's block at once: the -o file, standard
// output, or the end of the resumed file, which is compacted when every
// run came; the progress and the JUnit report (a testcase a verdict) as
// they come. A shard that wrote a block for every run of its share ends
// its file with a shard_end line. Once the budget is spent no new model
// request starts; every run not finished then gets a verdict of kind
// budget.
func (e *Env) Eval(ctx context.Context, o EvalOptions) (EvalReport, error) {
	e.RecordsTo(o.Output, "it is the file this eval writes its records to")
	e.Protect(o.JUnit, "it is the file this eval writes its JUnit report to")
	var resumed *records.Resumed
	if o.Resume {
		// Read under the file's lock: no other writer adds verdicts
		// between what this eval skips and what it appends.
		var err error
		if resumed, err = records.ResumeEval(o.Output); err != nil {
			if re, ok := errors.AsType[*records.ReadError](err); ok {
				return EvalReport{}, &UsageError{Err: &ResumeError{re.Err}}
			}
			return EvalReport{}, &UsageError{Err: err}
		}
		defer resumed.Close()
		if err := resumed.Verdicts.CheckShard(o.Output, o.Shard.K, o.Shard.N); err != nil {
			return EvalReport{}, &UsageError{Err: &ResumeError{err}}
		}
	}
	sink, err := e.evalSink(o, resumed)
	if err != nil {
		return EvalReport{}, err
	}
	defer sink.Abandon()
	first := true
	write := func(recs []*message.Record) error {
		if err := sink.Write(recs...); err != nil {
			return err
		}
		if o.Jobs > 1 && !first {
			// The runs at once overlap the writing: the records reach
			// the file within the writer's flush interval, in one write
			// for many cases. A file that fails later is known once a
			// flush fails, and stops the eval at the next case written.
			return nil
		}
		// The first case is on disk before more runs start than the
		// window holds, whatever --jobs: a file that takes nothing (a
		// full disk) stops the eval there. With one job every case is,
		// before the next starts: nothing is spent that is not kept.
		first = false
		return sink.Flush()
	}
	var earlier func(int64, string, int) (bool, bool)
	if resumed != nil {
		earlier = func(position int64, id string, repeat int) (bool, bool) {
			failed, ok := resumed.Verdicts.Skip(position, id, repeat)
			if ok {
				sink.Skip()
			}
			return !failed, ok
		}
	}
	rep, err := e.evalRuns(ctx, o, write, earlier)
	sink.FinishProgress()
	// A shard that wrote a block for every run of its share says so
	// last, with the whole eval's count, for merge.
	var end *message.Record
	if o.Shard.N > 0 && err == nil && !rep.Interrupted {
		// Its own session, as each run has: the eval has none of its
		// own, and a record's session_id is never empty.
		end = records.ShardEndRecord(message.NewID(), shardEnd(o, rep.Total))
	}
	switch {
	case resumed != nil && err == nil && !rep.Interrupted:
		// Every run came: the file becomes the one an uninterrupted eval
		// would have written, one block a run, and the report is made
		// again of every verdict in it. An eval cut short leaves what it
		// appended for the next --resume.
		_, err = sink.End(resumed, o.Output, end)
	case resumed == nil && end != nil:
		_, err = sink.End(nil, o.Output, end)
	}
	// An interrupted eval's report holds the cases written.
	return rep, sink.Close(err)
}

// shardEnd is what the shard_end line of an eval's shard says: with the
// eval's cases and their files, by which merge names the testcases of
// its report as the whole eval names them.
func shardEnd(o EvalOptions, runs int64) records.ShardEnd {
	e := records.ShardEnd{Shard: o.Shard.K, Shards: o.Shard.N, Requests: runs, Threshold: o.Threshold}
	if o.Set != nil {
		e.Cases = int64(o.Set.Len())
		for _, f := range o.Set.Starts(o.Repeat) {
			e.Files = append(e.Files, records.ShardFile{Name: f.Name, First: f.First})
		}
	}
	return e
}

// evalSink opens the sink of an eval: the resumed file or a new
// destination, the report, the progress.
func (e *Env) evalSink(o EvalOptions, resumed *records.Resumed) (*Sink, error) {
	var prog Progress
	if o.Progress != nil {
		// The runs of this eval's share, those an earlier eval finished
		// taken off as they are skipped.
		total := int64(-1)
		if o.Set != nil {
			total = o.Shard.Of(o.Set.Runs(o.Repeat))
		}
		prog = o.Progress(total)
	}
	finish := func() {
		if prog != nil {
			prog.Finish()
		}
	}
	var out RecordsOut = resumed
	if resumed == nil {
		stdout := o.Stdout
		if prog != nil {
			stdout = prog.Around(stdout)
		}
		var err error
		if out, err = OpenRecords(o.Output, stdout, false); err != nil {
			finish()
			return nil, &UsageError{Err: err}
		}
	}
	// A case's testcase is named by its file, and by its repeat when
	// some case runs more than once.
	fileAt, repeats := func(int64) string { return "kesoku eval" }, false
	if o.Set != nil {
		fileAt = func(position int64) string { return o.Set.FileAt(position, o.Repeat) }
		repeats = o.Set.Repeats(o.Repeat)
	}
	sink, err := OpenSink(SinkOptions{Records: out, JUnit: o.JUnit, Suite: "kesoku eval", Progress: prog,
		Case: func(rec *message.Record) *junit.Case {
			if rec.Type != message.TypeVerdict {
				return nil
			}
			return junit.VerdictCase(rec, fileAt(rec.Position), repeats)
		}})
	if err != nil {
		out.Close()
		finish()
		return nil, &UsageError{Err: err}
	}
	return sink, nil
}

// evalRuns runs the cases of o and hands each run's records to write, in
// case order. earlier, when set, says whether the run at position, the
// repeat-th of the case id, has a final verdict from an earlier eval, and
// whether it passed: that run does not run again, and counts as it went.
func (e *Env) evalRuns(ctx context.Context, o EvalOptions, write func([]*message.Record) error, earlier func(position int64, caseID string, repeat int) (passed, ok bool)) (EvalReport, error) {
	ctx = e.traced(ctx)
	model, err := e.Model.Build(ctx)
	if err != nil {
		return EvalReport{}, err
	}
	e.secrets.Add(e.Model.Redactor().Secrets()...)
	if o.CassetteDir != "" {
		if o.CassetteMode == cassette.Record {
			if err := os.MkdirAll(o.CassetteDir, 0o755); err != nil {
				return EvalReport{}, err
			}
		}
		if _, err := os.Stat(o.CassetteDir); err != nil {
			if o.CassetteMode == cassette.Replay {
				return EvalReport{}, fmt.Errorf("cassettes %s: %w", o.CassetteDir, err)
			}
			if err := os.MkdirAll(o.CassetteDir, 0o755); err != nil {
				return EvalReport{}, err
			}
		}
		e.Protect(o.CassetteDir, "it holds the cassettes of this eval's model traffic")
	}
	ir := e.WatchSignals(nil)
	ctx, end := ir.Turn(ctx)
	defer end()
	// A records file that cannot be written stops the eval: once it is
	// known (at once with one job; with more, at the first case or the
	// flush that fails) no case starts, and no model request is paid
	// for, that could not be kept.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	if o.Tally == nil {
		o.Tally = &llm.Tally{}
	}
	jobs := max(o.Jobs, 1)
	// A slot is taken before a unit starts and given back once its result
	// is written, so that at most window units run or wait to be written:
	// memory holds that many transcripts however many cases there are.
	// With more than one job the window is twice as wide, so that the
	// workers go on while a run that started before theirs and takes
	// longer holds up the writing; with one, a run starts only once the
	// one before it is written, so that a records file that cannot take
	// a case stops the eval before the next spends anything.
	window := jobs
	if jobs > 1 {
		window = 2 * jobs
	}
	slots := make(chan struct{}, window)
	var report EvalReport
	var runs eval.Summarizer
	var writeErr error
	// Whoever finishes a run writes it, and the finished runs after it,
	// when its turn has come: the writing is in case order with no
	// goroutine of its own to hand each result to.
	out := &inOrder{done: map[int64]result{}, write: func(r result) {
		switch {
		case r.earlier:
			runs.Add(r.run)
		case r.cut:
			report.Interrupted = true
		case writeErr != nil:
			// Nothing more is written after a write failed.
		default:
			if writeErr = write(r.recs); writeErr != nil {
				stop()
				break
			}
			runs.Add(r.run)
			report.Budget = report.Budget || r.run.Budget
		}
		// Given back once written, so that the runs started and not yet
		// written stay within the window; after a write failed (stop
		// cancelled the rest) none starts.
		<-slots
	}}
	// What every run's runner shares, made once: each run sets its own
	// session, store and model (with the tally that holds it to the
	// budget).
	base := e.RunnerOptions()
	base.EndGrace = ir.EndGrace()
	// jobs workers each take the next run and run it, a slot taken
	// before the run is: no goroutine hands the runs out, so that at
	// --jobs 1 a run follows the one before with no wait on another
	// goroutine, and a worker's stack, grown by the SDK's deep calls,
	// serves every run it takes.
	queue := &runQueue{cases: o.Cases, shard: o.Shard, repeat: o.Repeat, earlier: earlier, failed: stop}
	defer queue.close()
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case slots <- struct{}{}:
				case <-runCtx.Done():
					return
				}
				j, ok := queue.take(runCtx)
				if !ok {
					<-slots
					return
				}
				if j.earlier != nil {
					// A run an earlier eval finished takes its slot
					// too, so that those waiting behind a slow run stay
					// within the window.
					out.finish(j.seq, *j.earlier)
					continue
				}
				out.finish(j.seq, e.evalUnit(runCtx, model, o, j.u, base))
			}
		}()
	}
	wg.Wait()
	report.Skipped, report.Total = queue.skipped, queue.position
	report.Summary = runs.Summary()
	if ctx.Err() != nil {
		report.Interrupted = true
	}
	return report, cmp.Or(writeErr, queue.err)
}

// runQueue hands out the runs of an eval's cases in case order, each
// with its number in the order of writing; it is safe for concurrent use.
type runQueue struct {
	cases  iter.Seq2[EvalCase, error]
	shard  request.Shard
	repeat int
	// failed is called once a case cannot be read: no run starts after.
	failed  func()
	earlier func(position int64, caseID string, repeat int) (passed, ok bool)

	mu      sync.Mutex
	next    func() (EvalCase, error, bool)
	release func()
	// c is the case whose runs are being handed out, r the last run
	// of it handed out, of its repeat.
	c         EvalCase
	r, runs   int
	position  int64
	seq       int64
	skipped   int64
	err       error
	exhausted bool
}

// job is one run to make, or one an earlier eval made.
type job struct {
	u       unit
	seq     int64
	earlier *result
}

// take hands out the next run of this shard; false when there is none
// (the cases ran out, one could not be read, or ctx is done).
func (q *runQueue) take(ctx context.Context) (job, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.next == nil {
		q.next, q.release = iter.Pull2(q.cases)
	}
	for !q.exhausted {
		if ctx.Err() != nil {
			return job{}, false
		}
		if q.r == q.runs {
			c, err, ok := q.next()
			if !ok || err != nil {
				q.exhausted, q.err = true, err
				if err != nil {
					q.failed()
				}
				return job{}, false
			}
			q.c, q.r, q.runs = c, 0, c.Repeat
			if q.runs == 0 {
				q.runs = max(q.repeat, 1)
			}
			continue
		}
		q.r++
		q.position++
		if q.shard.N > 0 && (q.position-1)%q.shard.N != q.shard.K-1 {
			continue
		}
		j := job{u: unit{c: q.c, repeat: q.r, position: q.position}, seq: q.seq}
		q.seq++
		if q.earlier != nil {
			if passed, ok := q.earlier(q.position, q.c.ID, q.r); ok {
				q.skipped++
				j.earlier = &result{earlier: true, run: eval.Run{Case: q.c.ID, Repeat: q.r, Passed: passed}}
			}
		}
		return j, true
	}
	return job{}, false
}

// close lets go of the cases.
func (q *runQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.release != nil {
		q.release()
	}
}

// evalUnit runs one case once, into memory, and judges it.
func (e *Env) evalUnit(ctx context.Context, model llm.Provider, o EvalOptions, u unit, ropts runner.Options) (res result) {
	start := time.Now()
	if o.CassetteDir != "" {
		// Each run its own cassette: it replays its own traffic whatever
		// order the runs go in.
		path := cassette.PathIn(o.CassetteDir, u.c.ID, u.repeat)
		c, err := cassette.Open(path, o.CassetteMode)
		if err == nil {
			defer func() {
				c.Close()
				if !c.Replaying() && (res.cut || res.run.Budget) {
					// Half a run on record would replay as a run that
					// failed: a run cut short records again whole.
					os.Remove(path)
				}
			}()
			guessed := !c.Replaying() && o.CassetteMode != cassette.Record
			if c.Replaying() {
				e.sayReplaying(o.CassetteDir)
			} else {
				e.sayRecording(o.CassetteDir, path, guessed)
			}
			model, err = e.Model.WithCassette(c).Build(ctx)
			if err != nil && guessed {
				// A replayed eval that lacks a run's cassette (a repeat
				// more than was recorded) records it, which needs a key.
				err = fmt.Errorf("no cassette %s to replay, and recording it failed: %w", path, err)
			}
		}
		if err != nil {
			return e.failedUnit(u, start, err)
		}
	}
	sessionID := message.NewID()
	// The case's span holds its session: its model requests and tool
	// calls, and its verdict.
	ctx, span := tracing.From(ctx).Agent(ctx, tracing.Agent{
		SessionID: sessionID, Provider: model.Name(), Model: model.ModelName(), Case: u.c.ID, Repeat: u.repeat,
	})
	defer span.End()
	store := &memStore{}
	// The case's tally counts all it spends; the session's, under it,
	// its own requests alone: its turns, which the questions its tools
	// ask the model (analyze_media's) are not.
	tally := &llm.Tally{Parent: o.Tally, Price: o.Tally.Price}
	turnTally := &llm.Tally{Parent: tally}
	redact := e.secrets
	ropts.SessionID = sessionID
	ropts.Store = redact.Store(store)
	ropts.Model = media.WithOptions(model, e.MediaOptions(tally))
	system, maxTurns := o.System, o.MaxTurns
	if u.c.System != "" {
		system = u.c.System
	}
	if u.c.MaxTurns > 0 {
		maxTurns = u.c.MaxTurns
	}
	s := llm.NewSession(llm.SessionOptions{
		Provider:  model,
		Runner:    runner.New(u.c.Registry, ropts),
		Store:     store,
		SessionID: sessionID,
		System:    system,
		Tools:     u.c.Specs,
		MaxTurns:  maxTurns,
		Redactor:  redact,
		Tally:     turnTally,
	})
	answer, err := s.Send(ctx, u.c.Prompt)
	if errors.Is(err, llm.ErrInterrupted) || (err != nil && ctx.Err() != nil) {
		return result{cut: true}
	}
	usage, requests := tally.Total()
	_, turns := turnTally.Total()
	unreported := tally.Unreported()
	outcome := eval.Outcome{
		Answer: answer, Answered: err == nil,
		Turns: turns, Tokens: usage.InputTokens + usage.OutputTokens, TokensUnknown: unreported > 0,
	}
	recs := store.records()
	for _, rec := range recs {
		if rec.Type == message.TypeToolCall {
			outcome.Calls = append(outcome.Calls, eval.Call{Name: rec.Name, Args: rec.Content})
		}
	}
	checks := u.c.Expect.Check(outcome)
	var budget *llm.BudgetError
	if err != nil && !errors.As(err, &budget) {
		// The session itself failed: the model gave no answer.
		checks = append([]eval.Result{{Check: "session", Passed: false, Want: "an answer", Got: redact.String(err.Error())}}, checks...)
	}
	passed := err == nil
	for _, c := range checks {
		passed = passed && c.Passed
	}
	v := u.verdict(sessionID, start, passed, checks)
	if unreported == 0 || unreported < requests {
		// Usage no request reported is unknown, not zero.
		v.Usage = &usage
	}
	if cost, known := tally.Cost(); known {
		v.CostUSD = &cost
	}
	if budget != nil {
		// No case is half-recorded: a run the budget cut is its verdict
		// alone, and runs again with more budget.
		recs = nil
		spent := v
		v = u.verdict(sessionID, start, false, nil)
		v.Usage, v.CostUSD = spent.Usage, spent.CostUSD
		v.Error = &message.ErrorInfo{Kind: message.KindBudget, Message: budget.Error()}
	}
	if err != nil {
		span.Error(err)
	}
	span.Passed(passed)
	span.Stamp(v)
	return result{
		recs: append(recs, v),
		run:  eval.Run{Case: u.c.ID, Repeat: u.repeat, Passed: passed, Budget: budget != nil},
	}
}

// sayRecording says, once, that the eval records cassettes in dir: path
// is the first run's. missing says only the runs without one record (the
// mode auto), where the user may have meant to replay them all.
func (e *Env) sayRecording(dir, path string, missing bool) {
	e.recordingSaid.Do(func() {
		if e.opts.Quiet {
			return
		}
		msg := "recording the model's traffic of each run to its cassette in " + dir
		if missing {
			msg = fmt.Sprintf("recording the model's traffic of each run with no cassette in %s (the first: %s)", dir, filepath.Base(path))
		}
		e.opts.Tell.Tell(notice.Warning, msg)
	})
}

// sayReplaying says, once and with -v, that the eval replays cassettes
// from dir, as a session says of its cassette.
func (e *Env) sayReplaying(dir string) {
	e.replayingSaid.Do(func() {
		if e.opts.Verbose {
			e.opts.Tell.Tell(notice.Info, "replaying the model's traffic of each run from its cassette in "+dir)
		}
	})
}

// failedUnit is the verdict of a run that could not start: its cassette
// could not be read, or its client made.
func (e *Env) failedUnit(u unit, start time.Time, err error) result {
	v := u.verdict(message.NewID(), start, false, []eval.Result{{Check: "session", Want: "an answer", Got: e.secrets.String(err.Error())}})
	return result{recs: []*message.Record{v}, run: eval.Run{Case: u.c.ID, Repeat: u.repeat}}
}

// verdict is the verdict record of u.
func (u unit) verdict(sessionID string, start time.Time, passed bool, checks []eval.Result) *message.Record {
	ms := time.Since(start).Milliseconds()
	v := &message.Record{
		ID: message.NewID(), SessionID: sessionID, ParentID: u.c.ID,
		Role: message.RoleEval, Type: message.TypeVerdict, Status: message.StatusResponded,
		Position: u.position, Repeat: u.repeat, IsError: !passed,
		CreatedAt: time.Now().UTC(), DurationMS: &ms,
	}
	if checks == nil {
		checks = []eval.Result{}
	}
	v.Content, _ = json.Marshal(struct {
		Passed bool          `json:"passed"`
		Checks []eval.Result `json:"checks"`
	}{passed, checks})
	return v
}

// memStore keeps a run's records in memory until the run is judged.
type memStore struct {
	mu   sync.Mutex
	recs []*message.Record
}

func (m *memStore) Append(_ context.Context, recs ...*message.Record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs = append(m.recs, recs...)
	return nil
}

func (m *memStore) records() []*message.Record {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.recs
}

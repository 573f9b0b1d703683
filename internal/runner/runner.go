// Package runner owns the ToolRunner, which runs tool requests
// concurrently and hands back one Message record for each, in order.
//
// It takes tool requests (a stream
// that package request reads from a file, or a model's turn) through the
// five steps — parse, interrupt check, validation, execution, packing —
// concurrently up to a limit, and hands back one Message record per
// request, in request order and with its position in the run, whatever
// happened. The records themselves are packed by package records. Checker
// takes requests through the checks alone, running nothing, for kesoku
// validate.
package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"math"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/internal/tracing"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/workspace"
)

// Options configure a ToolRunner.
type Options struct {
	// Jobs is how many calls may run at once; less than 1 means 1.
	Jobs int
	// Timeout bounds each call; 0 means no bound.
	Timeout time.Duration
	// Grace is how long calls in flight get to return once the run is
	// interrupted; what returns later is recorded as aborted.
	Grace time.Duration
	// MaxOutput is the largest content a record holds; larger output is
	// cut to its head and tail and saved whole under OutputDir. 0 means no
	// limit.
	MaxOutput int64
	// OutputDir is where whole outputs are saved (default .kesoku/outputs
	// under the AWD).
	OutputDir string
	// FailFast aborts what comes after the first error record, as an
	// interrupt would (calls in flight cancelled, given Grace); what comes
	// before it still runs.
	FailFast bool
	// IsInterrupted is the interrupt hook, checked before each call starts.
	// Cancelling Run's context is the other way to interrupt, and the one
	// that also wakes a run waiting for a free slot.
	IsInterrupted func() bool
	// EndGrace, once closed (a second signal), ends the grace: calls still
	// in flight are recorded as aborted at once.
	EndGrace <-chan struct{}
	// Finished is what an earlier run finished (--resume): those requests
	// are skipped and get no new record. A request whose id has a finished
	// record of another request (the file changed) gets an invalid_request
	// record instead, and does not run.
	Finished *records.Finished
	// ArgsHash puts the hash of each request's arguments on its record
	// (args_hash), for a later --resume to know the request again.
	ArgsHash bool
	// Shard, unless it is the whole run, runs only its share of the
	// requests: the others are numbered (ids, duplicates) as the whole
	// run numbers them, and get no record.
	Shard request.Shard
	// OnSkip, when set, is told of each request skipped as finished, as it
	// is skipped (a progress bar's total shrinks by it). It is called from
	// the goroutine that reads the requests.
	OnSkip func(*request.Request)
	// Policy decides whether each call that passed validation runs: the
	// one decision point of every command's calls (see decide). nil runs
	// every call. It may be asked of several calls at once.
	Policy policy.Decider
	// After, when set, is told of each call that ran and succeeded, with
	// the content of its record, before the record is handed on: the
	// hooks that run after a call (PostToolUse). What it returns the
	// record keeps as hook_feedback, which a model reads with the result.
	After func(ctx context.Context, c *policy.Call, content json.RawMessage) string

	// The rest is handed to tools through their ToolContext.

	// SessionID goes on every record and into every ToolContext.
	SessionID string
	// AWD and Staging are the agent working directory and the staging
	// directory.
	AWD, Staging string
	// Store is the gateway store tools may write to.
	Store message.Store
	// Model is the active model, nil when there is none.
	Model toolset.Model
	// Protected are the files and directories of kesoku's own that tools
	// must not write (the -o file, the config files, a transcript).
	Protected []workspace.Protected
	// Secrets are replaced by [redacted] in every record, before it is
	// stored or handed back (to a session, which sends it to a model);
	// nil hides nothing.
	Secrets *secret.Redactor
}

// ToolRunner runs tool requests against a registry, each through the five
// steps.
// One ToolRunner may serve many runs, one after another or at once.
type ToolRunner struct {
	reg  Tools
	opts Options
	pk   records.Packer
	// env is the model and the protected files, for kesoku's own tools;
	// nil when there are neither.
	env *toolset.Env
	// dirs are where a relative path argument is read (the AWD, the
	// staging directory), for the policy's rules: made once, not a call.
	dirs []string
}

// Tools is what a ToolRunner needs of a set of tools: *toolset.Set is one.
type Tools interface {
	// Lookup returns the tool called name.
	Lookup(name string) (*toolset.Tool, bool)
	// UnknownTool is the error for a request naming no tool.
	UnknownTool(name string) *toolset.UnknownToolError
}

// New returns a ToolRunner over reg.
func New(reg Tools, opts Options) *ToolRunner {
	if opts.Jobs < 1 {
		opts.Jobs = 1
	}
	pk := records.Packer{SessionID: opts.SessionID, MaxOutput: opts.MaxOutput, OutputDir: opts.OutputDir, AWD: opts.AWD, Timeout: opts.Timeout}
	if opts.Secrets != nil {
		pk.Redact = func(b []byte) []byte {
			out, _ := opts.Secrets.JSON(b)
			return out
		}
	}
	r := &ToolRunner{reg: reg, opts: opts, pk: pk, dirs: []string{opts.AWD, opts.Staging}}
	if opts.Model != nil || len(opts.Protected) > 0 {
		r.env = &toolset.Env{Model: opts.Model, Protected: opts.Protected}
	}
	return r
}

// Jobs is how many calls the runner runs at once: a session that runs a
// turn's calls one Run each, to record each as it finishes, keeps to it.
func (r *ToolRunner) Jobs() int { return r.opts.Jobs }

// slot is one request on its way to a record. Steps 1–3 fill rec at once
// when they refuse the request; a call that runs fills rec and then
// finishes the slot.
type slot struct {
	b     *batch
	req   *request.Request
	index int64 // 1-based position in the run
	// argsHash goes on the record (Options.ArgsHash).
	argsHash string
	spec     *toolset.Tool
	rec      *message.Record
	// decidedBy is what the policy said allowed the call, for its record.
	decidedBy string
	// validate says the worker is to check the arguments (step 3) before
	// the call: the dispatcher leaves it to the cores unless --fail-fast
	// needs a refusal noted before anything after it starts.
	validate bool
	// done is set once rec may be read.
	done atomic.Bool
	// started is when the call started, in Unix nanoseconds: written by the
	// worker, read by the writer when the grace ends; abandoned once the
	// writer has recorded the call as never started.
	started atomic.Int64
	// cancel cancels the call's own context: only with --fail-fast, which
	// cancels the calls after the failed one and no others.
	cancel context.CancelFunc
}

// abandoned is slot.started of a call whose record, written when the
// grace ended, says it never started.
const abandoned = -1

// testHookExecute, when set by a test, runs the worker's call after the
// interrupt check: the test decides when it goes on, and sees it end.
var testHookExecute func(execute func())

// run is the state of one Run.
type run struct {
	r      *ToolRunner
	ctx    context.Context // cancelled on interrupt, or a failed emit
	cancel context.CancelFunc
	parent context.Context
	// failAt is the position of the first error record under --fail-fast
	// (MaxInt64 while there is none): what comes after it is aborted, what
	// comes before it runs. failed is closed when it is first set.
	failAt   atomic.Int64
	failed   chan struct{}
	failOnce sync.Once
	// deferred says a deferred record stopped the run (failAt is its).
	deferred atomic.Bool
	inflight sync.Map // *slot → struct{}: calls running, for --fail-fast
	// work offers batches to the workers (batch.go): Jobs goroutines at
	// most, started as calls need them. Long-lived workers, rather than a
	// goroutine per call, keep the stack they grew: a new goroutine's
	// stack growth was a sixth of the batch path's time.
	work    chan *batch
	workers int
	// head is the oldest batch that may have a slot left to claim; tail
	// the last one published (the dispatcher's alone).
	head  atomic.Pointer[batch]
	tail  *batch
	calls int // how many calls the dispatcher handed on
	// over ends the workers.
	over chan struct{}
	// slow says the last call took long enough that a batch's calls are
	// best spread over every worker, not one a core.
	slow atomic.Bool
	// room bounds the slots between the dispatcher and the writer.
	room room
	// readAll keeps taking requests after an interrupt (RunAll).
	readAll bool
	// tr traces each call (an execute_tool span around step 4); nil when
	// traces are off, and then nothing of them is done.
	tr *tracing.Tracer
}

// Run executes the requests in order of arrival, up to Jobs at once, and
// hands one record per request to emit, in request order. Cancelling ctx
// is the interrupt: no more requests are taken from reqs, those taken but
// not started get aborted records at once, and calls in flight have their
// contexts cancelled and get Grace to return. reqs is read as the calls
// go, so an interrupt leaves what was not read yet (a file's rest, a pipe
// that never ends) without records, for --resume. Run returns when every
// request taken has its record; its error is emit's, the only failure that
// stops it early.
//
// Each record carries its request's position in the run, by which the
// records of a run's shards, or of a run and its resumption, go back in
// request order.
func (r *ToolRunner) Run(ctx context.Context, reqs iter.Seq[*request.Request], emit func(*message.Record) error) (records.RunReport, error) {
	return r.run(ctx, reqs, emit, false)
}

// run is Run; with readAll, an interrupt does not stop the reading of
// reqs, and every request gets a record (RunAll: the requests are in
// memory, and a model's calls must all be answered).
func (r *ToolRunner) run(ctx context.Context, reqs iter.Seq[*request.Request], emit func(*message.Record) error, readAll bool) (records.RunReport, error) {
	ru := r.newRun(ctx, readAll)
	defer ru.cancel()
	defer close(ru.over)

	// The queue of batches in request order is what keeps records in
	// order; room keeps the slots in it proportional to Jobs, not to the
	// number of requests.
	pending := make(chan *batch, ru.room.fast)
	quit := make(chan struct{})
	var summary records.RunReport
	var skipped dispatched
	go func() {
		defer close(pending)
		skipped = ru.dispatch(reqs, pending, quit)
	}()

	var emitErr error
	w := newGraceWatch(ru)
	for b := range pending {
		for i := range b.slots {
			if emitErr != nil {
				break // drain, so that the dispatcher can end
			}
			s := &b.slots[i]
			rec := w.await(b, s, int32(i))
			if s.done.Load() {
				// Nothing touches the slot again: what it holds goes to
				// the collector before the rest of its batch is written.
				s.req, s.rec = nil, nil
			}
			rec.ID = message.NewID()
			rec.ArgsHash = s.argsHash
			if ru.tr != nil {
				if rec.TraceID == "" && rec.Error != nil && rec.Error.Kind != message.KindAborted {
					// A call refused before it ran (its tool unknown, its
					// arguments invalid, the rules or a hook against it)
					// has its execute_tool span too, ended at once with
					// its error.type: a trace shows what was asked for.
					_, span := ru.tr.Tool(ru.parent, rec.Name, cmp.Or(rec.CallID, rec.ParentID))
					span.ToolDone(rec)
					span.End()
				}
				// One that never started is under the run's span.
				tracing.Stamp(ru.parent, rec)
			}
			if !readAll {
				rec.Position = s.index
			}
			summary.Add(rec)
			if err := emit(rec); err != nil {
				emitErr = err
				close(quit)
				ru.cancel()
			}
		}
		ru.room.give(len(b.slots), b.bytes)
	}
	w.stop()
	summary.Total += skipped.n
	summary.Skipped, summary.SkippedFailed = skipped.n, skipped.failed
	summary.StoppedReading = skipped.stopped && emitErr == nil
	summary.Interrupted = ru.interrupted() && emitErr == nil
	summary.FailedFast = ru.failAt.Load() != math.MaxInt64 && !ru.deferred.Load()
	return summary, emitErr
}

// newRun is the state of one run of r.
func (r *ToolRunner) newRun(ctx context.Context, readAll bool) *run {
	ru := &run{r: r, parent: ctx, failed: make(chan struct{}), over: make(chan struct{}), readAll: readAll}
	ru.room.init(r.opts.Jobs)
	// An offer waits in work for each batch at most, and the batches are
	// bounded by room: the workers' offers never block.
	ru.work = make(chan *batch, ru.room.fast)
	ru.slow.Store(true) // until a call says otherwise
	ru.failAt.Store(math.MaxInt64)
	ru.ctx, ru.cancel = context.WithCancel(r.withEnv(ctx))
	ru.tr = tracing.From(ctx)
	return ru
}

// withEnv is ctx carrying what kesoku's own tools are given beside the
// ToolContext (the model, the protected files), once for every call of a
// run.
func (r *ToolRunner) withEnv(ctx context.Context) context.Context {
	if r.env == nil {
		return ctx
	}
	return toolset.WithEnv(ctx, r.env)
}

// graceWatch waits for the records of calls in order, and keeps the grace
// they get once the run is stopped.
type graceWatch struct {
	ru        *run
	timer     *time.Timer
	grace     <-chan time.Time
	graceOver bool
	// tick bounds how long a record that is ready waits for the writer
	// when the calls after it in its batch are slow.
	tick *time.Timer
}

func newGraceWatch(ru *run) *graceWatch {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &graceWatch{ru: ru, tick: t}
}

// await returns the record of s, slot i of b: the one packed at once, the
// one the call returned, or an aborted one when a stopped call outlives
// the grace.
func (w *graceWatch) await(b *batch, s *slot, i int32) *message.Record {
	ru := w.ru
	if s.done.Load() {
		return s.rec // refused at steps 1–3, or already returned
	}
	b.late.Store(false)
	for ticks := 0; ; {
		// Only a call that is cut — everything once interrupted, what comes
		// after the failure under --fail-fast — is given up on.
		cut := ru.cut(s.index)
		if w.graceOver && cut {
			if s.done.Load() {
				return s.rec
			}
			return ru.abortedInFlight(s)
		}
		var interrupted, failed, endGrace <-chan struct{}
		var graceC <-chan time.Time
		switch {
		case w.grace == nil:
			interrupted, failed = ru.ctx.Done(), ru.failed
		case !w.graceOver:
			endGrace = ru.r.opts.EndGrace
			if cut {
				graceC = w.grace
			}
		}
		b.awaited.Store(i + 1)
		if s.done.Load() {
			b.awaited.Store(0)
			return s.rec
		}
		// Waited for once, the call wakes the writer when it returns;
		// the ticks after that only spread the batch again.
		w.tick.Reset(writerTick << min(ticks, 7))
		select {
		case <-b.wake:
		case <-w.tick.C:
			ticks++
			b.late.Store(true)
			if !s.done.Load() {
				// A call that takes this long is slow: the calls after it
				// in the batch are spread over the workers free.
				ru.slow.Store(true)
				ru.offerNext(b)
			}
		case <-interrupted:
			w.startGrace()
		case <-failed:
			w.startGrace()
		case <-graceC:
			w.graceOver = true
		case <-endGrace:
			w.graceOver = true
		}
		w.tick.Stop()
		b.awaited.Store(0)
		if s.done.Load() {
			return s.rec
		}
	}
}

func (w *graceWatch) startGrace() {
	w.timer = time.NewTimer(w.ru.r.opts.Grace)
	w.grace = w.timer.C
}

func (w *graceWatch) stop() {
	if w.timer != nil {
		w.timer.Stop()
	}
	w.tick.Stop()
}

// RunAll is Run over a slice, returning the records in request order: one
// model turn's tool calls. Every request gets a record, interrupted or not.
func (r *ToolRunner) RunAll(ctx context.Context, reqs []*request.Request) ([]*message.Record, error) {
	recs := make([]*message.Record, 0, len(reqs))
	_, err := r.run(ctx, slices.Values(reqs), func(rec *message.Record) error {
		recs = append(recs, rec)
		return nil
	}, true)
	return recs, err
}

// interrupted is the check before each call: the run's context cancelled,
// or the IsInterrupted hook.
func (ru *run) interrupted() bool {
	if ru.ctx.Err() != nil {
		return true
	}
	return ru.r.opts.IsInterrupted != nil && ru.r.opts.IsInterrupted()
}

// cut reports whether the request at index must not start (or, running,
// may be given up on): the interrupt check, widened to --fail-fast.
func (ru *run) cut(index int64) bool {
	return index > ru.failAt.Load() || ru.interrupted()
}

// dispatched counts the requests skipped as finished by an earlier run,
// and says whether an interrupt stopped the reading.
type dispatched struct {
	n, failed int
	stopped   bool
}

// dispatch takes the requests one by one through the steps that must
// see them in order — numbering, the shard, what an earlier run finished,
// duplicate ids — and sends them on in batches, to the workers and to
// pending in request order. It returns what it skipped as already
// finished.
func (ru *run) dispatch(reqs iter.Seq[*request.Request], pending chan<- *batch, quit <-chan struct{}) (skipped dispatched) {
	ids := newNumbering()
	b := newBatch(ru.nextSize(0))
	// send hands b on, once the writer has room for it; it reports whether
	// the writer still takes batches.
	send := func() bool {
		if len(b.slots) == 0 {
			return true
		}
		if !ru.makeRoom(len(b.slots), b.bytes, quit, ru.ctx.Done()) {
			return false
		}
		ok := ru.publish(b, pending, quit)
		b = newBatch(ru.nextSize(len(b.slots)))
		return ok
	}
	for req := range reqs {
		ru.take(req, ids, b, &skipped)
		stopped := !ru.readAll && ru.interrupted()
		if (stopped || !req.More || b.full()) && !send() {
			return skipped
		}
		if stopped {
			// Nothing more is read: the requests read were all recorded,
			// as they ran or as aborted; the rest wait for --resume.
			skipped.stopped = true
			return skipped
		}
	}
	send()
	return skipped
}

// take is the dispatcher's part for one request: its slot in b, unless
// it is of another shard or an earlier run finished it.
func (ru *run) take(req *request.Request, ids *numbering, b *batch, skipped *dispatched) {
	r := ru.r
	n := ids.next(req)
	if !r.opts.Shard.Has(n) {
		// Another shard's: its id is noted all the same, so that a later
		// request with it is a duplicate here as in the whole run.
		if r.opts.Finished.Knows(req.ID) {
			r.opts.Finished.Pass(req.ID)
		} else {
			ids.duplicate(req)
		}
		return
	}
	var argsHash string
	if r.opts.ArgsHash || r.opts.Finished != nil {
		argsHash = req.ArgsHash
		if argsHash == "" {
			argsHash = records.ArgsHash(req.Args)
		}
	}
	// A duplicate first: the request before it with its id is the one the
	// earlier run's record of the id answered, if any. The ids the earlier
	// run has records of are noted by Finished, the others by the run's own
	// set: a resumed run of a million requests holds one set of them, not
	// two.
	resumed := r.opts.Finished.Check(req.ID, req.Name, argsHash, n)
	if resumed == records.Unknown && ids.duplicate(req) != nil {
		resumed = records.Again
	}
	switch resumed {
	case records.Succeeded, records.Failed:
		skipped.n++
		if resumed == records.Failed {
			skipped.failed++
		}
		if r.opts.OnSkip != nil {
			r.opts.OnSkip(req)
		}
		return
	}
	s := b.add()
	s.req, s.index, s.argsHash = req, n, argsHash
	b.bytes += int64(req.Size)
	switch resumed {
	case records.Again:
		s.rec = r.failure(req, duplicateProblem(req))
	case records.Changed:
		s.rec = r.failure(req, newProblem(req.Pos, fmt.Sprintf(
			"resuming: the finished record of id %q answered another request (another tool, or other arguments): "+
				"the requests changed since that run, so this one neither ran nor was skipped; "+
				"give each request an id of its own, or run them again into a new file", req.ID), records.ErrInvalidRequest))
	default:
		s.spec, s.rec = ru.check(s, !r.opts.FailFast)
		s.validate = s.rec == nil && s.spec == nil
	}
	if s.rec != nil {
		s.done.Store(true)
		ru.noteRecord(s)
		return
	}
	b.calls++
}

// check runs steps 1–3 for a request: parse, interrupt check, validation.
// It returns the tool of a request that may run, or the record of one that
// must not.
// With later, a request that may run comes back without its tool: the
// validation is left to the worker (validate).
func (ru *run) check(s *slot, later bool) (*toolset.Tool, *message.Record) {
	r, req := ru.r, s.req
	// 1. Parse: the loader has parsed; what it could not make sense of
	// comes as Err.
	if p := checkRequest(req); p != nil {
		return nil, r.failure(req, p)
	}
	// 2. Interrupt check.
	if ru.cut(s.index) {
		return nil, r.aborted(req, ru.abortReason(s.index), 0)
	}
	// 3. Validation.
	if later {
		return nil, nil
	}
	spec, p := r.checkArgs(req)
	if p != nil {
		return nil, r.failure(req, p)
	}
	return spec, nil
}

// Problem is what is wrong with a request that must not run. It is an
// error: its kind is the one its record would have (records.KindOf).
type Problem struct {
	Kind message.ErrorKind
	// Pos is where the problem is, when known: the request's position, or
	// a place inside it.
	Pos     yamlpos.Pos
	Message string
	// why is the error it comes of, which chose Kind.
	why error
}

// newProblem is the problem at pos, said as msg, of why.
func newProblem(pos yamlpos.Pos, msg string, why error) *Problem {
	return &Problem{Kind: records.KindOf(why), Pos: pos, Message: msg, why: why}
}

func (p *Problem) String() string { return p.Pos.Prefix(p.Message) }

// Error is String: a Problem is what its record says.
func (p *Problem) Error() string { return p.String() }

func (p *Problem) Unwrap() error { return p.why }

// numbering gives a run's requests their positions, and the requests
// without an id their id (call_N, N the position), and finds the ids given
// twice. Run and Checker share it, so that kesoku validate names and
// refuses exactly what kesoku run would.
type numbering struct {
	n    int64
	seen *records.Seen
}

func newNumbering() *numbering { return &numbering{seen: records.NewSeen()} }

// next numbers req, the next request of the run, and returns its 1-based
// position.
func (nb *numbering) next(req *request.Request) int64 {
	nb.n++
	if req.ID == "" {
		req.ID = "call_" + strconv.FormatInt(nb.n, 10)
	}
	return nb.n
}

// duplicate notes req's id and returns the problem of a request whose id
// an earlier one had: it never runs.
func (nb *numbering) duplicate(req *request.Request) *Problem {
	if nb.seen.Add(req.ID) {
		return nil
	}
	return duplicateProblem(req)
}

// duplicateProblem is the problem of a request whose id an earlier one
// of the run had.
func duplicateProblem(req *request.Request) *Problem {
	return newProblem(req.Pos,
		fmt.Sprintf("duplicate id %q: an earlier request of this run has it; a request is never run twice", req.ID),
		records.ErrInvalidRequest)
}

// Checker runs steps 1 and 3 over the requests of one run, in order — is
// it a request, is its id new, does its tool exist, do its arguments fit
// — without running anything: what kesoku validate reports.
type Checker struct {
	r   *ToolRunner
	ids *numbering
}

// Checker returns a Checker for one run's requests.
func (r *ToolRunner) Checker() *Checker { return &Checker{r: r, ids: newNumbering()} }

// Check returns what is wrong with req, the next request of the run, or
// nil for a request that would run. A request without an id gets the one
// Run would give it.
func (c *Checker) Check(req *request.Request) *Problem {
	p, _ := c.Next(req)
	return p
}

// Next is Check, and says whether req is of the run's shard at all: a
// request of another shard is numbered and its id noted, and nothing
// more.
func (c *Checker) Next(req *request.Request) (p *Problem, inShard bool) {
	n := c.ids.next(req)
	if !c.r.opts.Shard.Has(n) {
		c.ids.duplicate(req)
		return nil, false
	}
	return c.check(req), true
}

func (c *Checker) check(req *request.Request) *Problem {
	if p := c.ids.duplicate(req); p != nil {
		return p
	}
	if p := checkRequest(req); p != nil {
		return p
	}
	_, p := c.r.checkArgs(req)
	return p
}

func checkRequest(req *request.Request) *Problem {
	if req.Err != nil {
		// The request's own fault, unless it says more: arguments that
		// were no JSON object (request.ArgsError), which the caller (a
		// model) is to send again.
		why := records.InvalidRequest(req.Err)
		if re, ok := errors.AsType[*request.RequestError](req.Err); ok {
			return newProblem(re.Pos, re.Msg, why)
		}
		if ae, ok := errors.AsType[*request.ArgsError](req.Err); ok {
			return newProblem(ae.Pos, ae.Reason(), why)
		}
		return newProblem(req.Pos, req.Err.Error(), why)
	}
	if req.Name == "" {
		return newProblem(req.Pos, `missing "name": a request names the tool to call`, records.ErrInvalidRequest)
	}
	return nil
}

func (r *ToolRunner) checkArgs(req *request.Request) (*toolset.Tool, *Problem) {
	spec, ok := r.reg.Lookup(req.Name)
	if !ok {
		unknown := r.reg.UnknownTool(req.Name)
		return nil, newProblem(req.Pos, unknown.Error(), unknown)
	}
	if req.Args == nil {
		req.Args = map[string]any{}
	}
	if err := spec.Validate(req.Args); err != nil {
		return nil, newProblem(req.Pos, err.Error(), records.InvalidArgs(err))
	}
	if spec.Precheck != nil {
		// What the tool would refuse as it ran, refused before: by run and
		// by validate alike, in the words of a refusal as the call ran.
		if err := spec.Precheck(r.toolContext(req), req.Args); err != nil {
			return nil, newProblem(req.Pos, (&refusal{tool: req.Name, err: err}).Error(), err)
		}
	}
	return spec, nil
}

// toolContext is what the tool of req is given: where the call runs and
// what it may touch.
func (r *ToolRunner) toolContext(req *request.Request) *registry.ToolContext {
	return &registry.ToolContext{
		Store:         r.opts.Store,
		SessionID:     r.sessionID(req),
		OriginalMsgID: req.ID,
		AWD:           r.opts.AWD,
		Staging:       r.opts.Staging,
	}
}

// cutByFailFast reports whether the request at index is cut by
// --fail-fast rather than by an interrupt: it comes after the failure and
// the run itself was not interrupted.
func (ru *run) cutByFailFast(index int64) bool {
	return index > ru.failAt.Load() && ru.parent.Err() == nil
}

func (ru *run) abortReason(index int64) string {
	if ru.cutByFailFast(index) && ru.deferred.Load() {
		return "not started: the run stopped at an earlier call that waits for a person's answer (deferred)"
	}
	if ru.cutByFailFast(index) {
		return "not started: an earlier call failed, and the run stops at the first failure"
	}
	return "interrupted before it started"
}

// noteRecord is told of every record as it is packed. Under --fail-fast,
// the first error record stops what comes after it: nothing later starts,
// and later calls in flight are cancelled. Earlier requests still run.
//
// A deferred record stops the run at it in the same way, --fail-fast or
// not: the calls after it wait for the person's answer with it.
func (ru *run) noteRecord(s *slot) {
	deferred := s.rec.Status == message.StatusDeferred
	if !deferred && (!ru.r.opts.FailFast || s.rec.Error == nil || s.rec.Status == message.StatusAborted) {
		return
	}
	if deferred {
		ru.deferred.Store(true)
	}
	for {
		at := ru.failAt.Load()
		if s.index >= at {
			return
		}
		if ru.failAt.CompareAndSwap(at, s.index) {
			break
		}
	}
	ru.failOnce.Do(func() { close(ru.failed) })
	ru.inflight.Range(func(k, _ any) bool {
		if c := k.(*slot); c.index > s.index {
			c.cancel()
		}
		return true
	})
}

// abortedInFlight is the record of a call still running (or still waiting
// for a worker held by such a call) when the grace ended.
func (ru *run) abortedInFlight(s *slot) *message.Record {
	// A call not started yet is claimed, so that it never starts: its
	// worker may be between the interrupt check and the tool, and the
	// record must not say "before it started" of a tool that then runs.
	if s.started.CompareAndSwap(0, abandoned) {
		return ru.r.aborted(s.req, ru.abortReason(s.index), 0)
	}
	t := s.started.Load()
	return ru.r.aborted(s.req, fmt.Sprintf("interrupted: the call did not return within the %v grace", ru.r.opts.Grace), time.Since(time.Unix(0, t)))
}

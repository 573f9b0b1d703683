// Package runner owns the ToolRunner: it loads tool requests from YAML,
// JSON and JSON Lines files (with positions for every message), runs each
// through the seed's five steps — parse, interrupt check, validation,
// execution, packing — concurrently up to a limit, and hands back one
// Message record per request, in request order, whatever happened.
package runner

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/kesoku/kesoku/internal/message"
	"github.com/kesoku/kesoku/internal/registry"
)

// Position is where a request was written: file:line:column. The zero
// Position belongs to requests that come from no file (a model's calls).
type Position struct {
	File      string
	Line, Col int
}

// IsZero reports whether p names no place.
func (p Position) IsZero() bool { return p.File == "" && p.Line == 0 }

func (p Position) String() string {
	switch {
	case p.IsZero():
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return p.File + ":" + strconv.Itoa(p.Line)
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// Request is one tool call to run: a request from a file, or a model's
// tool call in a session.
type Request struct {
	// ID is the request's id; it becomes the record's parent_id. Run gives
	// a request without one the id call_N, N its 1-based position in the
	// run.
	ID   string
	Name string
	Args map[string]any
	// CallID is a provider's own call id, copied to the record's call_id.
	CallID string
	// SessionID, when set, overrides Options.SessionID for this request's
	// record (a file's own session_id).
	SessionID string
	// Pos is where the request was written; zero for a model's calls.
	Pos Position
	// Err says the request itself is invalid (a bad line, a missing name):
	// it gets an invalid_request record and nothing runs.
	Err error
}

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
	// FailFast aborts the rest of the run after the first error record,
	// as an interrupt would.
	FailFast bool
	// IsInterrupted is the seed's hook, checked before each call starts.
	// Cancelling Run's context is the other way to interrupt, and the one
	// that also wakes a run waiting for a free slot.
	IsInterrupted func() bool
	// EndGrace, once closed (a second signal), ends the grace: calls still
	// in flight are recorded as aborted at once.
	EndGrace <-chan struct{}
	// Finished holds the ids of requests already finished by an earlier
	// run (--resume): they are skipped and get no new record.
	Finished *IDSet

	// The rest is handed to tools through their ToolContext.

	// SessionID goes on every record and into every ToolContext.
	SessionID string
	// AWD and Staging are the agent working directory and the staging
	// directory.
	AWD, Staging string
	// Store is the gateway store tools may write to.
	Store message.Store
	// Model is the active model, nil when there is none.
	Model registry.Model
}

// Summary counts what a run did.
type Summary struct {
	// Records is how many records were handed out; Failed how many of them
	// are errors (aborted ones included), Aborted how many were aborted.
	Records, Failed, Aborted int
	// Skipped is how many requests were skipped as already finished.
	Skipped int
	// Kinds counts the error records by kind.
	Kinds map[message.ErrorKind]int
	// Interrupted says the run was interrupted (its context cancelled or
	// IsInterrupted true); FailedFast says --fail-fast stopped it.
	Interrupted, FailedFast bool
}

func (s *Summary) add(rec *message.Record) {
	s.Records++
	if rec.Error == nil {
		return
	}
	s.Failed++
	if rec.Status == message.StatusAborted {
		s.Aborted++
	}
	if s.Kinds == nil {
		s.Kinds = make(map[message.ErrorKind]int)
	}
	s.Kinds[rec.Error.Kind]++
}

// ToolRunner runs tool requests against a registry: the seed's ToolRunner.
// One ToolRunner may serve many runs, one after another or at once.
type ToolRunner struct {
	reg  *registry.Registry
	opts Options
	ids  *idGenerator
}

// New returns a ToolRunner over reg.
func New(reg *registry.Registry, opts Options) *ToolRunner {
	if opts.Jobs < 1 {
		opts.Jobs = 1
	}
	return &ToolRunner{reg: reg, opts: opts, ids: newIDGenerator()}
}

// Options returns the options the runner was built with, defaults applied.
func (r *ToolRunner) Options() Options { return r.opts }

// slot is one request on its way to a record. Steps 1–3 fill rec at once
// when they refuse the request (done stays nil); a call that runs fills rec
// and closes done when it returns.
type slot struct {
	req     *Request
	rec     *message.Record
	done    chan struct{}
	started time.Time
}

// run is the state of one Run.
type run struct {
	r      *ToolRunner
	ctx    context.Context // cancelled on interrupt, fail-fast, or a failed emit
	cancel context.CancelFunc
	parent context.Context
	failed atomic.Bool // --fail-fast fired
	sem    chan struct{}
}

// Run executes the requests in order of arrival, up to Jobs at once, and
// hands one record per request to emit, in request order. Cancelling ctx
// is the interrupt: nothing new starts, requests not yet started get
// aborted records at once, and calls in flight have their contexts
// cancelled and get Grace to return. Run returns when every request has its
// record; its error is emit's, the only failure that stops it early.
func (r *ToolRunner) Run(ctx context.Context, reqs iter.Seq[*Request], emit func(*message.Record) error) (Summary, error) {
	ru := &run{r: r, parent: ctx, sem: make(chan struct{}, r.opts.Jobs)}
	ru.ctx, ru.cancel = context.WithCancel(ctx)
	defer ru.cancel()

	// The queue of slots in request order is what keeps records in order;
	// its bound keeps memory proportional to Jobs, not to the number of
	// requests.
	pending := make(chan *slot, 2*r.opts.Jobs+64)
	quit := make(chan struct{})
	var summary Summary
	var skipped int
	go func() {
		defer close(pending)
		skipped = ru.dispatch(reqs, pending, quit)
	}()

	var emitErr error
	var grace <-chan time.Time
	graceOver := false
	for s := range pending {
		if emitErr != nil {
			continue // drain, so that the dispatcher can end
		}
		var rec *message.Record
		if s.done == nil {
			rec = s.rec // refused at steps 1–3: packed by the dispatcher
		} else {
			for rec == nil {
				if graceOver {
					select {
					case <-s.done:
						rec = s.rec
					default:
						rec = ru.abortedInFlight(s)
					}
					break
				}
				stopped := ru.ctx.Done()
				if grace != nil {
					stopped = nil
				}
				select {
				case <-s.done:
					rec = s.rec
				case <-stopped:
					t := time.NewTimer(r.opts.Grace)
					defer t.Stop()
					grace = t.C
				case <-grace:
					graceOver = true
				case <-r.opts.EndGrace:
					if grace != nil {
						graceOver = true
					}
				}
			}
		}
		rec.ID = r.ids.New()
		summary.add(rec)
		if err := emit(rec); err != nil {
			emitErr = fmt.Errorf("write record: %w", err)
			close(quit)
			ru.cancel()
		}
	}
	summary.Skipped = skipped
	summary.Interrupted = ctx.Err() != nil || (r.opts.IsInterrupted != nil && r.opts.IsInterrupted())
	summary.FailedFast = ru.failed.Load()
	return summary, emitErr
}

// RunAll is Run over a slice, returning the records in request order: one
// model turn's tool calls.
func (r *ToolRunner) RunAll(ctx context.Context, reqs []*Request) ([]*message.Record, error) {
	recs := make([]*message.Record, 0, len(reqs))
	seq := func(yield func(*Request) bool) {
		for _, q := range reqs {
			if !yield(q) {
				return
			}
		}
	}
	_, err := r.Run(ctx, seq, func(rec *message.Record) error {
		recs = append(recs, rec)
		return nil
	})
	return recs, err
}

// stopped reports whether nothing new may start: the seed's interrupt
// check, widened to --fail-fast.
func (ru *run) stopped() bool {
	if ru.ctx.Err() != nil || ru.failed.Load() {
		return true
	}
	return ru.r.opts.IsInterrupted != nil && ru.r.opts.IsInterrupted()
}

// dispatch takes the requests one by one through steps 1–3 and starts the
// calls that pass, sending every slot to pending in request order. It
// returns how many requests it skipped as already finished.
func (ru *run) dispatch(reqs iter.Seq[*Request], pending chan<- *slot, quit <-chan struct{}) (skipped int) {
	r := ru.r
	seen := NewIDSet()
	n := 0
	for req := range reqs {
		n++
		if req.ID == "" {
			req.ID = "call_" + strconv.Itoa(n)
		}
		if r.opts.Finished != nil && r.opts.Finished.Has(req.ID) {
			skipped++
			continue
		}
		s := &slot{req: req}
		if !seen.Add(req.ID) {
			s.rec = r.failure(req, message.KindInvalidRequest,
				fmt.Sprintf("duplicate id %q: an earlier request of this run has it; a request is never run twice", req.ID))
		} else {
			s.rec = ru.check(req)
		}
		if s.rec == nil {
			ru.start(s)
		} else if s.rec.Error != nil && s.rec.Status != message.StatusAborted {
			ru.noteFailure()
		}
		select {
		case pending <- s:
		case <-quit:
			return skipped
		}
	}
	return skipped
}

// check runs steps 1–3 for req: parse, interrupt check, validation. It
// returns the record of a request that must not run, nil for one that may.
func (ru *run) check(req *Request) *message.Record {
	r := ru.r
	// 1. Parse: the loader has parsed; what it could not make sense of
	// comes as Err.
	if p := checkRequest(req); p != nil {
		return r.failure(req, p.Kind, p.String())
	}
	// 2. Interrupt check.
	if ru.stopped() {
		return r.aborted(req, ru.abortReason(), 0)
	}
	// 3. Validation.
	if p := r.checkArgs(req); p != nil {
		return r.failure(req, p.Kind, p.String())
	}
	return nil
}

// Problem is what is wrong with a request that must not run.
type Problem struct {
	Kind message.ErrorKind
	// Pos is where the problem is, when known: the request's position, or
	// a place inside it.
	Pos     Position
	Message string
}

func (p *Problem) String() string { return withPos(p.Pos, p.Message) }

// Check runs steps 1 and 3 for req — is it a request, does its tool exist,
// do its arguments fit — without running anything: what `kesoku validate`
// reports. It returns nil for a request that would run.
func (r *ToolRunner) Check(req *Request) *Problem {
	if p := checkRequest(req); p != nil {
		return p
	}
	return r.checkArgs(req)
}

func checkRequest(req *Request) *Problem {
	if req.Err != nil {
		var re *RequestError
		if errors.As(req.Err, &re) {
			return &Problem{message.KindInvalidRequest, re.Pos, re.Msg}
		}
		return &Problem{message.KindInvalidRequest, req.Pos, req.Err.Error()}
	}
	if req.Name == "" {
		return &Problem{message.KindInvalidRequest, req.Pos, `missing "name": a request names the tool to call`}
	}
	return nil
}

func (r *ToolRunner) checkArgs(req *Request) *Problem {
	spec, ok := r.reg.Lookup(req.Name)
	if !ok {
		return &Problem{message.KindUnknownTool, req.Pos, r.reg.UnknownTool(req.Name).Error()}
	}
	if req.Args == nil {
		req.Args = map[string]any{}
	}
	if err := spec.Validate(req.Args); err != nil {
		return &Problem{message.KindInvalidArgs, req.Pos, err.Error()}
	}
	return nil
}

func withPos(p Position, msg string) string {
	if p.IsZero() {
		return msg
	}
	return p.String() + ": " + msg
}

// start waits for a free slot and starts the call in its own goroutine
// (step 4); an interrupt while waiting aborts the request instead.
func (ru *run) start(s *slot) {
	select {
	case ru.sem <- struct{}{}:
	case <-ru.ctx.Done():
		s.rec = ru.r.aborted(s.req, ru.abortReason(), 0)
		return
	}
	// The interrupt may have come while waiting, and select picks at
	// random among ready cases.
	if ru.stopped() {
		<-ru.sem
		s.rec = ru.r.aborted(s.req, ru.abortReason(), 0)
		return
	}
	s.done = make(chan struct{})
	s.started = time.Now()
	go ru.execute(s)
}

func (ru *run) abortReason() string {
	if ru.failed.Load() && ru.parent.Err() == nil {
		return "not started: --fail-fast stopped the run after an earlier error"
	}
	return "interrupted before it started"
}

// noteFailure is told of every error record as it is packed, so that
// --fail-fast stops dispatch before the next call can start.
func (ru *run) noteFailure() {
	if ru.r.opts.FailFast && !ru.failed.Swap(true) {
		ru.cancel()
	}
}

// abortedInFlight is the record of a call still running when the grace
// ended.
func (ru *run) abortedInFlight(s *slot) *message.Record {
	return ru.r.aborted(s.req, fmt.Sprintf("interrupted: the call did not return within the %v grace", ru.r.opts.Grace), time.Since(s.started))
}

package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/tracing"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// execute is steps 4 and 5 for one call, on a worker: run the tool with
// the call's context, then pack what came back into the slot's record.
func (ru *run) execute(s *slot) {
	r := ru.r
	req := s.req
	start := time.Now()
	if !s.started.CompareAndSwap(0, start.UnixNano()) {
		// The grace ended first, and the record says it never started.
		ru.finish(s, true)
		return
	}

	// The call's context is the run's, cancelled on interrupt; with its own
	// deadline under --timeout, and its own cancel under --fail-fast.
	ctx := ru.ctx
	// The call's span wraps steps 4 and 5; its ids go on the record.
	var span *tracing.Span
	if ru.tr != nil {
		ctx, span = ru.tr.Tool(ctx, req.Name, callID(req))
		span.ContentJSON(tracing.KeyArguments, req.Args, r.opts.Secrets)
	}
	if r.opts.FailFast || r.opts.Policy != nil {
		// A call may be cut after it started: by the first failure, or by
		// a deferred call before it.
		ctx, s.cancel = context.WithCancel(ctx)
		ru.inflight.Store(s, struct{}{})
		if ru.cut(s.index) {
			s.cancel() // the failure came as it was stored
		}
	}
	var d time.Duration // how long the call took
	defer func() {
		if v := recover(); v != nil {
			// Packing ran a MarshalJSON of the tool's result that panicked.
			s.rec = r.opts.Secrets.Record(r.pk.Pack(r.call(req), records.Outcome{Panicked: fmt.Sprintf("panic: %v", v)}, time.Since(start)))
		}
		if s.cancel != nil {
			ru.inflight.Delete(s)
			s.cancel()
		}
		if span != nil {
			span.ToolDone(s.rec)
			span.End()
		}
		// Before the worker is free, so that nothing after a failure starts.
		ru.noteRecord(s)
		if d == 0 {
			d = time.Since(start)
		}
		ru.noteSpeed(d)
		ru.finish(s, d >= slowCall)
	}()

	tc := r.toolContext(req)
	var o records.Outcome
	timeout := r.timeout(s.spec)
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
		// The tool runs in a goroutine of its own so that the timeout holds
		// even for a tool that ignores its context: the record is written
		// at the deadline and the tool is left to return in its own time.
		ch := make(chan records.Outcome, 1)
		go func() { ch <- call(ctx, s.spec, tc, req.Args) }()
		select {
		case o = <-ch:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				o = records.Outcome{Err: context.DeadlineExceeded}
			} else {
				// Interrupted: the writer decides how long to wait.
				o = <-ch
			}
		}
	} else {
		o = call(ctx, s.spec, tc, req.Args)
	}
	d = time.Since(start)
	s.rec = ru.pack(ctx, s, o, d)
	ru.after(s)
}

// after runs Options.After over a call that ran and succeeded: the
// record keeps what it said. It runs under the run's context, not the
// call's: the call's timeout bounds the call, and the hooks have their
// own.
func (ru *run) after(s *slot) {
	r := ru.r
	if r.opts.After == nil || s.rec.IsError || s.rec.Status != message.StatusResponded {
		return
	}
	c := &policy.Call{ID: s.req.ID, Name: s.req.Name, Args: s.req.Args, SessionID: r.sessionID(s.req)}
	s.rec.HookFeedback = r.opts.Secrets.String(r.opts.After(ru.ctx, c, s.rec.Content))
}

// callID is gen_ai.tool.call.id of req: the model's id of the call in a
// session, the request's id in a run.
func callID(req *request.Request) string {
	if req.CallID != "" {
		return req.CallID
	}
	return req.ID
}

// call runs the tool, turning a panic into an outcome.
func call(ctx context.Context, spec *toolset.Tool, tc *registry.ToolContext, args map[string]any) (o records.Outcome) {
	defer func() {
		if v := recover(); v != nil {
			o = records.Outcome{Panicked: fmt.Sprintf("panic: %v\n%s", v, shortStack())}
		}
	}()
	v, err := spec.Call(ctx, tc, args)
	return records.Outcome{Value: v, Err: err}
}

// shortStack is the stack of a recovered panic from the panicking frame
// down to the tool's entry, without the runtime's and the runner's own
// frames: enough to find the line, short enough for a record.
func shortStack() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs) // runtime.Callers, shortStack, the deferred func
	frames := runtime.CallersFrames(pcs[:n])
	var b strings.Builder
	lines := 0
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, "runtime.") {
			if !more {
				break
			}
			continue
		}
		if strings.HasSuffix(f.Function, "internal/runner.call") {
			break
		}
		fmt.Fprintf(&b, "  %s\n    %s:%d\n", f.Function, f.File, f.Line)
		if lines++; lines == 8 || !more {
			break
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// pack is step 5: one record for what the call came back with, and what
// the run knew of the call when it came back.
func (ru *run) pack(ctx context.Context, s *slot, o records.Outcome, d time.Duration) *message.Record {
	if o.Err != nil && toolspec.IsInvalidArgs(o.Err) {
		o.Err = &refusal{pos: s.req.Pos, tool: s.req.Name, err: o.Err}
	}
	if o.Err != nil {
		// One reading of the interrupt for the whole choice, so that a
		// signal arriving meanwhile cannot make it contradict itself.
		o.Cut = ru.cut(s.index)
		o.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		o.Timeout = ru.r.timeout(s.spec)
		o.ByFailFast = o.Cut && ru.cutByFailFast(s.index)
	}
	// What a tool said goes nowhere with a secret in it: not in the
	// record, not to the model that reads the record's content.
	rec := ru.r.opts.Secrets.Record(ru.r.pk.Pack(ru.r.call(s.req), o, d))
	rec.DecidedBy = s.decidedBy
	return rec
}

// refusal is arguments a tool refused as it ran (a path outside the
// working directory, a number beyond its bounds): worded as step 3 words
// the refusals of validation, with the request's place and the tool's
// name, which the tool's own error does not know.
type refusal struct {
	pos  yamlpos.Pos
	tool string
	err  error
}

func (e *refusal) Error() string {
	if _, named := errors.AsType[*toolspec.ArgsError](e.err); named {
		return e.pos.Prefix(e.err.Error()) // it says the tool's name
	}
	return e.pos.Prefix(fmt.Sprintf("tool %q: %v", e.tool, e.err))
}

func (e *refusal) Unwrap() error { return e.err }

// timeout is what bounds a call of spec: the tool's own timeout (a
// command tool's declaration says how long it may take), else --timeout.
func (r *ToolRunner) timeout(spec *toolset.Tool) time.Duration {
	if spec != nil && spec.Timeout > 0 {
		return spec.Timeout
	}
	return r.opts.Timeout
}

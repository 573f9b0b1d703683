package runner

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// outcome is what a call came back with.
type outcome struct {
	value any
	err   error
	// panicked holds the message of a recovered panic, with a short stack.
	panicked string
}

// execute is steps 4 and 5 for one call, on a worker: run the tool with
// the call's context, then pack what came back into the slot's record.
func (ru *run) execute(s *slot) {
	r := ru.r
	req := s.req
	start := time.Now()
	if !s.started.CompareAndSwap(0, start.UnixNano()) {
		// The grace ended first, and the record says it never started.
		s.finish()
		return
	}

	// The call's context is the run's, cancelled on interrupt; with its own
	// deadline under --timeout, and its own cancel under --fail-fast.
	ctx := ru.ctx
	if r.opts.FailFast {
		ctx, s.cancel = context.WithCancel(ctx)
		ru.inflight.Store(s, struct{}{})
		if ru.cut(s.index) {
			s.cancel() // the failure came as it was stored
		}
	}
	defer func() {
		if v := recover(); v != nil {
			// Packing ran a MarshalJSON of the tool's result that panicked.
			s.rec = r.errorRecord(req, message.KindPanic, fmt.Sprintf("panic: %v", v), time.Since(start))
		}
		if s.cancel != nil {
			ru.inflight.Delete(s)
			s.cancel()
		}
		// Before the worker is free, so that nothing after a failure starts.
		ru.noteRecord(s)
		s.finish()
	}()

	tc := &registry.ToolContext{
		Store:         r.opts.Store,
		SessionID:     r.sessionID(req),
		OriginalMsgID: req.ID,
		AWD:           r.opts.AWD,
		Staging:       r.opts.Staging,
		Model:         r.opts.Model,
		Protected:     r.opts.Protected,
	}
	var o outcome
	timeout := r.timeout(s.spec)
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
		// The tool runs in a goroutine of its own so that the timeout holds
		// even for a tool that ignores its context: the record is written
		// at the deadline and the tool is left to return in its own time.
		ch := make(chan outcome, 1)
		go func() { ch <- call(ctx, s.spec, tc, req.Args) }()
		select {
		case o = <-ch:
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				o = outcome{err: context.DeadlineExceeded}
			} else {
				// Interrupted: the writer decides how long to wait.
				o = <-ch
			}
		}
	} else {
		o = call(ctx, s.spec, tc, req.Args)
	}
	s.rec = ru.pack(ctx, s, o, time.Since(start))
}

// call runs the tool, turning a panic into an outcome.
func call(ctx context.Context, spec *registry.Spec, tc *registry.ToolContext, args map[string]any) (o outcome) {
	defer func() {
		if v := recover(); v != nil {
			o = outcome{panicked: fmt.Sprintf("panic: %v\n%s", v, shortStack())}
		}
	}()
	v, err := spec.Call(ctx, tc, args)
	return outcome{value: v, err: err}
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

// pack is step 5: one record for what the call came back with.
func (ru *run) pack(ctx context.Context, s *slot, o outcome, d time.Duration) *message.Record {
	var st callState
	if o.err != nil {
		// One reading of the interrupt for the whole choice, so that a
		// signal arriving meanwhile cannot make it contradict itself.
		st.cut = ru.cut(s.index)
		st.timedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
		st.timeout = ru.r.timeout(s.spec)
		st.byFailFast = st.cut && ru.cutByFailFast(s.index)
	}
	return ru.r.pack(s.req, o, d, st)
}

// callState is what the run knew of a call that failed, when it failed.
type callState struct {
	// cut: the call was interrupted (or cut by --fail-fast, byFailFast);
	// timedOut: its timeout passed.
	cut, byFailFast, timedOut bool
	// timeout is the call's bound: the tool's own or --timeout.
	timeout time.Duration
}

// timeout is what bounds a call of spec: the tool's own timeout (a
// command tool's declaration says how long it may take), else --timeout.
func (r *ToolRunner) timeout(spec *registry.Spec) time.Duration {
	if spec != nil && spec.Timeout > 0 {
		return spec.Timeout
	}
	return r.opts.Timeout
}

// pack is the one mapping from what a call came back with to its record
// and, for an error, its kind.
func (r *ToolRunner) pack(req *request.Request, o outcome, d time.Duration, st callState) *message.Record {
	if o.panicked != "" {
		return r.errorRecord(req, message.KindPanic, o.panicked, d)
	}
	if o.err != nil {
		switch {
		case st.timedOut && !st.cut:
			why := "--timeout"
			if st.timeout != r.opts.Timeout {
				why = "the tool's own timeout"
			}
			// Only the bound and which it was: what the tool said as its
			// context ended ("context deadline exceeded", or whatever it
			// managed before the deadline won the race) tells the user
			// nothing more.
			return r.errorRecord(req, message.KindTimeout,
				fmt.Sprintf("timed out after %v (%s)", st.timeout, why), d)
		case registry.IsInvalidArgs(o.err):
			return r.errorRecord(req, message.KindInvalidArgs, o.err.Error(), d)
		case st.byFailFast:
			return r.aborted(req, "cancelled by --fail-fast after an earlier error: "+o.err.Error(), d)
		case st.cut:
			return r.aborted(req, "interrupted while running: "+o.err.Error(), d)
		}
		var unknown *registry.UnknownToolError
		if errors.As(o.err, &unknown) {
			return r.errorRecord(req, message.KindUnknownTool, o.err.Error(), d)
		}
		return r.errorRecord(req, message.KindToolError, o.err.Error(), d)
	}
	rec, err := r.success(req, o.value, d)
	if err != nil {
		return r.errorRecord(req, message.KindToolError, err.Error(), d)
	}
	return rec
}

// Pack is step 5 for a call made outside a Run: the record of a call of
// req's tool that returned v and err after d, interrupted or not. A
// command that makes a call itself (kesoku analyze --json) writes with it
// the record kesoku run would have written: the same fields, the same
// error kinds.
func (r *ToolRunner) Pack(req *request.Request, v any, err error, interrupted bool, d time.Duration) *message.Record {
	rec := r.pack(req, outcome{value: v, err: err}, d, callState{cut: interrupted})
	rec.ID = message.NewID()
	return rec
}

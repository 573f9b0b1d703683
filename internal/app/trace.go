package app

import (
	"context"
	"fmt"
	"os"

	"github.com/kesoku/kesoku/internal/notice"
	"github.com/kesoku/kesoku/internal/tracing"
)

// startTraces turns traces on when the OTEL_* variables ask, and starts
// the command's span: ctx carries both. Off, nothing of the SDK is
// built. A setting kesoku cannot follow leaves traces off, with a line
// on the log: the command itself is not at fault.
func (e *Env) startTraces(ctx context.Context) context.Context {
	cfg, err := tracing.FromEnv(e.getenv)
	if err == nil && cfg.On {
		e.traces, err = tracing.Start(ctx, cfg, e.opts.Version)
	}
	if err != nil {
		e.opts.Tell.Tell(notice.Warning, "traces are off: "+err.Error())
		return ctx
	}
	if e.traces == nil {
		return ctx
	}
	ctx = tracing.With(ctx, e.traces.Tracer())
	if e.opts.Trace != "" {
		ctx, e.root = e.traces.Tracer().Root(ctx, e.opts.Trace)
	}
	return ctx
}

// Tracer is what makes the command's spans, nil when traces are off.
func (e *Env) Tracer() *tracing.Tracer { return e.traces.Tracer() }

// traced is ctx carrying the command's tracer, for work under a context
// that did not come from Prepare.
func (e *Env) traced(ctx context.Context) context.Context {
	if e.traces == nil || tracing.From(ctx) != nil {
		return ctx
	}
	return tracing.With(ctx, e.traces.Tracer())
}

// endTraces ends the command's span and sends what is queued, waiting a
// bounded time; the spans that never reached the collector are one line
// on the log.
func (e *Env) endTraces() {
	if e.traces == nil {
		return
	}
	e.root.End()
	e.root = nil
	lost := e.traces.Shutdown(context.Background())
	e.traces = nil
	if lost.Lost > 0 {
		why := "the queue was full, or the collector did not take them in time"
		if lost.Err != "" {
			why = "the collector did not take them: " + lost.Err
		}
		e.opts.Tell.Tell(notice.Warning, fmt.Sprintf("traces: %d of %d spans dropped (%s)", lost.Lost, lost.Ended, why))
	}
}

// getenv reads the environment the command was given.
func (e *Env) getenv(k string) string {
	if e.opts.Getenv != nil {
		return e.opts.Getenv(k)
	}
	return os.Getenv(k)
}

package runner

import (
	"context"
	"math"

	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/tracing"
	"github.com/kesoku/kesoku/message"
)

// RunOne runs one request through the five steps and returns its record:
// what Run does with a run of that request alone — the same checks, the
// same interrupt and grace (cancelling ctx), the same record — without
// what a run of many needs: the dispatcher and the workers, and the set
// of the ids seen. A call that comes alone (an MCP client's tools/call)
// is checked in the caller's goroutine and runs in one of its own.
func (r *ToolRunner) RunOne(ctx context.Context, req *request.Request) *message.Record {
	ru := &run{r: r, parent: ctx, failed: make(chan struct{})}
	ru.failAt.Store(math.MaxInt64)
	ru.ctx, ru.cancel = context.WithCancel(r.withEnv(ctx))
	ru.tr = tracing.From(ctx)
	defer ru.cancel()
	if req.ID == "" {
		req.ID = "call_1" // as Run numbers the first request of a run
	}
	b := newBatch(1)
	s := b.add()
	s.req, s.index = req, 1
	if s.spec, s.rec = ru.check(s, false); s.rec == nil && ru.decide(s) {
		b.left.Store(1)
		go ru.execute(s)
	} else {
		s.done.Store(true)
	}
	w := newGraceWatch(ru)
	rec := w.await(b, s, 0)
	w.stop()
	rec.ID = message.NewID()
	if ru.tr != nil {
		tracing.Stamp(ctx, rec)
	}
	return rec
}

package request

import (
	"context"
	"io"
)

// InterruptibleReader reads standard input in a goroutine, so that an
// interrupt ends a read waiting for input that may never come (a
// terminal, an idle pipe, a pipe that never ends): the interrupt stops the
// reading of requests, and what was not read is left for --resume. The
// read in flight is abandoned; the program ends soon.
type InterruptibleReader struct {
	ctx     context.Context
	src     io.Reader
	results chan readResult
	buf     []byte
	// stopped is set once an interrupt ended a read: every later read
	// fails the same way.
	stopped bool
}

// NewInterruptibleReader reads src until ctx is done.
func NewInterruptibleReader(ctx context.Context, src io.Reader) *InterruptibleReader {
	return &InterruptibleReader{ctx: ctx, src: src}
}

type readResult struct {
	n   int
	err error
}

// Read reads from the source, or fails with the context's error once it
// is done.
func (r *InterruptibleReader) Read(p []byte) (int, error) {
	if r.stopped || r.ctx.Err() != nil {
		r.stopped = true
		return 0, r.ctx.Err()
	}
	// A read in flight is left behind only when the reader stops, so
	// every Read that gets here starts one.
	if r.results == nil {
		r.results = make(chan readResult, 1)
	}
	if cap(r.buf) < len(p) {
		r.buf = make([]byte, len(p))
	}
	buf := r.buf[:len(p)]
	go func() {
		n, err := r.src.Read(buf)
		r.results <- readResult{n, err}
	}()
	select {
	case res := <-r.results:
		return copy(p, buf[:res.n]), res.err
	case <-r.ctx.Done():
		r.stopped = true
		return 0, r.ctx.Err()
	}
}

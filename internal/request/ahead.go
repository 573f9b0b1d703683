package request

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// Parsing is most of what reading a JSON Lines request costs, and each
// line parses on its own: the lines are read in order on one goroutine,
// in batches, parsed on as many as there are cores, and handed back in
// order. What is read ahead is bounded: a few batches of a few hundred
// lines, and aheadBytes of their text.
const (
	// batchLines and batchBytes end a batch, whichever comes first.
	batchLines = 128
	batchBytes = 16 << 10
	// ownLine is the length past which a line is parsed by the reading
	// goroutine itself, as it comes: a batch never copies a long line.
	ownLine = 64 << 10
	// aheadBytes bounds the bytes of the lines read ahead and not yet
	// taken, long lines' among them (one line longer than that is read
	// on its own): a count of lines alone let hundreds of long requests
	// be held at once.
	aheadBytes = 4 << 20
)

// parsers is how many goroutines parse a file's lines: one a core, at
// most four. With one, there is no reading ahead.
func parsers() int { return min(runtime.GOMAXPROCS(0), 4) }

// batch is lines read, on their way to requests.
type batch struct {
	buf   []byte
	lines []batchLine
	reqs  []*Request
	// spooled says the lines are a spool's, each with its position.
	spooled bool
	// parsed is closed once reqs holds a request for each line.
	parsed chan struct{}
	// err, on the last batch, is the error that ended the reading.
	err error
	// bytes is the bytes of its lines the batch holds against the bound
	// of what is read ahead, given back once its requests are taken.
	bytes int64
}

// aheadRoom bounds the bytes of lines read ahead: the reading goroutine
// takes room for what it reads, the one that takes the requests gives it
// back.
type aheadRoom struct {
	limit int64
	held  atomic.Int64
	freed chan struct{}
	// hook, when set (tests), is told by the reading goroutine what it
	// holds each time it takes room, and when it waits for room.
	hook func(held int64, waits bool)
}

// take takes room for n bytes, waiting until what is held leaves room for
// them (or nothing is held: a line larger than the bound is read alone),
// and reports false if stop closes first.
func (r *aheadRoom) take(n int64, stop <-chan struct{}) bool {
	for n > 0 {
		held := r.held.Load()
		if held == 0 || held+n <= r.limit {
			break
		}
		if r.hook != nil {
			r.hook(held, true)
		}
		select {
		case <-r.freed:
		case <-stop:
			return false
		}
	}
	held := r.held.Add(n)
	if r.hook != nil {
		r.hook(held, false)
	}
	return true
}

// give gives back room for n bytes.
func (r *aheadRoom) give(n int64) {
	r.held.Add(-n)
	select {
	case r.freed <- struct{}{}:
	default:
	}
}

// batchLine is one line of a batch: its bytes, buf[from:to], where it
// is, and the document of a spool it came from. req is set for a line
// that needs no parsing (too long) or was parsed as it was read.
type batchLine struct {
	from, to int
	pos      yamlpos.Pos
	doc      int
	req      *Request
}

// streamAhead is stream with the parsing spread over n goroutines.
func (f *File) streamAhead(yield func(*Request) bool, n int) {
	stop := make(chan struct{})
	defer close(stop)
	// ordered holds the batches in the order they were read; each is also
	// sent to the parsers. Its bound is what is read ahead.
	ordered := make(chan *batch, n)
	toParse := make(chan *batch, n)
	// Batches read are used again, rather than left to the collector.
	free := make(chan *batch, 2*n+2)
	room := &aheadRoom{limit: cmp.Or(f.aheadLimit, aheadBytes), freed: make(chan struct{}, 1), hook: f.aheadHook}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			p := &jsonParser{}
			for b := range toParse {
				b.parse(p)
			}
		})
	}
	go func() {
		defer close(ordered)
		defer close(toParse)
		f.readBatches(stop, ordered, toParse, free, room)
	}()
	for b := range ordered {
		<-b.parsed
		markMore(b.reqs)
		for i, req := range b.reqs {
			if f.spool != nil {
				req.SessionID = f.sessions[b.lines[i].doc]
			}
			if !yield(req) {
				return // stop ends the reading and the parsers
			}
		}
		if b.err != nil {
			f.err = b.err
		}
		room.give(b.bytes)
		clear(b.reqs)
		select {
		case free <- b:
		default:
		}
	}
	wg.Wait()
}

// readBatches reads the lines into batches, sending each to ordered and
// to toParse, until the input ends or stop is closed. A batch is sent
// early when the next line would wait for the input (a pipe that has
// given all it has for now), so that a request is never held back
// waiting for others.
func (f *File) readBatches(stop <-chan struct{}, ordered, toParse chan<- *batch, free <-chan *batch, room *aheadRoom) {
	lines := f.lineReader()
	own := &jsonParser{}
	b := f.newBatch(free)
	send := func() bool {
		// The long line of a batch took its room before it was parsed.
		if !room.take(int64(len(b.buf)), stop) {
			return false
		}
		b.bytes += int64(len(b.buf))
		select {
		case ordered <- b:
		case <-stop:
			return false
		}
		select {
		case toParse <- b:
		case <-stop:
			return false
		}
		b = f.newBatch(free)
		return true
	}
	for lines.Scan() {
		l := batchLine{from: len(b.buf), pos: yamlpos.Pos{File: f.Name}}
		l.pos.Line, l.pos.Col = lines.Pos()
		text := lines.Bytes()
		switch {
		case lines.TooLong():
			l.req = tooLongRequest(l.pos)
		case len(text) > ownLine:
			// A long line is a batch of its own, parsed once there is room
			// for it: what it becomes is about as large as it is.
			if len(b.lines) > 0 && !send() {
				return
			}
			if !room.take(int64(len(text)), stop) {
				return
			}
			b.bytes = int64(len(text))
			l.from = 0
			l.req = hashed(parseLine(own, text, l.pos, f.spool != nil, &l.doc))
		default:
			b.buf = append(b.buf, text...)
		}
		l.to = len(b.buf)
		b.lines = append(b.lines, l)
		if (len(b.lines) >= batchLines || len(b.buf) >= batchBytes || b.bytes > 0 || lines.Buffered() == 0) && !send() {
			return
		}
	}
	b.err = lines.Err()
	send()
}

// newBatch returns an empty batch: one used before, if free has one.
func (f *File) newBatch(free <-chan *batch) *batch {
	select {
	case b := <-free:
		b.buf, b.lines, b.reqs, b.bytes = b.buf[:0], b.lines[:0], b.reqs[:0], 0
		b.parsed = make(chan struct{})
		return b
	default:
		return &batch{buf: make([]byte, 0, batchBytes+batchBytes/4), lines: make([]batchLine, 0, batchLines),
			spooled: f.spool != nil, parsed: make(chan struct{})}
	}
}

// parse makes each line of b a request.
func (b *batch) parse(p *jsonParser) {
	for i := range b.lines {
		l := &b.lines[i]
		if l.req != nil {
			b.reqs = append(b.reqs, l.req)
			continue
		}
		b.reqs = append(b.reqs, hashed(parseLine(p, b.buf[l.from:l.to], l.pos, b.spooled, &l.doc)))
	}
	close(b.parsed)
}

// markMore sets More on each request of a batch that a later request of
// the batch follows (the records that are no requests are left out).
func markMore(reqs []*Request) {
	more := false
	for _, req := range slices.Backward(reqs) {
		req.More = more
		more = more || !req.other
	}
}

// hashed is req with its ArgsHash.
func hashed(req *Request) *Request {
	if req.Err == nil && !req.other {
		req.ArgsHash = records.ArgsHash(req.Args)
	}
	return req
}

// tooLongRequest is the request of a line longer than MaxLine.
func tooLongRequest(pos yamlpos.Pos) *Request {
	return &Request{Pos: pos, Err: &RequestError{Pos: pos, Msg: fmt.Sprintf("line longer than %d bytes", MaxLine)}}
}

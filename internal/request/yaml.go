package request

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/kesoku/kesoku/internal/yamlpos"
)

// yamlGCPercent is the pace of the collector while a YAML file is read:
// goccy/go-yaml leaves kilobytes of garbage an item over a small live
// heap, and at the default pace the collector took a quarter of the
// reading; at this one it takes little, and the heap stays well under
// what a run may take (bench/RESULTS.md).
const yamlGCPercent = 400

// A YAML request file is cut at its lines into chunks that goccy/go-yaml
// parses each on its own: a block list of requests (at the top of a
// document, or under the requests key of a wrapper, whose other keys make
// one chunk) about a kilobyte of items a chunk, any other document whole.
// Memory is thus bounded by the largest request however long the list,
// and the parser, which takes time quadratic in the entries of one
// collection, never sees a long list (60,000 requests whole: 11 s and 600
// MiB; bench/RESULTS.md).

// yamlLine is one line of a YAML file, as the cutter sees it.
type yamlLine struct {
	raw []byte // without its line end; nil for the end of the file
	n   int    // its number
	// indent is the number of spaces before the content; a line whose
	// indentation holds a tab counts as indented without end, so that it
	// stays with what comes before (whose parser then says what is wrong).
	indent int
	// blank is a line with nothing but space or a comment.
	blank bool
	text  []byte // the content, from the first byte after the indentation
}

const tabIndent = 1 << 30

// chunkBytes is about how much of a list goes to the parser at once: a
// call for each item costs more than its parsing (in chunks, the 60,000
// requests of bench/RESULTS.md took 0.6 s instead of 1.0 s), and a
// longer list costs more than linear time.
const chunkBytes = 1 << 10

func classify(raw []byte, n int) yamlLine {
	text := bytes.TrimLeft(raw, " ")
	l := yamlLine{raw: raw, n: n, indent: len(raw) - len(text), blank: restIsEmpty(text), text: text}
	if !l.blank && text[0] == '\t' {
		l.indent = tabIndent
	}
	return l
}

func (l *yamlLine) end() bool { return l.raw == nil }

// isEntry reports whether the line is an item of a block list: "-" then
// space or the end of the line.
func (l *yamlLine) isEntry() bool {
	rest, ok := bytes.CutPrefix(l.text, []byte("-"))
	return ok && (len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t')
}

// marker reports whether the line is a document marker, "---" (which may
// be followed by the document's first content) or "...".
func (l *yamlLine) marker() (start, end bool) {
	if l.indent != 0 || len(l.text) > 3 && l.text[3] != ' ' && l.text[3] != '\t' {
		return false, false
	}
	return bytes.HasPrefix(l.text, []byte("---")), bytes.HasPrefix(l.text, []byte("..."))
}

// isRequestsKey reports whether the line is the key requests with nothing
// after it but a comment: its value is on the lines below.
func (l *yamlLine) isRequestsKey() bool {
	for _, k := range []string{"requests:", `"requests":`, `'requests':`} {
		if rest, ok := bytes.CutPrefix(l.text, []byte(k)); ok && restIsEmpty(rest) {
			return true
		}
	}
	return false
}

// restIsEmpty reports whether what is left of a line is space or a comment.
func restIsEmpty(b []byte) bool {
	b = bytes.TrimLeft(b, " \t")
	return len(b) == 0 || b[0] == '#'
}

// yamlCutter reads a YAML file's lines, one of them ahead at most.
type yamlCutter struct {
	sc   *bufio.Scanner
	name string
	n    int       // the number of the line last read
	back *yamlLine // a line given back, read again first
	read int64     // the bytes read
}

func newYAMLCutter(in io.Reader, name string) *yamlCutter {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxChunkBytes+1)
	return &yamlCutter{sc: sc, name: name}
}

// next returns the next line, at the end of the file one whose end() is true.
func (c *yamlCutter) next() (yamlLine, error) {
	if l := c.back; l != nil {
		c.back = nil
		return *l, nil
	}
	if !c.sc.Scan() {
		if errors.Is(c.sc.Err(), bufio.ErrTooLong) {
			return yamlLine{}, &ParseError{Pos: yamlpos.Pos{File: c.name, Line: c.n + 1, Col: 1},
				Msg: fmt.Sprintf("a line longer than %d MiB: %s", maxChunkBytes>>20, chunkAdvice)}
		}
		return yamlLine{}, c.sc.Err()
	}
	c.n++
	c.read += int64(len(c.sc.Bytes())) + 1
	return classify(c.sc.Bytes(), c.n), nil
}

// unread gives l back, to be read again by next, which is called before
// another line is given back. l is copied: the Scanner reuses its bytes.
func (c *yamlCutter) unread(l yamlLine) {
	if !l.end() {
		l = classify(bytes.Clone(l.raw), l.n)
	}
	c.back = &l
}

// errAt is a ParseError at the start of the content of line l.
func (c *yamlCutter) errAt(l yamlLine, msg string) error {
	return &ParseError{Pos: yamlpos.Pos{File: c.name, Line: l.n, Col: min(l.indent, len(l.raw)) + 1}, Msg: msg,
		Source: string(l.raw)}
}

// yamlChunk is a run of whole lines parsed on its own. Where its lines
// leave a gap in the file's (the list of a wrapper, read on its own), the
// lines after gapAt are gapBy lines further down in the file.
type yamlChunk struct {
	data         []byte
	first        int // the number of its first line
	gapAt, gapBy int
	what         string
	items        []int // where each list item's "-" line starts in data
}

func (ch *yamlChunk) reset(what string) {
	*ch = yamlChunk{data: ch.data[:0], what: what, items: ch.items[:0]}
}

// fileLine is the number in the file of the chunk's line n.
func (ch *yamlChunk) fileLine(n int) int {
	if ch.gapAt > 0 && n > ch.gapAt {
		n += ch.gapBy
	}
	return n + ch.first - 1
}

func (ch *yamlChunk) add(name string, l yamlLine) error {
	if ch.first == 0 {
		ch.first = l.n
	}
	ch.data = append(append(ch.data, l.raw...), '\n')
	from := 0 // where the last item starts: the limit is a request's
	if k := len(ch.items); k > 1 {
		from = ch.items[k-1]
	}
	if len(ch.data)-from > maxChunkBytes {
		return &ParseError{Pos: yamlpos.Pos{File: name, Line: ch.first + bytes.Count(ch.data[:from], []byte("\n"))},
			Msg: fmt.Sprintf("%s larger than %d MiB of YAML: %s", ch.what, maxChunkBytes>>20, chunkAdvice)}
	}
	return nil
}

// yamlReader reads the documents of a YAML file, one after another, into
// the spool.
type yamlReader struct {
	f     *File
	c     *yamlCutter
	ctx   context.Context
	sp    *spool
	doc   int
	conv  *yamlConverter
	chunk yamlChunk
	pool  *yamlPool
	// out is what requests that use an alias came to, across the file.
	out yamlpos.AliasOut
}

// loadYAML reads a YAML file — documents each holding one request, a list
// of requests, or {session_id: ..., requests: [...]} — into the spool.
func (f *File) loadYAML(ctx context.Context, in io.Reader, sp *spool) error {
	// The garbage is collected at the end: the run starts from what is live.
	if prev := debug.SetGCPercent(yamlGCPercent); prev >= 0 && prev <= yamlGCPercent {
		defer func() { debug.SetGCPercent(prev); runtime.GC() }()
	} else {
		debug.SetGCPercent(prev) // off, or slower already
	}
	d := &yamlReader{f: f, c: newYAMLCutter(in, f.Name), ctx: ctx, sp: sp}
	d.out = yamlpos.AliasOut{Read: func() int64 { return d.c.read }, Base: maxAliasOut, Ratio: aliasOutRatio}
	d.pool = &yamlPool{name: f.Name, slots: make(chan struct{}, runtime.GOMAXPROCS(0)), emit: d.emit}
	defer d.pool.stop()
	for doc := 0; ; doc++ {
		more, err := d.read(doc)
		if err != nil || !more {
			return err
		}
	}
}

// emit writes a request of the current document to the spool.
func (d *yamlReader) emit(pos yamlpos.Pos, request []byte) error {
	if d.sp.n&1023 == 1023 && d.ctx.Err() != nil {
		return d.ctx.Err()
	}
	return d.sp.add(pos, d.doc, request)
}

// read reads document doc, and reports whether another follows.
func (d *yamlReader) read(doc int) (more bool, err error) {
	d.doc = doc
	d.conv = newYAMLConverter(d.f.Name, d.emit, &d.out)
	opened := false // by a "---" line
	var l yamlLine
	for {
		if l, err = d.c.next(); err != nil || l.end() {
			return false, err
		}
		start, end := l.marker()
		switch {
		case end:
			return true, nil
		case start && opened:
			// An empty document: the marker opens the next.
			d.c.unread(l)
			return true, nil
		case start && !restIsEmpty(l.text[3:]):
			// Content on the marker's line: the document is read whole.
			return d.readWhole(l)
		case start:
			opened = true
			continue
		}
		if !l.blank {
			break
		}
	}
	if !l.isEntry() {
		return d.readWhole(l)
	}
	after, err := d.list(l)
	if err != nil {
		return false, err
	}
	if ends, more := d.docEnd(after); ends {
		return more, nil
	}
	return false, d.c.errAt(after, fmt.Sprintf("invalid YAML: expected a list item (- ...) at column %d, or the end of the document", l.indent+1))
}

// docEnd reports whether l (a marker, or the end of the file) ends the
// document and whether another follows, giving back a "---" that starts it.
func (d *yamlReader) docEnd(l yamlLine) (ends, more bool) {
	if l.end() {
		return true, false
	}
	start, end := l.marker()
	if start {
		d.c.unread(l)
	}
	return start || end, start || end
}

// list reads a block list of requests whose first item is at l, a few
// items a chunk, and returns the first line after it.
func (d *yamlReader) list(l yamlLine) (yamlLine, error) {
	indent := l.indent
	d.chunk.reset("a request")
	for {
		// The item: its "-" line, and those after it, blank or deeper.
		d.chunk.items = append(d.chunk.items, len(d.chunk.data))
		err := d.chunk.add(d.c.name, l)
		for err == nil {
			if l, err = d.c.next(); err != nil || l.end() || !l.blank && l.indent <= indent {
				break
			}
			err = d.chunk.add(d.c.name, l)
		}
		if err != nil {
			return yamlLine{}, d.before(err)
		}
		last := l.end() || l.indent != indent || !l.isEntry()
		if last || len(d.chunk.data) >= chunkBytes {
			if err := d.parseChunk(); err != nil {
				return yamlLine{}, err
			}
			d.chunk.reset("a request")
		}
		if last {
			return l, d.pool.flush(0)
		}
	}
}

// before returns err, met in the chunk's last item, unless an item before
// it (in the chunk or with the pool) holds a mistake: the file's first
// mistake is the one said, whichever worker finds it first.
func (d *yamlReader) before(err error) error {
	if k := len(d.chunk.items); k > 1 {
		d.chunk.data, d.chunk.items = d.chunk.data[:d.chunk.items[k-1]], d.chunk.items[:k-1]
		if perr := d.parseChunk(); perr != nil {
			return perr
		}
	}
	if perr := d.pool.flush(0); perr != nil {
		return perr
	}
	return err
}

// parseChunk parses the chunk of list items, in the pool when it can.
func (d *yamlReader) parseChunk() error {
	if !bytes.ContainsAny(d.chunk.data, "&*") {
		d.conv.conv.Read(len(d.chunk.data)) // the budget of aliases grows with the document
		return d.pool.submit(&d.chunk)
	}
	if err := d.pool.flush(0); err != nil {
		return err
	}
	return d.conv.items(&d.chunk)
}

// readWhole reads the document that starts at l whole and parses it —
// unless it is a block mapping with a requests key whose value is a block
// list, which is read as a list (wrapper).
func (d *yamlReader) readWhole(l yamlLine) (bool, error) {
	indent := l.indent
	mapping := indent != tabIndent && l.text[0] != '{' && l.text[0] != '['
	d.chunk.reset("a YAML document that is not a block list of requests")
	for {
		keys := len(d.chunk.data)
		if err := d.chunk.add(d.c.name, l); err != nil {
			return false, err
		}
		if mapping && l.indent == indent && l.isRequestsKey() {
			if more, streamed, err := d.wrapper(l, keys); streamed || err != nil {
				return more, err
			}
		}
		var err error
		if l, err = d.c.next(); err != nil {
			return false, err
		}
		if start, end := l.marker(); l.end() || start || end {
			break
		}
	}
	session, err := d.conv.document(&d.chunk)
	d.f.setSession(d.doc, session)
	_, more := d.docEnd(l)
	return more, err
}

// wrapper reads the rest of a mapping document from its requests key at
// l, d.chunk's last line (after the keys before it, at keysEnd), when a
// block list follows: the list an item at a time, then the keys before and
// after it as one document, requests: [] in place of the list. When no
// list follows, streamed is false and only blank lines went to d.chunk.
func (d *yamlReader) wrapper(l yamlLine, keysEnd int) (more, streamed bool, err error) {
	next, err := d.c.next()
	for err == nil && next.blank {
		if err = d.chunk.add(d.c.name, next); err == nil {
			next, err = d.c.next()
		}
	}
	if err != nil {
		return false, false, err
	}
	if !next.isEntry() || next.indent < l.indent {
		d.c.unread(next)
		return false, false, nil
	}
	keys := d.chunk
	keys.data = append(append(bytes.Clone(d.chunk.data[:keysEnd]), l.raw[:l.indent]...), "requests: []\n"...)
	after, err := d.list(next)
	if err != nil {
		return false, true, err
	}
	ends, more := d.docEnd(after)
	if !ends && after.indent != l.indent {
		return false, true, d.c.errAt(after, fmt.Sprintf("invalid YAML: expected a key at column %d, or the end of the document", l.indent+1))
	}
	if !ends {
		keys.gapAt, keys.gapBy = l.n-keys.first+1, after.n-l.n-1
	}
	for ; !ends; ends, more = d.docEnd(after) {
		if err := keys.add(d.c.name, after); err != nil {
			return false, true, err
		}
		if after, err = d.c.next(); err != nil {
			return false, true, err
		}
	}
	session, err := d.conv.document(&keys)
	d.f.setSession(d.doc, session)
	return more, true, err
}

// yamlPool parses chunks of list items on every core, and hands their
// requests to emit in order. A chunk that may use an anchor of another
// (its text holds & or *) is not for the pool: the document's converter,
// which keeps the anchors, parses it in order.
type yamlPool struct {
	name  string
	slots chan struct{} // one for each chunk being parsed
	queue []*yamlJob    // the chunks handed on, in order
	emit  func(yamlpos.Pos, []byte) error
}

// yamlJob is one chunk, and the requests it made.
type yamlJob struct {
	pos  []yamlpos.Pos
	reqs [][]byte
	err  error
	done chan struct{}
}

// submit parses a copy of ch on a core of its own, and hands the
// requests of the chunks done to emit: at most a few chunks wait.
func (p *yamlPool) submit(ch *yamlChunk) error {
	job, chunk := &yamlJob{done: make(chan struct{})}, *ch
	chunk.data, chunk.items = bytes.Clone(ch.data), slices.Clone(ch.items)
	p.queue = append(p.queue, job)
	p.slots <- struct{}{}
	go func() {
		defer func() { <-p.slots; close(job.done) }()
		job.err = newYAMLConverter(p.name, func(pos yamlpos.Pos, request []byte) error {
			job.pos, job.reqs = append(job.pos, pos), append(job.reqs, bytes.Clone(request))
			return nil
		}, nil).items(&chunk)
	}()
	return p.flush(4 * cap(p.slots))
}

// flush hands on the requests of the chunks done, in order, waiting for
// them while more than keep are queued.
func (p *yamlPool) flush(keep int) error {
	for len(p.queue) > 0 {
		job := p.queue[0]
		select {
		case <-job.done:
		default:
			if len(p.queue) <= keep {
				return nil
			}
			<-job.done
		}
		p.queue = p.queue[1:]
		for i, r := range job.reqs {
			if err := p.emit(job.pos[i], r); err != nil {
				return err
			}
		}
		if job.err != nil {
			return job.err
		}
	}
	return nil
}

// stop waits for the chunks handed on.
func (p *yamlPool) stop() {
	for _, job := range p.queue {
		<-job.done
	}
}

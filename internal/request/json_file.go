package request

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/kesoku/kesoku/internal/yamlpos"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// Reading a JSON file: the request parser reads it from the file as it
// comes — a list, or the {"session_id", "requests"} wrapper, whose list is
// read the same way — and each request, checked as the parser reads it,
// goes whole to the spool. What was read before a request is forgotten
// when it starts, so that memory stays flat whatever the size of the file.

// jsonPiece is the most a JSON file is read by at a time (a variable for
// the tests, which read in pieces of a byte).
var jsonPiece = 64 << 10

// errTooLarge says a request is larger than MaxLine.
var errTooLarge = fmt.Errorf("a request larger than %d MiB: a file of requests holds smaller ones", MaxLine>>20)

// jsonFile reads one JSON file into the spool.
type jsonFile struct {
	f   *File
	ctx context.Context
	sp  *spool
	p   jsonParser
	// start is the offset of the request being read.
	start int64
	// The place of offset at: its line, and the bytes before it on the
	// line (col of them, the first of them in head).
	at        int64
	line, col int
	head      []byte
	out       bytes.Buffer
}

// loadJSON reads a JSON file — one request, a list of requests, or
// {"session_id": ..., "requests": [...]} — into the spool.
func (f *File) loadJSON(ctx context.Context, in io.Reader, sp *spool) error {
	j := &jsonFile{f: f, ctx: ctx, sp: sp, line: 1}
	p, d := &j.p, &j.p.d
	p.src = source{r: in, limit: MaxLine}
	d.Reset(&p.src, decoderOptions...)
	switch k := d.PeekKind(); k {
	case 0:
		if _, err := d.ReadToken(); err != io.EOF {
			return j.failed(p.mistake(err))
		}
		return nil // an empty file holds no requests
	case '[', '{':
		d.ReadToken() // what was peeked at
		read := j.object
		if k == '[' {
			read = j.list
		}
		err := read()
		if err == nil {
			err = p.end()
		}
		return j.failed(err)
	}
	start := p.src.next(d.InputOffset())
	v, err := p.value()
	if err != nil {
		return j.failed(err)
	}
	return j.fail(start, "expected a request, a list of requests, or {\"session_id\": ..., \"requests\": [...]}, got "+toolspec.Describe(v))
}

// failed is the file's error for an error of the parser.
func (j *jsonFile) failed(err error) error {
	var se *syntaxError
	switch {
	case errors.As(err, &se):
		return j.fail(j.p.src.base+int64(se.Off), "invalid JSON: "+se.Msg)
	case errors.Is(err, errLimit):
		return &ParseError{Pos: j.pos(j.start), Msg: errTooLarge.Error()}
	}
	return err
}

// forget drops what was read before offset off, where a request starts,
// which may be as large as a request may be.
func (j *jsonFile) forget(off int64) {
	j.pos(off) // the place moves on before the bytes before it go
	s := &j.p.src
	s.data, s.read, s.base = s.data[off-s.base:], s.read-int(off-s.base), off
	s.limit, j.start = off+MaxLine, off
}

// pos is the place of offset off, which is not before the last asked.
func (j *jsonFile) pos(off int64) yamlpos.Pos {
	s := &j.p.src
	b := s.data[j.at-s.base : off-s.base]
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		j.line += bytes.Count(b, []byte{'\n'})
		j.col, j.head, b = 0, j.head[:0], b[i+1:]
	}
	j.col += len(b)
	j.head = append(j.head, b[:max(0, min(256-len(j.head), len(b)))]...)
	j.at = off
	return yamlpos.Pos{File: j.f.Name, Line: j.line, Col: j.col + 1}
}

// fail is the error of the file at offset off, with the text of its line.
func (j *jsonFile) fail(off int64, msg string) error {
	off = min(off, j.p.src.base+int64(len(j.p.src.data)))
	pos := j.pos(off)
	rest := j.p.src.data[off-j.p.src.base:]
	rest = rest[:min(len(rest), 256)]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return &ParseError{Pos: pos, Msg: msg, Source: string(j.head) + strings.TrimRight(string(rest), "\r")}
}

// list reads the requests of a list whose [ was read, each as deep as on
// a line of its own.
func (j *jsonFile) list() error {
	p, d := &j.p, &j.p.d
	outer := p.outer
	p.outer = d.StackDepth()
	defer func() { p.outer = outer }()
	for n := 1; d.PeekKind() != ']'; n++ {
		if n&1023 == 0 && j.ctx.Err() != nil {
			return j.ctx.Err()
		}
		if k := d.PeekKind(); k == 0 || k == '}' { // no value: a mistake
			_, err := d.ReadToken()
			return p.mistake(err)
		}
		start := p.src.next(d.InputOffset())
		j.forget(start)
		if _, err := p.value(); err != nil {
			return err
		}
		// What follows the request (space) does not count against it.
		p.src.limit = d.InputOffset() + MaxLine
		raw := p.src.data[start-p.src.base : d.InputOffset()-p.src.base]
		if err := j.sp.add(j.pos(start), 0, j.compact(raw)); err != nil {
			return err
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return p.mistake(err)
	}
	p.src.limit = d.InputOffset() + MaxLine // for the wrapper's keys after it
	return nil
}

// object reads a top-level object whose { was read: the wrapper, whose
// requests are read as a list, or a single request.
func (j *jsonFile) object() error {
	p, d := &j.p, &j.p.d
	startPos := j.pos(d.InputOffset() - 1)
	members := make(map[string]any)
	wrapper := false
	for d.PeekKind() != '}' {
		key, err := p.str()
		if err != nil {
			return err
		}
		k := d.PeekKind()
		from := p.src.next(d.InputOffset())
		if wrapper {
			j.start = from // where a member after the list too large is said to be
		}
		if key == "requests" && k == '[' {
			wrapper = true
			if _, err := d.ReadToken(); err != nil {
				return p.mistake(err)
			}
			if err := j.list(); err != nil {
				return err
			}
			continue
		}
		if members[key], err = p.value(); err != nil {
			return err
		}
		if key == "requests" {
			return j.fail(from, "requests: expected a list of requests, got "+toolspec.Describe(members[key]))
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return p.mistake(err)
	}
	if !wrapper {
		b, err := appendJSON(nil, members)
		if err != nil {
			return &ParseError{Pos: startPos, Msg: err.Error()}
		}
		return j.sp.add(startPos, 0, b)
	}
	for _, key := range slices.Sorted(maps.Keys(members)) {
		switch s, ok := members[key].(string); {
		case key != "session_id":
			return &ParseError{Pos: startPos, Msg: fmt.Sprintf("unknown key %q: a file of requests has session_id and requests", key)}
		case !ok:
			return &ParseError{Pos: startPos, Msg: "session_id: expected a string, got " + toolspec.Describe(members[key])}
		default:
			j.f.setSession(0, s)
		}
	}
	return nil
}

// compact returns raw on one line, as the spool holds it.
func (j *jsonFile) compact(raw []byte) []byte {
	if bytes.IndexByte(raw, '\n') < 0 {
		return raw
	}
	j.out.Reset()
	json.Compact(&j.out, raw)
	return j.out.Bytes()
}

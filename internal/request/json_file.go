package request

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kesoku/kesoku/internal/jsonlex"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/registry"
)

// Reading a JSON file: the request parser's walker goes through it in the
// pieces read so far — a list, or the {"session_id", "requests"} wrapper,
// whose list is read the same way — and each request, checked as the
// request parser reads it again, goes whole to the spool. Where a piece
// ends inside a request, the next holds that request from its start, so
// that memory stays flat whatever the size of the file.

// jsonPiece is the least a JSON file is read by at a time (a variable for
// the tests, which read in pieces of a byte).
var jsonPiece = 64 << 10

// errTooLarge says a request is larger than MaxLine.
var errTooLarge = fmt.Errorf("a request larger than %d MiB: a file of requests holds smaller ones", MaxLine>>20)

// jsonFile reads one JSON file into the spool.
type jsonFile struct {
	f   *File
	ctx context.Context
	sp  *spool
	r   io.Reader
	p   jsonParser
	// buf is the input from offset base on, as far as it was read; spare
	// is the buffer before it.
	buf, spare []byte
	base       int64
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
	j := &jsonFile{f: f, ctx: ctx, sp: sp, r: in, line: 1}
	w := &j.p.w
	w.Reset(nil)
	w.Cut, w.MaxDepth = true, maxDepth
	empty := false
	err := j.walk(func() error {
		empty = !w.Next() && w.Err != jsonlex.ErrCut && len(bytes.Trim(w.Data, " \t\r\n")) == 0
		if empty {
			return nil
		}
		return w.Err
	})
	if err != nil || empty {
		return err // an empty file holds no requests
	}
	switch start := j.off(w.Start); w.Delim() {
	case '[':
		err = j.list()
	case '{':
		err = j.object(start)
	default:
		v, _ := j.p.value()
		return j.fail(start, "expected a request, a list of requests, or {\"session_id\": ..., \"requests\": [...]}, got "+registry.Describe(v))
	}
	if err == nil {
		err = j.walk(func() error { w.Next(); return w.Err }) // nothing after the value
	}
	return err
}

// off is the offset in the file of offset i of the buffer.
func (j *jsonFile) off(i int) int64 { return j.base + int64(i) }

// walk runs read, which walks on from where the walk is: where it runs
// into the end of the input read so far, the walk goes back to where it
// was, and read runs again with more of the input. Its mistakes are the
// file's.
func (j *jsonFile) walk(read func() error) error {
	w := &j.p.w
	m := w.Mark()
	for {
		err := read()
		var se *jsonlex.SyntaxError
		switch {
		case errors.As(err, &se):
			return j.fail(j.off(se.Off), "invalid JSON: "+se.Msg)
		case err != jsonlex.ErrCut:
			return err
		}
		keep := j.buf[m.Off:]
		if len(keep) > MaxLine {
			at := len(j.buf) - len(bytes.TrimLeft(keep, " \t\r\n,:"))
			return &ParseError{Pos: j.pos(j.off(at)), Msg: errTooLarge.Error()}
		}
		j.pos(j.off(m.Off)) // the place moves on before the bytes before it go
		next := append(j.spare[:0], keep...)
		next = slices.Grow(next, max(len(next), jsonPiece))
		n, err := io.ReadFull(j.r, next[len(next):cap(next)])
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			w.Cut, err = false, nil
		} else if err != nil {
			return err
		}
		j.base += int64(m.Off)
		j.buf, j.spare = next[:len(next)+n], j.buf
		m.Off = 0
		w.Resume(j.buf, m)
	}
}

// pos is the place of offset off, which is not before the last asked.
func (j *jsonFile) pos(off int64) yamlpos.Pos {
	b := j.buf[j.at-j.base : off-j.base]
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
	pos := j.pos(off)
	rest := j.buf[off-j.base:]
	rest = rest[:min(len(rest), 256)]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return &ParseError{Pos: pos, Msg: msg, Source: string(j.head) + strings.TrimRight(string(rest), "\r")}
}

// list reads the requests of a list whose [ was read.
func (j *jsonFile) list() error {
	w := &j.p.w
	outer := w.Outer
	w.Outer = w.Depth() // each request as deep as on a line of its own
	defer func() { w.Outer = outer }()
	for n := 1; ; n++ {
		if n&1023 == 0 && j.ctx.Err() != nil {
			return j.ctx.Err()
		}
		start, done := 0, false
		err := j.walk(func() error {
			if done = !w.Next() || w.Delim() == ']'; done {
				return w.Err
			}
			start = w.Start
			_, err := j.p.value() // checked as the request parser reads it
			return err
		})
		if err != nil || done {
			return err
		}
		if err := j.sp.add(j.pos(j.off(start)), 0, j.compact(j.buf[start:w.End])); err != nil {
			return err
		}
	}
}

// member is one key of an object, and its value.
type member struct {
	key string
	raw []byte
	v   any
}

// object reads a top-level object that starts at offset start, whose {
// was read: the wrapper, whose requests are read as a list, or a single
// request.
func (j *jsonFile) object(start int64) error {
	startPos := j.pos(start)
	w := &j.p.w
	var members []member
	var keys []string
	wrapper, size := false, 0
	for {
		var key string
		var v any
		var from, to int
		done := false
		err := j.walk(func() (err error) {
			if done = !w.Next() || w.Delim() == '}'; done {
				return w.Err
			}
			key = string(w.Str())
			if !w.Next() {
				return w.Err
			}
			if slices.Contains(keys, key) {
				return j.p.duplicateKey(key)
			}
			if from = w.Start; key == "requests" && w.Delim() != 0 {
				return nil
			}
			v, err = j.p.value()
			to = w.End
			return err
		})
		switch {
		case err != nil:
			return err
		case done:
			return j.wrapperOrRequest(startPos, members, wrapper)
		case key == "requests" && w.Delim() == '[':
			wrapper, keys = true, append(keys, key)
			if err := j.list(); err != nil {
				return err
			}
			continue
		case key == "requests":
			what := "object"
			if w.Delim() == 0 {
				what = registry.Describe(v)
			}
			return j.fail(j.off(from), "requests: expected a list of requests, got "+what)
		}
		keys = append(keys, key)
		raw := j.compact(j.buf[from:to])
		if size += len(raw); size > MaxLine {
			return &ParseError{Pos: startPos, Msg: errTooLarge.Error()}
		}
		members = append(members, member{key, bytes.Clone(raw), v})
	}
}

// wrapperOrRequest takes the members of a top-level object: the session
// of a wrapper, or the members of a single request.
func (j *jsonFile) wrapperOrRequest(startPos yamlpos.Pos, members []member, wrapper bool) error {
	if !wrapper {
		b := []byte{'{'}
		for i, m := range members {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(append(records.AppendString(b, m.key), ':'), m.raw...)
		}
		return j.sp.add(startPos, 0, append(b, '}'))
	}
	for _, m := range members {
		if m.key != "session_id" {
			return &ParseError{Pos: startPos, Msg: fmt.Sprintf("unknown key %q: a file of requests has session_id and requests", m.key)}
		}
		s, ok := m.v.(string)
		if !ok {
			return &ParseError{Pos: startPos, Msg: "session_id: expected a string, got " + registry.Describe(m.v)}
		}
		j.f.setSession(0, s)
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

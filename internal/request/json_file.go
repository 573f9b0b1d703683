package request

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kesoku/kesoku/internal/jsonlex"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/registry"
)

// Reading a JSON file: encoding/json's Decoder walks its structure — a
// list, or the {"session_id", "requests"} wrapper, whose list is walked
// too — and cuts out each request whole (Decode into a RawMessage). The
// request parser then checks what encoding/json lets through (keys given
// twice, nesting, numbers that do not fit), and the request goes to the
// spool. Where the Decoder stops at a mistake, the request parser finds it
// again in the bytes from there, to word it and place it as every other
// message is.

// errTooLarge says a request is larger than MaxLine.
var errTooLarge = fmt.Errorf("a request larger than %d MiB: a file of requests holds smaller ones", MaxLine>>20)

// jsonSource is what the Decoder reads: the file, kept from where the
// request being read starts, so that an offset becomes a line and a
// column, an error shows its line, and no request is larger than MaxLine.
type jsonSource struct {
	r    io.Reader
	name string
	kept []byte // the input from offset base on, as far as it was read
	base int64
	// Where base is: its line, the bytes before it on that line, and the
	// first of those bytes.
	line, col int
	head      []byte
	err       error // what ended the reading early
}

func (s *jsonSource) Read(p []byte) (int, error) {
	if len(s.kept) > MaxLine {
		s.err = errTooLarge
		return 0, s.err
	}
	n, err := s.r.Read(p)
	s.kept = append(s.kept, p[:n]...)
	if err != nil && !errors.Is(err, io.EOF) {
		s.err = err
	}
	return n, err
}

// pos moves base to offset off, which is not before it, and returns
// where off is (or the end of the input read, off being past it).
func (s *jsonSource) pos(off int64) yamlpos.Pos {
	off = min(off, s.base+int64(len(s.kept)))
	b := s.kept[:off-s.base]
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		s.line += bytes.Count(b, []byte{'\n'})
		s.col, s.head, b = 0, s.head[:0], b[i+1:]
	}
	s.col += len(b)
	if room := 256 - len(s.head); room > 0 {
		s.head = append(s.head, b[:min(room, len(b))]...)
	}
	s.kept, s.base = s.kept[off-s.base:], off
	return yamlpos.Pos{File: s.name, Line: s.line, Col: s.col + 1}
}

// next returns the offset of the first byte from off on that is not
// space, as far as the input was read.
func (s *jsonSource) next(off int64) int64 {
	for off-s.base < int64(len(s.kept)) && isSpace(s.kept[off-s.base]) {
		off++
	}
	return off
}

// fail is the error of the file at offset off, with the text of its line.
func (s *jsonSource) fail(off int64, msg string) error {
	pos := s.pos(off)
	rest := s.kept[:min(len(s.kept), 256)]
	if i := bytes.IndexByte(rest, '\n'); i >= 0 {
		rest = rest[:i]
	}
	return &ParseError{Pos: pos, Msg: msg, Source: string(s.head) + strings.TrimRight(string(rest), "\r")}
}

// jsonFile reads one JSON file into the spool.
type jsonFile struct {
	f   *File
	ctx context.Context
	src *jsonSource
	dec *json.Decoder
	sp  *spool
	p   jsonParser
	raw json.RawMessage
	out bytes.Buffer
}

// loadJSON reads a JSON file — one request, a list of requests, or
// {"session_id": ..., "requests": [...]} — into the spool.
func (f *File) loadJSON(ctx context.Context, in io.Reader, sp *spool) error {
	src := &jsonSource{r: in, name: f.Name, line: 1}
	j := &jsonFile{f: f, ctx: ctx, src: src, dec: json.NewDecoder(src), sp: sp}
	c, at, err := j.peek()
	switch {
	case errors.Is(err, io.EOF):
		return nil // an empty file holds no requests
	case err != nil:
		return err
	case c == '[':
		j.dec.Token()
		err = j.list()
	case c == '{':
		err = j.object(at)
	default:
		if at, err = j.value(0); err != nil {
			return err
		}
		v, _ := j.check(at, 0)
		return src.fail(at, "expected a request, a list of requests, or {\"session_id\": ..., \"requests\": [...]}, got "+registry.Describe(v))
	}
	if err != nil {
		return err
	}
	if c, at, err := j.peek(); err == nil {
		return src.fail(at, "invalid JSON: invalid character "+jsonlex.QuoteChar(c)+" after top-level value")
	} else if !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// peek returns the next byte that is not space, and its offset.
func (j *jsonFile) peek() (byte, int64, error) {
	j.dec.More() // reads on past space (at the end, without moving past it)
	off := j.src.next(j.dec.InputOffset())
	if off < j.src.base+int64(len(j.src.kept)) {
		return j.src.kept[off-j.src.base], off, nil
	}
	if j.src.err != nil {
		return 0, 0, j.readError(j.src.err)
	}
	return 0, off, io.EOF
}

// list reads the requests of a list whose [ was read.
func (j *jsonFile) list() error {
	for n := 1; j.dec.More(); n++ {
		if n&1023 == 0 && j.ctx.Err() != nil {
			return j.ctx.Err()
		}
		at, err := j.value(0)
		if err != nil {
			return err
		}
		if _, err := j.check(at, 0); err != nil {
			return err
		}
		if err := j.sp.add(j.src.pos(at), 0, j.compact(j.raw)); err != nil {
			return err
		}
	}
	_, err := j.dec.Token() // ]
	return j.tokenError(err)
}

// member is one key of an object, and its value.
type member struct {
	key string
	raw []byte
	at  int64
}

// object reads a top-level object that starts at offset start: the
// wrapper, whose requests are read as a list, or a single request.
func (j *jsonFile) object(start int64) error {
	startPos := j.src.pos(start)
	j.dec.Token() // {
	var members []member
	var keys keySet
	wrapper, size := false, 0
	for j.dec.More() {
		t, err := j.dec.Token()
		if err != nil {
			return j.tokenError(err)
		}
		key, _ := t.(string)
		afterKey := j.src.next(j.dec.InputOffset()) // the colon, as far as it was read
		if keys.seen(key) {
			return j.src.fail(afterKey+1, "invalid JSON: "+j.p.duplicateKey(key).Error())
		}
		if key == "requests" {
			wrapper = true
			t, err := j.dec.Token()
			if d, _ := t.(json.Delim); err == nil && d == '[' {
				if err := j.list(); err != nil {
					return err
				}
				continue
			} else if err != nil {
				return j.tokenError(err)
			}
			what := "object"
			if _, ok := t.(json.Delim); !ok {
				what = registry.Describe(t)
			}
			return j.src.fail(j.src.next(afterKey+1), "requests: expected a list of requests, got "+what)
		}
		at, err := j.value(1)
		if err != nil {
			return err
		}
		if _, err := j.check(at, 1); err != nil {
			return err
		}
		if size += len(j.raw); size > MaxLine {
			return &ParseError{Pos: startPos, Msg: errTooLarge.Error()}
		}
		members = append(members, member{key, bytes.Clone(j.compact(j.raw)), at})
	}
	if _, err := j.dec.Token(); err != nil { // }
		return j.tokenError(err)
	}
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
		j.p.data, j.p.i, j.p.depth = m.raw, 0, 0
		v, _ := j.p.value()
		s, ok := v.(string)
		if !ok {
			return &ParseError{Pos: startPos, Msg: "session_id: expected a string, got " + registry.Describe(v)}
		}
		j.f.setSession(0, s)
	}
	return nil
}

// value cuts out the next value, at nesting depth, into j.raw, and
// returns its offset.
func (j *jsonFile) value(depth int) (int64, error) {
	j.raw = j.raw[:0]
	err := j.dec.Decode(&j.raw)
	off := j.dec.InputOffset()
	if err == nil {
		return off - int64(len(j.raw)), nil
	}
	var se *json.SyntaxError
	switch {
	case j.src.err != nil:
		return 0, j.readError(j.src.err)
	case errors.As(err, &se) && strings.HasPrefix(se.Error(), "expected "):
		// "expected comma after array element", "expected colon after
		// object key": the Decoder's own words for what is at off.
		context := strings.TrimPrefix(strings.TrimPrefix(se.Error(), "expected comma "), "expected colon ")
		return 0, j.src.fail(off, "invalid JSON: invalid character "+jsonlex.QuoteChar(j.src.kept[off-j.src.base])+" "+context)
	}
	// A mistake in the value that starts at off (or the end of the input
	// in it): the request parser finds it.
	j.p.data, j.p.i, j.p.depth = j.src.kept[off-j.src.base:], 0, depth
	if _, perr := j.p.value(); perr != nil {
		var je *jsonError
		errors.As(perr, &je)
		return 0, j.src.fail(off+int64(je.off), "invalid JSON: "+perr.Error())
	}
	return 0, j.src.fail(off, "invalid JSON: "+strings.TrimPrefix(err.Error(), "json: "))
}

// check parses the value just cut out, at offset at and nesting depth, as
// the request parser will read it again from the spool: what it refuses
// is an error of the file.
func (j *jsonFile) check(at int64, depth int) (any, error) {
	j.p.data, j.p.i, j.p.depth = j.raw, 0, depth
	v, err := j.p.value()
	if err != nil {
		var je *jsonError
		errors.As(err, &je)
		return nil, j.src.fail(at+int64(je.off), "invalid JSON: "+err.Error())
	}
	return v, nil
}

// tokenError words an error of the Decoder's Token, which is at the
// offset where the Decoder is.
func (j *jsonFile) tokenError(err error) error {
	var se *json.SyntaxError
	switch {
	case err == nil:
		return nil
	case j.src.err != nil:
		return j.readError(j.src.err)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return j.src.fail(j.src.base+int64(len(j.src.kept)), "invalid JSON: unexpected end of JSON input")
	case errors.As(err, &se):
		return j.src.fail(j.dec.InputOffset(), "invalid JSON: "+se.Error())
	}
	return err
}

// readError is the error of a reading that stopped: a request too large,
// an interrupt, a failing device.
func (j *jsonFile) readError(err error) error {
	if errors.Is(err, errTooLarge) {
		return &ParseError{Pos: j.src.pos(j.src.base), Msg: err.Error()}
	}
	return err
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

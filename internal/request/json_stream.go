package request

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kesoku/kesoku/internal/jsonlex"
)

// jsonReader reads a JSON file, keeping the line and column of the next
// byte, and cuts the values of its requests out whole, so that a list of
// requests is read one request at a time in memory bounded by the largest
// request, however long the list.
type jsonReader struct {
	br        *bufio.Reader
	name      string
	line, col int
	// lineText is the current line as far as it was read (its first
	// 256 bytes), for the snippet of an error on it.
	lineText []byte
	// raw holds the value being cut out.
	raw []byte
}

func newJSONReader(r io.Reader, name string) *jsonReader {
	return &jsonReader{br: bufio.NewReaderSize(r, 64<<10), name: name, line: 1, col: 1}
}

func (r *jsonReader) pos() Position { return Position{File: r.name, Line: r.line, Col: r.col} }

// advance moves the position past b, which was read.
func (r *jsonReader) advance(b []byte) {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		r.line += bytes.Count(b, []byte{'\n'})
		r.col, r.lineText, b = 1, r.lineText[:0], b[i+1:]
	}
	r.col += len(b)
	if room := 256 - len(r.lineText); room > 0 {
		r.lineText = append(r.lineText, b[:min(room, len(b))]...)
	}
}

// next consumes one byte.
func (r *jsonReader) next() (byte, error) {
	c, err := r.br.ReadByte()
	if err != nil {
		return 0, err
	}
	r.advance([]byte{c})
	return c, nil
}

// buffered returns what the reader holds, reading more when it holds
// nothing; io.EOF at the end.
func (r *jsonReader) buffered() ([]byte, error) {
	if r.br.Buffered() == 0 {
		if _, err := r.br.Peek(1); err != nil {
			return nil, err
		}
	}
	return r.br.Peek(r.br.Buffered())
}

// consume consumes n bytes of what buffered returned.
func (r *jsonReader) consume(b []byte, n int) {
	r.advance(b[:n])
	r.br.Discard(n)
}

// peek returns the next byte that is not space, without consuming it;
// io.EOF at the end.
func (r *jsonReader) peek() (byte, error) {
	for {
		b, err := r.buffered()
		if err != nil {
			return 0, err
		}
		i := 0
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		r.consume(b, i)
		if i < len(b) {
			return b[i], nil
		}
	}
}

// fail is the error of a file that does not parse, at the next byte, with
// the rest of its line read for the snippet.
func (r *jsonReader) fail(msg string) error {
	pos := r.pos()
	src := string(r.lineText)
	if rest, err := r.br.ReadSlice('\n'); err == nil || errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull) {
		src += strings.TrimRight(string(rest), "\r\n")
	}
	return &ParseError{Pos: pos, Msg: msg, Source: src}
}

// unexpected is a syntax error at the next byte, worded as the parser of
// a whole value words it.
func (r *jsonReader) unexpected(context string) error {
	c, err := r.peek()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			return err
		}
		return r.fail("invalid JSON: unexpected end of JSON input")
	}
	return r.fail("invalid JSON: invalid character " + jsonlex.QuoteChar(c) + " " + context)
}

// expect consumes the next byte that is not space when it is c.
func (r *jsonReader) expect(c byte) bool {
	if b, err := r.peek(); err == nil && b == c {
		r.next()
		return true
	}
	return false
}

// value cuts out the next value whole: its bytes (valid until the next
// call), where it starts, and the text of its line before it. It stops
// early where the value cannot go on (a control character in a string,
// nesting past maxDepth, more than MaxLine bytes), and leaves the rest to
// the parser of the value to report.
func (r *jsonReader) value() (raw []byte, start Position, prefix string, err error) {
	switch c, err := r.peek(); {
	case errors.Is(err, io.EOF):
		return nil, r.pos(), "", r.unexpected("")
	case err != nil:
		return nil, r.pos(), "", err
	case c == ',' || c == ']' || c == '}' || c == ':':
		return nil, r.pos(), "", r.unexpected("looking for beginning of value")
	}
	start, prefix = r.pos(), string(r.lineText)
	r.raw = r.raw[:0]
	depth, inString, escaped := 0, false, false
	for {
		b, err := r.buffered()
		if errors.Is(err, io.EOF) {
			return r.raw, start, prefix, nil
		}
		if err != nil {
			return nil, start, prefix, err
		}
		// i is how much of b belongs to the value; done that it is whole
		// (or cannot go on).
		i, done := 0, false
		for ; i < len(b) && !done; i++ {
			c := b[i]
			switch {
			case inString:
				switch {
				case escaped:
					escaped = false
				case c == '\\':
					escaped = true
				case c == '"':
					inString = false
					done = depth == 0
				case c < 0x20:
					i--
					done = true
				}
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
				done = depth > maxDepth
			case c == '}' || c == ']':
				if depth == 0 {
					i--
					done = true
				} else {
					depth--
					done = depth == 0
				}
			case depth == 0 && (c == ',' || isSpace(c)):
				i--
				done = true
			}
		}
		r.raw = append(r.raw, b[:i]...)
		r.consume(b, i)
		if len(r.raw) > MaxLine {
			return nil, start, prefix, &ParseError{Pos: start, Msg: fmt.Sprintf("a request larger than %d MiB: a file of requests holds smaller ones", MaxLine>>20)}
		}
		if done {
			return r.raw, start, prefix, nil
		}
	}
}

// failIn is the error of the file at offset off of a value just cut out
// by value: with the text of its line before the value and, when the error
// is on the value's last line, the rest of that line from the reader.
func (r *jsonReader) failIn(raw []byte, start Position, prefix string, off int, msg string) error {
	idx := newLineIndex(raw)
	line, col := idx.pos(off)
	pos := Position{File: start.File, Line: start.Line + line - 1, Col: col}
	src := sourceLine(raw, idx, line)
	if line == 1 {
		pos.Col += start.Col - 1
		src = prefix + src
	}
	if line == len(idx.starts) {
		if rest, err := r.br.ReadSlice('\n'); err == nil || errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull) {
			src += strings.TrimRight(string(rest), "\r\n")
		}
	}
	return &ParseError{Pos: pos, Msg: msg, Source: src}
}

// parse parses a value cut out by value with build, which must take all
// of it; its errors are errors of the file.
func (r *jsonReader) parse(p *jsonParser, raw []byte, start Position, prefix string, build func() (any, error)) (any, error) {
	p.data, p.i, p.depth = raw, 0, 0
	v, err := build()
	if err == nil && p.i < len(raw) {
		err = p.unexpected("after top-level value")
	}
	if err != nil {
		off := p.i
		var je *jsonError
		if errors.As(err, &je) {
			off = je.off
		}
		return nil, r.failIn(raw, start, prefix, off, "invalid JSON: "+err.Error())
	}
	return v, nil
}

// request parses a value cut out at start as one request.
func (r *jsonReader) request(p *jsonParser, raw []byte, start Position, prefix string) (*Request, error) {
	v, err := r.parse(p, raw, start, prefix, func() (any, error) {
		b := newRequestBuilder(start)
		if len(raw) == 0 || raw[0] != '{' {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			return b.notAnObject(v), nil
		}
		err := p.object(func(key string) error {
			if b.seen(key) {
				return p.duplicateKey(key)
			}
			v, err := p.value()
			if err == nil {
				b.set(key, v)
			}
			return err
		})
		return b.finish(), err
	})
	if err != nil {
		return nil, err
	}
	return v.(*Request), nil
}

// errStopped says the one who took the requests wants no more.
var errStopped = errors.New("stopped")

// jsonPass reads a JSON file — one request, a list of requests, or
// {"session_id": ..., "requests": [...]} — one request at a time, and
// hands each to yield. The first pass, before anything runs, checks the
// whole file and learns its session_id (which may come after the
// requests); the second uses it.
func (f *File) jsonPass(ctx context.Context, in io.Reader, first bool, yield func(*Request) bool) error {
	r := newJSONReader(in, f.Name)
	p := &jsonParser{}
	c, err := r.peek()
	if errors.Is(err, io.EOF) {
		return nil // an empty file holds no requests
	}
	if err != nil {
		return err
	}
	session := ""
	if !first {
		session = f.SessionID
	}
	// list streams the list at the reader, each request to yield.
	list := func() error {
		r.next() // [
		if r.expect(']') {
			return nil
		}
		for n := 0; ; n++ {
			if n&1023 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			raw, start, prefix, err := r.value()
			if err != nil {
				return err
			}
			if first {
				// The first reading only checks: no request is built.
				if _, err := r.parse(p, raw, start, prefix, func() (any, error) { return nil, p.check() }); err != nil {
					return err
				}
				yield(nil)
			} else {
				req, err := r.request(p, raw, start, prefix)
				if err != nil {
					return err
				}
				req.SessionID = session
				if !yield(req) {
					return errStopped
				}
			}
			switch {
			case r.expect(','):
			case r.expect(']'):
				return nil
			default:
				return r.unexpected("after array element")
			}
		}
	}
	start := r.pos()
	switch c {
	case '[':
		err = list()
	case '{':
		err = f.jsonObject(r, p, start, first, list, yield)
	default:
		raw, vstart, prefix, err := r.value()
		if err != nil {
			return err
		}
		v, err := r.parse(p, raw, vstart, prefix, p.value)
		if err != nil {
			return err
		}
		return r.failIn(raw, vstart, prefix, 0, "expected a request, a list of requests, or {\"session_id\": ..., \"requests\": [...]}, got "+describe(v))
	}
	if err != nil {
		return err
	}
	if _, err := r.peek(); !errors.Is(err, io.EOF) {
		if err != nil {
			return err
		}
		return r.unexpected("after top-level value")
	}
	return nil
}

// jsonObject reads a top-level object: a wrapper, whose requests list is
// streamed, or a single request, whose members are kept until it ends.
func (f *File) jsonObject(r *jsonReader, p *jsonParser, start Position, first bool, list func() error, yield func(*Request) bool) error {
	type member struct {
		key string
		v   any
	}
	var members []member
	var keys keySet
	wrapper, size := false, 0
	r.next() // {
	for more := !r.expect('}'); more; {
		if c, err := r.peek(); err != nil || c != '"' {
			return r.unexpected("looking for beginning of object key string")
		}
		raw, kstart, prefix, err := r.value()
		if err != nil {
			return err
		}
		k, err := r.parse(p, raw, kstart, prefix, func() (any, error) { return p.str() })
		if err != nil {
			return err
		}
		key := k.(string)
		if !r.expect(':') {
			return r.unexpected("after object key")
		}
		if keys.seen(key) {
			return r.fail("invalid JSON: " + p.duplicateKey(key).Error())
		}
		if key == "requests" {
			wrapper = true
		}
		if c, err := r.peek(); key == "requests" && err == nil && c == '[' {
			if err := list(); err != nil {
				return err
			}
		} else {
			raw, vstart, prefix, err := r.value()
			if err != nil {
				return err
			}
			if size += len(raw); size > MaxLine {
				return &ParseError{Pos: start, Msg: fmt.Sprintf("a request larger than %d MiB: a file of requests holds smaller ones", MaxLine>>20)}
			}
			v, err := r.parse(p, raw, vstart, prefix, p.value)
			if err != nil {
				return err
			}
			if key == "requests" {
				return r.failIn(raw, vstart, prefix, 0, "requests: expected a list of requests, got "+describe(v))
			}
			members = append(members, member{key, v})
		}
		switch {
		case r.expect(','):
		case r.expect('}'):
			more = false
		default:
			return r.unexpected("after object key:value pair")
		}
	}
	if !wrapper {
		b := newRequestBuilder(start)
		for _, m := range members {
			b.set(m.key, m.v)
		}
		if !yield(b.finish()) {
			return errStopped
		}
		return nil
	}
	for _, m := range members {
		switch m.key {
		case "session_id":
			s, ok := m.v.(string)
			if !ok {
				return &ParseError{Pos: start, Msg: "session_id: expected a string, got " + describe(m.v)}
			}
			if first {
				f.SessionID = s
			}
		default:
			return &ParseError{Pos: start, Msg: fmt.Sprintf("unknown key %q: a file of requests has session_id and requests", m.key)}
		}
	}
	return nil
}

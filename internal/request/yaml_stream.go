package request

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
)

// Reading YAML a request at a time.
//
// A YAML request file is cut at its lines into chunks, each parsed on its
// own: the items of a block list of requests (at the top of a document, or
// under the requests key of a {session_id, requests} mapping), the keys of
// a mapping, and any other document whole. Memory is bounded by the
// largest chunk, however long the list, and no parser is ever given more
// than one request: goccy/go-yaml's parser takes time quadratic in the keys
// or items it is given (a 4 MiB list of 60,000 requests took 11 s and 600
// MiB, 400,000 lines of "-" 31 s), and go.yaml.in/yaml/v3 has no API that
// streams a list (whole, it takes 0.6 s and 137 MiB for those 60,000; item
// by item, 1.1 s). Most chunks are read by yamlFast, a reader of the YAML
// that request files are made of (block and one-line flow collections,
// plain and quoted scalars, literal block scalars, comments); a chunk that
// uses more of YAML (anchors, aliases and merges, tags, multi-line
// scalars, complex keys), or that yamlFast cannot vouch for, goes to
// goccy/go-yaml, which is thus the judge of every error. The numbers are in
// bench/RESULTS.md.

// yamlLine is one line of a YAML file, as the cutter sees it.
type yamlLine struct {
	raw []byte // with its line end; nil for the end of the file
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

func classify(raw []byte, n int) yamlLine {
	l := yamlLine{raw: raw, n: n}
	i := 0
	for i < len(raw) && raw[i] == ' ' {
		i++
	}
	l.indent = i
	l.text = bytes.TrimRight(raw[i:], "\r\n")
	trimmed := bytes.TrimLeft(l.text, " \t")
	l.blank = len(trimmed) == 0 || trimmed[0] == '#'
	if !l.blank && l.text[0] == '\t' {
		l.indent = tabIndent
	}
	return l
}

func (l *yamlLine) end() bool { return l.raw == nil }

// isEntry reports whether the line is an item of a block list: "-" then
// space or the end of the line.
func (l *yamlLine) isEntry() bool {
	return !l.blank && l.indent != tabIndent && len(l.text) > 0 && l.text[0] == '-' &&
		(len(l.text) == 1 || l.text[1] == ' ' || l.text[1] == '\t')
}

// marker reports whether the line is a document marker, "---" (which may
// be followed by the document's first content) or "...".
func (l *yamlLine) marker() (start, end bool) {
	if l.indent != 0 || len(l.text) < 3 || (len(l.text) > 3 && l.text[3] != ' ' && l.text[3] != '\t') {
		return false, false
	}
	switch string(l.text[:3]) {
	case "---":
		return true, false
	case "...":
		return false, true
	}
	return false, false
}

// simpleKey returns the key of a line that starts a block mapping entry
// whose key is a plain or quoted scalar ("key:" then space or the end of
// the line), and the offset in text where its value starts; ok is false
// for any other line.
func simpleKey(text []byte) (key string, value int, ok bool) {
	if len(text) == 0 {
		return "", 0, false
	}
	var end int
	switch c := text[0]; {
	case c == '"' || c == '\'':
		s, n, ok := quotedScalar(text, 0)
		if !ok {
			return "", 0, false
		}
		key, end = s, n
	case isIndicator(c) || bytes.HasPrefix(text, []byte("...")):
		return "", 0, false
	default:
		i := bytes.Index(text, []byte(": "))
		if i < 0 && bytes.HasSuffix(text, []byte(":")) {
			i = len(text) - 1
		}
		if i <= 0 || bytes.Contains(text[:i], []byte(" #")) || bytes.IndexByte(text[:i], '\t') >= 0 || bytes.Contains(text[:i], []byte("<<")) || bytes.IndexByte(text[:i], ':') >= 0 {
			// goccy/go-yaml takes a "<<" anywhere in a key for a merge, and
			// has its own reading of a colon in one.
			return "", 0, false
		}
		s, isString := resolvePlain(string(bytes.TrimRight(text[:i], " "))).(string)
		if !isString || s == "<<" {
			return "", 0, false
		}
		key, end = s, i
	}
	if end >= len(text) || text[end] != ':' || (end+1 < len(text) && text[end+1] != ' ') {
		return "", 0, false
	}
	return key, end + 1, true
}

// restIsEmpty reports whether what is left of a line is space or a comment.
func restIsEmpty(b []byte) bool {
	b = bytes.TrimLeft(b, " ")
	return len(b) == 0 || b[0] == '#'
}

// isIndicator reports whether c cannot start a plain scalar (or starts
// something yamlFast leaves to the full parser).
func isIndicator(c byte) bool {
	switch c {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', '\t':
		return true
	}
	return false
}

// yamlCutter reads a YAML file's lines, one of them ahead at most.
type yamlCutter struct {
	br      *bufio.Reader
	name    string
	n       int // the number of the line last read
	long    []byte
	pending []yamlLine // lines given back, read again first (last first)
	eof     bool
}

// next returns the next line; at the end of the file, one whose end()
// is true.
func (c *yamlCutter) next() (yamlLine, error) {
	if k := len(c.pending); k > 0 {
		l := c.pending[k-1]
		c.pending = c.pending[:k-1]
		return l, nil
	}
	if c.eof {
		return yamlLine{}, nil
	}
	raw, err := c.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		c.long = append(c.long[:0], raw...)
		for errors.Is(err, bufio.ErrBufferFull) {
			raw, err = c.br.ReadSlice('\n')
			c.long = append(c.long, raw...)
			if len(c.long) > MaxLine {
				return yamlLine{}, &ParseError{Pos: Position{File: c.name, Line: c.n + 1, Col: 1},
					Msg: fmt.Sprintf("a line longer than %d MiB", MaxLine>>20)}
			}
		}
		raw = c.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return yamlLine{}, err
	}
	c.eof = err != nil
	if len(raw) == 0 {
		return yamlLine{}, nil
	}
	c.n++
	return classify(raw, c.n), nil
}

// unread gives a line back, to be read again by next. The line's bytes
// must stay valid: a line given back is copied.
func (c *yamlCutter) unread(l yamlLine) {
	if !l.end() {
		l = classify(bytes.Clone(l.raw), l.n)
	}
	c.pending = append(c.pending, l)
}

// errAt is a ParseError at the start of the content of line l.
func (c *yamlCutter) errAt(l yamlLine, msg string) error {
	return &ParseError{Pos: Position{File: c.name, Line: l.n, Col: min(l.indent, len(l.raw)) + 1}, Msg: msg,
		Source: string(bytes.TrimRight(l.raw, "\r\n"))}
}

// yamlChunk is a run of whole lines parsed on its own.
type yamlChunk struct {
	data  []byte
	first int // the number of its first line
	limit int // the most bytes it may hold
	what  string
}

func (ch *yamlChunk) reset(first, limit int, what string) {
	ch.data, ch.first, ch.limit, ch.what = ch.data[:0], first, limit, what
}

func (ch *yamlChunk) add(name string, l yamlLine) error {
	if ch.first == 0 {
		ch.first = l.n
	}
	ch.data = append(ch.data, l.raw...)
	if len(ch.data) > ch.limit {
		return &ParseError{Pos: Position{File: name, Line: ch.first}, Msg: fmt.Sprintf("%s larger than %d MiB: %s", ch.what, ch.limit>>20,
			"write a long batch as a block list of requests (- name: ...), or as JSON Lines")}
	}
	return nil
}

// yamlPass reads a YAML file — documents each holding one request, a list
// of requests, or {session_id: ..., requests: [...]} — a request at a
// time, and hands each to yield. The first pass, before anything runs,
// checks the whole file and learns each document's session_id (which may
// come after its requests); the second uses them.
func (f *File) yamlPass(ctx context.Context, in io.Reader, first bool, yield func(*Request) bool) error {
	d := &yamlDoc{f: f, c: &yamlCutter{br: bufio.NewReaderSize(in, 64<<10), name: f.Name}, ctx: ctx, first: first, yield: yield}
	if first {
		f.sessions, f.SessionID = nil, ""
	}
	for doc := 0; ; doc++ {
		more, err := d.read(doc)
		if err != nil || !more {
			return err
		}
	}
}

// yamlDoc reads the documents of a YAML file, one after another.
type yamlDoc struct {
	f     *File
	c     *yamlCutter
	ctx   context.Context
	first bool
	yield func(*Request) bool

	doc     int
	conv    *yamlConverter
	session string // the session of the current document's requests
	chunk   yamlChunk
	fast    yamlFast
	n       int // requests handed out
}

// emit hands out a request of the current document.
func (d *yamlDoc) emit(r *Request) error {
	r.SessionID = d.session
	if d.n++; d.n&1023 == 0 && d.ctx.Err() != nil {
		return d.ctx.Err()
	}
	if !d.yield(r) {
		return errStopped
	}
	return nil
}

// read reads document doc, and reports whether another follows.
func (d *yamlDoc) read(doc int) (more bool, err error) {
	d.doc = doc
	d.conv = newYAMLConverter(d.f.Name)
	d.session = ""
	if !d.first && doc < len(d.f.sessions) {
		d.session = d.f.sessions[doc]
	}
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
	if l.isEntry() {
		return d.readList(l)
	}
	if _, _, isKey := simpleKey(l.text); isKey && l.indent != tabIndent {
		return d.readMapping(l)
	}
	return d.readWhole(l)
}

// docEnd reports whether l ends the document (a marker, or the end of the
// file), giving back a "---" that starts the next, and whether another
// document follows.
func (d *yamlDoc) docEnd(l yamlLine) (ends, more bool) {
	if l.end() {
		return true, false
	}
	start, end := l.marker()
	if start {
		d.c.unread(l)
	}
	return start || end, start || end
}

// readList reads a document that is a block list of requests, its first
// item at l.
func (d *yamlDoc) readList(l yamlLine) (bool, error) {
	after, err := d.list(l, nil)
	if err != nil {
		return false, err
	}
	if ends, more := d.docEnd(after); ends {
		return more, nil
	}
	return false, d.c.errAt(after, fmt.Sprintf("invalid YAML: expected a list item (- ...) at column %d, or the end of the document", l.indent+1))
}

// list reads a block list of requests whose first item is at l, each item
// a chunk, and returns the first line after it. Lines read ahead of the
// first item (blank ones) come in before.
func (d *yamlDoc) list(l yamlLine, before []yamlLine) (yamlLine, error) {
	indent := l.indent
	for {
		d.chunk.reset(0, MaxLine, "a request")
		for _, b := range before {
			if err := d.chunk.add(d.c.name, b); err != nil {
				return yamlLine{}, err
			}
		}
		before = nil
		if err := d.chunk.add(d.c.name, l); err != nil {
			return yamlLine{}, err
		}
		var err error
		for {
			if l, err = d.c.next(); err != nil {
				return yamlLine{}, err
			}
			if l.end() || !l.blank && l.indent <= indent {
				break
			}
			if err := d.chunk.add(d.c.name, l); err != nil {
				return yamlLine{}, err
			}
		}
		if err := d.item(); err != nil {
			return yamlLine{}, err
		}
		if l.end() || l.indent != indent || !l.isEntry() {
			return l, nil
		}
	}
}

// item parses the chunk of one list item and hands out its request.
func (d *yamlDoc) item() error {
	if r, ok := d.fast.item(d.chunk.data, d.chunk.first, d.f.Name); ok {
		return d.emit(r)
	}
	reqs, err := d.conv.items(&d.chunk)
	if err != nil {
		return err
	}
	for _, r := range reqs {
		if err := d.emit(r); err != nil {
			return err
		}
	}
	return nil
}

// yamlMember is one key of a mapping document.
type yamlMember struct {
	key    string
	keyPos Position
	v      any
	vPos   Position
	merge  bool // a merge key (<<)
	// reqs are the requests of a requests key whose value is not a block
	// list (a flow list, an alias), read by the full parser.
	reqs []*Request
	list bool // reqs holds the value's requests
}

// readMapping reads a document that is a mapping, its first key at l:
// the {session_id, requests} wrapper, whose requests are read as a list,
// or a single request.
func (d *yamlDoc) readMapping(l yamlLine) (bool, error) {
	indent := l.indent
	var members []yamlMember
	var keys keySet
	size := 0
	for {
		isList := false
		if key, value, _ := simpleKey(l.text); key == "requests" && restIsEmpty(l.text[value:]) {
			// A block list under requests is read as a list; anything else
			// is a key like the others.
			var ahead []yamlLine
			next, err := d.c.next()
			for err == nil && !next.end() && next.blank {
				ahead = append(ahead, classify(bytes.Clone(next.raw), next.n))
				next, err = d.c.next()
			}
			if err != nil {
				return false, err
			}
			if isList = next.isEntry() && next.indent >= indent; isList {
				if keys.seen("requests") {
					return false, d.c.errAt(l, `invalid YAML: mapping key "requests" already defined`)
				}
				members = append(members, yamlMember{key: "requests", keyPos: Position{File: d.f.Name, Line: l.n, Col: indent + 1}, list: true})
				if l, err = d.list(next, ahead); err != nil {
					return false, err
				}
			} else {
				d.c.unread(next)
				for i := len(ahead) - 1; i >= 0; i-- {
					d.c.unread(ahead[i])
				}
			}
		}
		if !isList {
			// A key and what is indented under it (a list may sit at the
			// key's own indentation).
			d.chunk.reset(0, MaxLine, "a YAML mapping entry")
			if err := d.chunk.add(d.c.name, l); err != nil {
				return false, err
			}
			var err error
			for {
				if l, err = d.c.next(); err != nil {
					return false, err
				}
				if l.end() || !l.blank && (l.indent < indent || l.indent == indent && !l.isEntry()) {
					break
				}
				if err := d.chunk.add(d.c.name, l); err != nil {
					return false, err
				}
			}
			got, err := d.keyChunk()
			if err != nil {
				return false, err
			}
			for _, m := range got {
				if keys.seen(m.key) && !m.merge {
					return false, d.conv.failAtPos(m.keyPos, fmt.Sprintf("invalid YAML: mapping key %q already defined", m.key))
				}
				if size += len(d.chunk.data); size > MaxLine {
					return false, &ParseError{Pos: m.keyPos, Msg: fmt.Sprintf("a YAML mapping larger than %d MiB: write a long batch as a block list of requests", MaxLine>>20)}
				}
				members = append(members, m)
			}
		}
		if ends, more := d.docEnd(l); ends {
			return more, d.endMapping(members)
		}
		if l.indent != indent {
			return false, d.c.errAt(l, fmt.Sprintf("invalid YAML: expected a key at column %d, or the end of the document", indent+1))
		}
	}
}

// keyChunk parses the chunk of one key of a mapping document.
func (d *yamlDoc) keyChunk() ([]yamlMember, error) {
	if m, ok := d.fast.member(d.chunk.data, d.chunk.first, d.f.Name); ok {
		return []yamlMember{m}, nil
	}
	return d.conv.members(&d.chunk)
}

// endMapping makes what a mapping document is of its keys: the requests
// and session of a wrapper, or a single request.
func (d *yamlDoc) endMapping(members []yamlMember) error {
	wrapper := slices.ContainsFunc(members, func(m yamlMember) bool { return m.key == "requests" && !m.merge })
	if !wrapper {
		if len(members) == 0 {
			return nil
		}
		b := newRequestBuilder(members[0].keyPos)
		if slices.ContainsFunc(members, func(m yamlMember) bool { return m.merge }) {
			// A merge (<<: *base): the request is the value it makes, its
			// keys in order of name.
			v := map[string]any{}
			for _, m := range members {
				if !m.merge {
					v[m.key] = m.v
				}
			}
			for _, m := range members {
				if m.merge {
					if err := d.conv.mergeValue(v, m.v, m.vPos); err != nil {
						return err
					}
				}
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				b.set(k, v[k])
			}
		} else {
			for _, m := range members {
				b.set(m.key, m.v)
			}
		}
		return d.emit(b.finish())
	}
	for _, m := range members {
		switch {
		case m.key == "requests" && !m.merge:
			for _, r := range m.reqs {
				if err := d.emit(r); err != nil {
					return err
				}
			}
		case m.key == "session_id" && !m.merge:
			s, ok := m.v.(string)
			if !ok {
				return d.conv.failAtPos(m.vPos, "session_id: expected a string, got "+describe(m.v))
			}
			if d.first {
				d.session = s
			}
		default:
			return d.conv.failAtPos(m.keyPos, fmt.Sprintf("unknown key %q: a file of requests has session_id and requests", m.key))
		}
	}
	if d.first {
		if d.doc == 0 {
			d.f.SessionID = d.session
		}
		for len(d.f.sessions) <= d.doc {
			d.f.sessions = append(d.f.sessions, "")
		}
		d.f.sessions[d.doc] = d.session
	}
	return nil
}

// readWhole reads the document that starts at l whole, and parses it:
// a document that is neither a block list nor a mapping (a flow list, a
// scalar), which no request file needs large.
func (d *yamlDoc) readWhole(l yamlLine) (bool, error) {
	d.chunk.reset(0, maxYAMLDocument, "a YAML document that is not a block list of requests")
	var err error
	for {
		if err := d.chunk.add(d.c.name, l); err != nil {
			return false, err
		}
		if l, err = d.c.next(); err != nil {
			return false, err
		}
		if start, end := l.marker(); l.end() || start || end {
			break
		}
	}
	reqs, session, err := d.conv.document(&d.chunk)
	if err != nil {
		return false, err
	}
	if d.first {
		d.session = session
		if d.doc == 0 {
			d.f.SessionID = session
		}
		for len(d.f.sessions) <= d.doc {
			d.f.sessions = append(d.f.sessions, "")
		}
		d.f.sessions[d.doc] = session
	}
	for _, r := range reqs {
		if err := d.emit(r); err != nil {
			return false, err
		}
	}
	_, more := d.docEnd(l)
	return more, nil
}

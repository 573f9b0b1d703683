package request

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/goccy/go-yaml/token"
)

// yamlFast reads the YAML that request files are made of, a chunk (one
// request, or one key of a mapping) at a time: block mappings and lists,
// flow collections on one line, plain and quoted scalars on one line,
// literal block scalars (|, |-, |+) and comments. It reads them as
// goccy/go-yaml and yamlConverter read them (FuzzYAMLFast holds it to
// that), several times faster, and gives up (ok false) on anything else —
// anchors, aliases, tags, merge keys, multi-line scalars, folded scalars,
// complex keys, tabs, keys given twice, anything it finds wrong — which
// then goes to goccy/go-yaml, the judge of what YAML means and of every
// error.
type yamlFast struct {
	src   []byte
	lines []fastLine
	first int // the number of the chunk's first line
	name  string
	// names keeps the short strings that recur from request to request
	// (keys, tool names); pairs is the buffer of a request's keys. Both
	// serve chunk after chunk.
	names interner
	pairs []fastPair
}

// fastLine is one line of the chunk.
type fastLine struct {
	begin, start, end int // offsets: the line, its content, the end of its text
	indent            int
	blank             bool // nothing but space or a comment
}

// reset takes a chunk and splits it into lines, or gives up on bytes it
// leaves to the full parser: tabs, control characters, invalid UTF-8 and
// the characters YAML 1.1 takes for line breaks.
func (p *yamlFast) reset(src []byte, first int, name string) bool {
	p.src, p.first, p.name, p.lines, p.pairs = src, first, name, p.lines[:0], p.pairs[:0]
	ascii := true
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\n' || c == '\r' && (i+1 == len(src) || src[i+1] == '\n'):
		case c < 0x20 || c == 0x7f:
			return false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if !ascii && (!utf8.Valid(src) || bytes.Contains(src, []byte("\u0085")) || bytes.Contains(src, []byte("\u2028")) ||
		bytes.Contains(src, []byte("\u2029")) || bytes.Contains(src, []byte("\uFEFF"))) {
		return false
	}
	for begin := 0; begin < len(src); {
		end := bytes.IndexByte(src[begin:], '\n')
		next := begin + end + 1
		if end < 0 {
			end, next = len(src)-begin, len(src)
		}
		end += begin
		text := src[begin:end]
		if len(text) > 0 && text[len(text)-1] == '\r' {
			end--
		}
		l := fastLine{begin: begin, end: end}
		for l.start = begin; l.start < end && src[l.start] == ' '; l.start++ {
		}
		l.indent = l.start - begin
		l.blank = l.start == end || src[l.start] == '#'
		p.lines = append(p.lines, l)
		begin = next
	}
	return true
}

// plain is the value of a plain scalar, its string interned.
func (p *yamlFast) plain(b []byte) any {
	if c := b[0]; ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') && !isKeyword(b) {
		return p.names.intern(b)
	}
	if n, ok := decimal(b); ok {
		return n
	}
	return resolvePlain(string(b))
}

// isKeyword reports whether b, which starts with a letter, is one of the
// plain scalars that are not strings.
func isKeyword(b []byte) bool {
	switch string(b) {
	case "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE":
		return true
	}
	return false
}

// decimal reads a plain integer without sign tricks or leading zeros (as
// goccy/go-yaml reads it), the common case, without going through its
// number reader.
func decimal(b []byte) (int64, bool) {
	neg := b[0] == '-'
	d := b
	if neg {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || d[0] == '0' && len(d) > 1 {
		return 0, false
	}
	var n int64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// key reads the key of a block mapping entry at the start of text, as
// simpleKey does, its string interned.
func (p *yamlFast) key(text []byte) (string, int, bool) {
	if len(text) > 0 && ('a' <= text[0] && text[0] <= 'z' || 'A' <= text[0] && text[0] <= 'Z') {
		i := bytes.IndexByte(text, ':')
		if i > 0 && (i+1 == len(text) || text[i+1] == ' ') {
			raw := text[:i]
			if isPlainWord(raw) && !isKeyword(raw) {
				return p.names.intern(raw), i + 1, true
			}
		}
	}
	return simpleKey(text)
}

// isPlainWord reports whether b holds only letters, digits, _ and -: a
// key no reader can take for anything but itself.
func isPlainWord(b []byte) bool {
	for _, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (p *yamlFast) pos(off int) Position {
	li := 0
	for li+1 < len(p.lines) && p.lines[li+1].begin <= off {
		li++
	}
	// Columns count characters, as goccy/go-yaml counts them.
	return Position{File: p.name, Line: p.first + li, Col: utf8.RuneCount(p.src[p.lines[li].begin:off]) + 1}
}

// nextLine returns the first line at or after li that is not blank.
func (p *yamlFast) nextLine(li int) int {
	for li < len(p.lines) && p.lines[li].blank {
		li++
	}
	return li
}

func (p *yamlFast) isEntry(li int) bool {
	l := p.lines[li]
	return !l.blank && p.src[l.start] == '-' && (l.start+1 == l.end || p.src[l.start+1] == ' ')
}

// count bounds the depth. (Values need no budget here: without aliases,
// a chunk holds no more values than bytes, as a line of JSON.)
func (p *yamlFast) count(depth int) bool {
	return depth <= maxDepth
}

// fastPair is one key of a mapping, in order.
type fastPair struct {
	key      string
	keyPos   Position
	v        any
	valuePos Position
}

// block reads the node at offset o of line li, in block context: its
// lines below li must be indented more than n. It returns the value and
// the first line after it that is not blank.
func (p *yamlFast) block(li, o, n, depth int) (any, int, bool) {
	l := p.lines[li]
	text := p.src[o:l.end]
	switch {
	case len(text) == 0 || text[0] == '#':
		// The value is on the lines below, or there is none.
		j := p.nextLine(li + 1)
		if j < len(p.lines) && p.lines[j].indent > n {
			return p.block(j, p.lines[j].start, n, depth)
		}
		if !p.count(depth) {
			return nil, 0, false
		}
		return nil, j, true
	case text[0] == '-' && (len(text) == 1 || text[1] == ' '):
		return p.sequence(li, o, depth)
	}
	if _, _, isKey := p.key(text); isKey {
		v, next, ok := p.mapping(li, o, depth, nil)
		return v, next, ok
	}
	return p.inline(li, o, n, depth)
}

// inline reads a value that starts at offset o of line li and is no
// collection in block style: a flow collection, a scalar, a literal block
// scalar.
func (p *yamlFast) inline(li, o, n, depth int) (any, int, bool) {
	if !p.count(depth) {
		return nil, 0, false
	}
	l := p.lines[li]
	var v any
	end := o
	switch c := p.src[o]; {
	case c == '|':
		return p.literal(li, o, n)
	case c == '[' || c == '{':
		var ok bool
		if v, end, ok = p.flow(o, l.end, depth, nil); !ok {
			return nil, 0, false
		}
	case c == '"' || c == '\'':
		s, e, ok := quotedScalar(p.src[:l.end], o)
		if !ok {
			return nil, 0, false
		}
		v, end = s, e
	default:
		if isIndicator(c) && !(c == '-' && o+1 < l.end && p.src[o+1] != ' ') {
			return nil, 0, false
		}
		end = l.end
		if i := bytes.Index(p.src[o:l.end], []byte(" #")); i >= 0 {
			end = o + i
		}
		text := bytes.TrimRight(p.src[o:end], " ")
		if bytes.Contains(text, []byte(": ")) || bytes.HasSuffix(text, []byte(":")) || bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("...")) {
			return nil, 0, false // a key where a value belongs
		}
		v = p.plain(text)
	}
	if !restIsComment(p.src[end:l.end]) {
		return nil, 0, false
	}
	// The value ends with its line: a line below indented more would
	// continue a scalar over lines, which is left to the full parser.
	j := p.nextLine(li + 1)
	if j < len(p.lines) && p.lines[j].indent > n {
		return nil, 0, false
	}
	return v, j, true
}

// restIsComment reports whether what follows a value on its line is
// nothing, or a comment after space.
func restIsComment(b []byte) bool {
	t := bytes.TrimLeft(b, " ")
	return len(t) == 0 || t[0] == '#' && len(t) < len(b)
}

// sequence reads a block list whose first "-" is at offset o of line li.
func (p *yamlFast) sequence(li, o, depth int) (any, int, bool) {
	if !p.count(depth) {
		return nil, 0, false
	}
	col := o - p.lines[li].begin
	list := []any{}
	for {
		rest := o + 1
		for rest < p.lines[li].end && p.src[rest] == ' ' {
			rest++
		}
		v, next, ok := p.block(li, rest, col, depth+1)
		if !ok {
			return nil, 0, false
		}
		list = append(list, v)
		if next >= len(p.lines) || p.lines[next].indent < col {
			return list, next, true
		}
		if p.lines[next].indent != col || !p.isEntry(next) {
			return nil, 0, false
		}
		li, o = next, p.lines[next].start
	}
}

// mapping reads a block mapping whose first key is at offset o of line li.
// With pairs, it also gives its keys in order, with their positions.
func (p *yamlFast) mapping(li, o, depth int, pairs *[]fastPair) (any, int, bool) {
	if !p.count(depth) {
		return nil, 0, false
	}
	col := o - p.lines[li].begin
	// With pairs, the keys are all the caller needs (a request's): no map.
	var m map[string]any
	from := 0
	if pairs == nil {
		m = map[string]any{}
	} else {
		from = len(*pairs)
	}
	for {
		l := p.lines[li]
		key, vo, ok := p.key(p.src[o:l.end])
		if !ok {
			return nil, 0, false
		}
		if pairs == nil {
			if _, dup := m[key]; dup {
				return nil, 0, false
			}
		} else {
			for _, kv := range (*pairs)[from:] {
				if kv.key == key {
					return nil, 0, false
				}
			}
		}
		vo += o
		for vo < l.end && p.src[vo] == ' ' {
			vo++
		}
		var v any
		var next int
		valueAt := vo
		if vo == l.end || p.src[vo] == '#' {
			j := p.nextLine(li + 1)
			switch {
			case j < len(p.lines) && p.lines[j].indent > col:
				valueAt = p.lines[j].start
				v, next, ok = p.block(j, valueAt, col, depth+1)
			case j < len(p.lines) && p.lines[j].indent == col && p.isEntry(j):
				valueAt = p.lines[j].start
				v, next, ok = p.sequence(j, valueAt, depth+1)
			default:
				v, next, ok = nil, j, p.count(depth+1)
			}
		} else {
			v, next, ok = p.inline(li, vo, col, depth+1)
		}
		if !ok {
			return nil, 0, false
		}
		if pairs == nil {
			m[key] = v
		} else {
			*pairs = append(*pairs, fastPair{key: key, keyPos: p.pos(o), v: v, valuePos: p.pos(valueAt)})
		}
		if next >= len(p.lines) || p.lines[next].indent < col {
			return m, next, true
		}
		if p.lines[next].indent != col || p.isEntry(next) {
			return nil, 0, false
		}
		li, o = next, p.lines[next].start
	}
}

// literal reads a literal block scalar (|, |- or |+) whose indicator is at
// offset o of line li, in a node whose lines are indented more than n.
func (p *yamlFast) literal(li, o, n int) (any, int, bool) {
	l := p.lines[li]
	chomp := byte(0)
	h := o + 1
	if h < l.end && (p.src[h] == '-' || p.src[h] == '+') {
		chomp = p.src[h]
		h++
	}
	if !restIsComment(p.src[h:l.end]) || h < l.end && p.src[h] != ' ' {
		return nil, 0, false
	}
	// Its indentation is that of its first line with something on it.
	indent := -1
	j := li + 1
	for ; j < len(p.lines); j++ {
		ln := p.lines[j]
		if ln.start == ln.end {
			if ln.indent > indent && indent >= 0 || ln.end-ln.begin > 0 && indent < 0 && ln.indent > 0 {
				// Spaces on an empty line before the first: left to the
				// full parser, which has its own reading of them.
				return nil, 0, false
			}
			continue
		}
		if indent < 0 {
			indent = ln.indent
			if indent <= n {
				return nil, 0, false // an empty scalar: left to the full parser
			}
		}
		if ln.indent < indent {
			break
		}
	}
	if indent < 0 || p.lines[j-1].end == len(p.src) {
		// No scalar, or one that ends the chunk without a line break,
		// which the full parser reads its own way.
		return nil, 0, false
	}
	var b []byte
	last := li // the last line of the scalar with content
	for k := li + 1; k < j; k++ {
		ln := p.lines[k]
		if ln.start < ln.end {
			last = k
		}
	}
	for k := li + 1; k < j; k++ {
		ln := p.lines[k]
		if k > last && chomp != '+' {
			break
		}
		if ln.start < ln.end {
			if p.src[ln.end-1] == ' ' {
				return nil, 0, false // goccy/go-yaml has its own reading of trailing space
			}
			b = append(b, p.src[ln.begin+indent:ln.end]...)
		}
		if k < last || chomp != '-' {
			b = append(b, '\n')
		}
	}
	next := p.nextLine(j)
	if next < len(p.lines) && p.lines[next].indent > n {
		return nil, 0, false
	}
	return string(b), next, true
}

// flow reads a flow collection that starts at offset o and ends before
// end (its line's end), returning it and the offset after it. With pairs,
// it also gives the keys of a mapping in order, with their positions.
func (p *yamlFast) flow(o, end, depth int, pairs *[]fastPair) (any, int, bool) {
	if !p.count(depth) {
		return nil, 0, false
	}
	space := func() {
		for o < end && p.src[o] == ' ' {
			o++
		}
	}
	if p.src[o] == '[' {
		list := []any{}
		o++
		space()
		if o < end && p.src[o] == ']' {
			return list, o + 1, true
		}
		for {
			v, e, ok := p.flowValue(o, end, depth+1)
			if !ok {
				return nil, 0, false
			}
			list = append(list, v)
			next, closed, ok := p.flowNext(e, end, ']')
			if !ok || closed {
				return list, next, ok
			}
			o = next
		}
	}
	m := map[string]any{}
	o++
	space()
	if o < end && p.src[o] == '}' {
		return m, o + 1, true
	}
	for {
		var key string
		keyAt := o
		if o >= end {
			return nil, 0, false
		}
		switch c := p.src[o]; {
		case c == '"' || c == '\'':
			s, e, ok := quotedScalar(p.src[:end], o)
			if !ok {
				return nil, 0, false
			}
			key, o = s, e
		case isIndicator(c):
			return nil, 0, false
		default:
			i := bytes.Index(p.src[o:end], []byte(": "))
			if i <= 0 || bytes.ContainsAny(p.src[o:o+i], ",[]{}#") || bytes.Contains(p.src[o:o+i], []byte("<<")) || bytes.IndexByte(p.src[o:o+i], ':') >= 0 {
				return nil, 0, false
			}
			s, ok := p.plain(bytes.TrimRight(p.src[o:o+i], " ")).(string)
			if !ok || s == "<<" {
				return nil, 0, false
			}
			key, o = s, o+i
		}
		if o+1 >= end || p.src[o] != ':' || p.src[o+1] != ' ' {
			return nil, 0, false
		}
		if _, dup := m[key]; dup {
			return nil, 0, false
		}
		o += 2
		space()
		v, e, ok := p.flowValue(o, end, depth+1)
		if !ok {
			return nil, 0, false
		}
		m[key] = v
		if pairs != nil {
			*pairs = append(*pairs, fastPair{key: key, keyPos: p.pos(keyAt), v: v, valuePos: p.pos(o)})
		}
		next, closed, ok := p.flowNext(e, end, '}')
		if !ok || closed {
			return m, next, ok
		}
		o = next
	}
}

// flowNext moves past what follows an entry of a flow collection that
// ends with close: a comma, to the start of the next entry, or the end.
func (p *yamlFast) flowNext(o, end int, close byte) (next int, closed, ok bool) {
	for o < end && p.src[o] == ' ' {
		o++
	}
	if o >= end {
		return 0, false, false
	}
	switch p.src[o] {
	case ',':
		for o++; o < end && p.src[o] == ' '; o++ {
		}
		if o >= end || p.src[o] == close || p.src[o] == ',' {
			return 0, false, false
		}
		return o, false, true
	case close:
		return o + 1, true, true
	}
	return 0, false, false
}

// flowValue reads a value inside a flow collection.
func (p *yamlFast) flowValue(o, end, depth int) (any, int, bool) {
	if o >= end {
		return nil, 0, false
	}
	switch c := p.src[o]; {
	case c == '[' || c == '{':
		return p.flow(o, end, depth, nil)
	case c == '"' || c == '\'':
		if !p.count(depth) {
			return nil, 0, false
		}
		return quotedScalar(p.src[:end], o)
	case isIndicator(c) && !(c == '-' && o+1 < end && p.src[o+1] != ' ' && p.src[o+1] != ',' && p.src[o+1] != ']' && p.src[o+1] != '}'):
		return nil, 0, false
	}
	if !p.count(depth) {
		return nil, 0, false
	}
	e := o
	for e < end {
		c := p.src[e]
		if c == ',' || c == ']' || c == '}' || c == '[' || c == '{' || c == '#' && p.src[e-1] == ' ' {
			break
		}
		if c == ':' {
			return nil, 0, false // a pair inside a list, or goccy/go-yaml's own reading of a colon
		}
		e++
	}
	if e < end && (p.src[e] == '[' || p.src[e] == '{' || p.src[e] == '#') {
		return nil, 0, false
	}
	text := bytes.TrimRight(p.src[o:e], " ")
	if len(text) == 0 || bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("...")) {
		return nil, 0, false
	}
	return p.plain(text), e, true
}

// fastItem reads the chunk of one list item as a request.
func fastItem(src []byte, first int, name string) (*Request, bool) {
	return new(yamlFast).item(src, first, name)
}

// item reads the chunk of one list item as a request.
func (p *yamlFast) item(src []byte, first int, name string) (*Request, bool) {
	if !p.reset(src, first, name) {
		return nil, false
	}
	li := p.nextLine(0)
	if li >= len(p.lines) || !p.isEntry(li) {
		return nil, false
	}
	col := p.lines[li].indent
	o := p.lines[li].start + 1
	for o < p.lines[li].end && p.src[o] == ' ' {
		o++
	}
	text := p.src[o:p.lines[li].end]
	if _, _, isKey := p.key(text); isKey {
		return p.request(li, o)
	}
	if len(text) == 0 || text[0] == '#' {
		j := p.nextLine(li + 1)
		if j == len(p.lines) {
			// A null item ("-"), placed where its value would be.
			return newRequestBuilder(Position{File: name, Line: first + li, Col: col + 3}).notAnObject(nil), true
		}
		if p.lines[j].indent <= col {
			return nil, false
		}
		li, o = j, p.lines[j].start
		text = p.src[o:p.lines[li].end]
		if _, _, isKey := p.key(text); isKey {
			return p.request(li, o)
		}
	}
	if text[0] != '{' && text[0] != '[' && text[0] != '"' && text[0] != '\'' {
		// A plain scalar, a list: left to the full parser, which places
		// them (a plain scalar with space after it, at its end).
		return nil, false
	}
	if text[0] == '{' {
		// A request in flow style: its keys in order, as written.
		_, end, ok := p.flow(o, p.lines[li].end, 1, &p.pairs)
		if !ok || !restIsComment(p.src[end:p.lines[li].end]) || p.nextLine(li+1) < len(p.lines) {
			return nil, false
		}
		b := newRequestBuilder(p.pos(o))
		if len(p.pairs) > 0 {
			b.req.Pos = p.pairs[0].keyPos
		}
		for _, kv := range p.pairs {
			b.set(kv.key, kv.v)
		}
		return b.finish(), true
	}
	v, next, ok := p.block(li, o, col, 0)
	if !ok || next < len(p.lines) {
		return nil, false
	}
	return newRequestBuilder(p.pos(o)).notAnObject(v), true
}

// fastKey reads the chunk of one key of a mapping document; a requests
// key is left to the full parser, which reads its requests with their
// positions.
func fastKey(src []byte, first int, name string) (yamlMember, bool) {
	return new(yamlFast).member(src, first, name)
}

// member reads the chunk of one key of a mapping document.
func (p *yamlFast) member(src []byte, first int, name string) (yamlMember, bool) {
	if !p.reset(src, first, name) {
		return yamlMember{}, false
	}
	li := p.nextLine(0)
	if li >= len(p.lines) {
		return yamlMember{}, false
	}
	_, next, ok := p.mapping(li, p.lines[li].start, 0, &p.pairs)
	if !ok || next < len(p.lines) || len(p.pairs) != 1 || p.pairs[0].key == "requests" {
		return yamlMember{}, false
	}
	kv := p.pairs[0]
	return yamlMember{key: kv.key, keyPos: kv.keyPos, v: kv.v, vPos: kv.valuePos}, true
}

// quotedScalar reads the quoted scalar at src[o] (a double or a single
// quote) that ends before the end of src, returning its value and the
// offset after it. It gives up on what it leaves to the full parser: a
// scalar that goes on past src, and escapes other than the simple ones.
func quotedScalar(src []byte, o int) (string, int, bool) {
	q := src[o]
	i := o + 1
	var b []byte
	start := i
	for i < len(src) {
		c := src[i]
		switch {
		case c == q && q == '\'':
			if i+1 < len(src) && src[i+1] == '\'' {
				b = append(b, src[start:i+1]...)
				i += 2
				start = i
				continue
			}
			if b == nil {
				return string(src[start:i]), i + 1, true
			}
			return string(append(b, src[start:i]...)), i + 1, true
		case c == q:
			if b == nil {
				return string(src[start:i]), i + 1, true
			}
			return string(append(b, src[start:i]...)), i + 1, true
		case c == '\\' && q == '"':
			if i+1 >= len(src) {
				return "", 0, false
			}
			var r rune
			switch src[i+1] {
			case '0':
				r = 0
			case 'a':
				r = 7
			case 'b':
				r = 8
			case 't':
				r = 9
			case 'n':
				r = 10
			case 'v':
				r = 11
			case 'f':
				r = 12
			case 'r':
				r = 13
			case 'e':
				r = 0x1b
			case ' ':
				r = ' '
			case '"':
				r = '"'
			case '/':
				r = '/'
			case '\\':
				r = '\\'
			case 'N':
				r = 0x85
			case '_':
				r = 0xa0
			case 'L':
				r = 0x2028
			case 'P':
				r = 0x2029
			case 'u':
				if i+6 > len(src) {
					return "", 0, false
				}
				u, err := strconv.ParseUint(string(src[i+2:i+6]), 16, 16)
				if err != nil || 0xd800 <= u && u < 0xe000 {
					return "", 0, false // surrogates: left to the full parser
				}
				b = utf8.AppendRune(append(b, src[start:i]...), rune(u))
				i += 6
				start = i
				continue
			default:
				return "", 0, false
			}
			b = utf8.AppendRune(append(b, src[start:i]...), r)
			i += 2
			start = i
			continue
		case c == '\n' || c == '\r':
			return "", 0, false
		}
		i++
	}
	return "", 0, false
}

// resolvePlain is the value of a plain scalar, as goccy/go-yaml reads it
// (YAML 1.2's core schema, with 0-prefixed octal and 0x, 0o, 0b integers),
// except that what goccy/go-yaml leaves a string but YAML 1.2 and JSON
// take for a number — 1e2, an integer beyond 64 bits — is a number.
func resolvePlain(s string) any {
	switch s {
	case "", "~", "null", "Null", "NULL":
		return nil
	case "true", "True", "TRUE":
		return true
	case "false", "False", "FALSE":
		return false
	case ".inf", ".Inf", ".INF":
		return math.Inf(1)
	case "-.inf", "-.Inf", "-.INF":
		return math.Inf(-1)
	case ".nan", ".NaN", ".NAN":
		return math.NaN()
	}
	if c := s[0]; c != '-' && c != '+' && c != '.' && c != '_' && (c < '0' || c > '9') {
		return s
	}
	if num := token.ToNumber(s); num != nil {
		switch v := num.Value.(type) {
		case uint64:
			if v <= math.MaxInt64 {
				return int64(v)
			}
			return v
		case int64, float64:
			return v
		}
	}
	if f, ok := plainNumber(s); ok {
		return f
	}
	return s
}

// plainNumber reads a plain scalar that YAML 1.2's core schema and JSON
// take for a number but goccy/go-yaml leaves a string: one with an
// exponent and no point (1e2), an integer beyond 64 bits.
func plainNumber(s string) (float64, bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	n := digits()
	if i < len(s) && s[i] == '.' {
		i++
		n += digits()
	}
	if n == 0 {
		return 0, false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if digits() == 0 {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return f, true
}

// request reads the block mapping at offset o of line li, which must end
// the chunk, as a request.
func (p *yamlFast) request(li, o int) (*Request, bool) {
	_, next, ok := p.mapping(li, o, 1, &p.pairs)
	if !ok || next < len(p.lines) {
		return nil, false
	}
	b := newRequestBuilder(p.pairs[0].keyPos)
	for _, kv := range p.pairs {
		b.set(kv.key, kv.v)
	}
	return b.finish(), true
}

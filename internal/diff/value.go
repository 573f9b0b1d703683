package diff

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Change is one place where two records of a request differ: at Path, Old
// became New. A nil Old or New says the place does not exist on that side;
// a JSON null is "null".
type Change struct {
	Path     Path
	Old, New json.RawMessage
}

// ignoreSet is what is left out of a comparison: each pattern as the steps
// that remain to match below the current place.
type ignoreSet []Path

// below returns the patterns that still apply under the step st, and
// whether one of them ends there: then the place is ignored whole.
func (s ignoreSet) below(st Step) (ignoreSet, bool) {
	var next ignoreSet
	for _, p := range s {
		if len(p) == 0 || !p[0].matches(st) {
			continue
		}
		if len(p) == 1 {
			return nil, true
		}
		next = append(next, p[1:])
	}
	return next, false
}

// changeChunk is how many changes of one request a walker holds before it
// hands them on, when it keeps them all: a request whose every one of
// millions of numbers changed costs no more.
const changeChunk = 256

// shownWhole bounds the values of a change that are shown as encoding/json
// writes them (keys in order, strings escaped alike): a larger one is
// shown as the record writes it, rather than decoded and copied.
const shownWhole = 64 << 10

// walker compares two JSON values as their records hold them, by value —
// key order, white space, the escapes of a string and the form of a
// number (1, 1.0, 1e0) do not matter — without decoding either: it walks
// the two texts side by side, so that what it holds is the two texts and
// the place it is at. Objects whose keys come in the same (ascending)
// order on both sides, as Go and most encoders write them, are walked in
// one pass; others are compared key by key in order, from an index of
// their members.
type walker struct {
	// at is the place being compared, its keys not yet made strings:
	// that costs only for the places that differ.
	at []place
	// kept are the changes found and not yet handed on; found counts
	// every change of the request, handed how many went to flush.
	kept          []Change
	found, handed int
	// max keeps at most that many changes, counting the rest; 0 keeps
	// them all, handing them to flush in chunks.
	max   int
	flush func([]Change) error
	err   error
}

// place is one step of the place a walker is at: an object's key or an
// array's index.
type place struct {
	key   []byte
	index int
	isKey bool
}

// placesOf is path as a walker's places.
func placesOf(path Path) []place {
	ps := make([]place, len(path))
	for i, st := range path {
		ps[i] = place{key: []byte(st.Key), index: st.Index, isKey: st.Kind == KeyStep}
	}
	return ps
}

// setPath puts the walker at path.
func (w *walker) setPath(path []place) { w.at = append(w.at[:0], path...) }

func (w *walker) push(p place) { w.at = append(w.at, p) }
func (w *walker) pop()         { w.at = w.at[:len(w.at)-1] }

// path is the place the walker is at.
func (w *walker) path() Path {
	p := make(Path, len(w.at))
	for i, pl := range w.at {
		if pl.isKey {
			p[i] = keyStep(string(pl.key))
		} else {
			p[i] = indexStep(pl.index)
		}
	}
	return p
}

// below is ign.below of the step p, which costs nothing where nothing is
// ignored.
func below(ign ignoreSet, p place) (ignoreSet, bool) {
	if len(ign) == 0 {
		return nil, false
	}
	if p.isKey {
		return ign.below(keyStep(string(p.key)))
	}
	return ign.below(indexStep(p.index))
}

// change records that the place the walker is at went from old to new
// (raw JSON, nil where absent).
func (w *walker) change(old, new []byte) {
	w.found++
	if w.max > 0 && len(w.kept) >= w.max || w.err != nil {
		return
	}
	w.kept = append(w.kept, Change{Path: w.path(), Old: shown(old), New: shown(new)})
	if w.max == 0 && len(w.kept) == changeChunk && w.flush != nil {
		w.err = w.flush(w.kept)
		w.handed += len(w.kept)
		w.kept = w.kept[:0]
	}
}

// mark is where a walker stands, to go back to when an object turns out
// to need comparing key by key.
type mark struct{ kept, found int }

func (w *walker) mark() mark { return mark{len(w.kept), w.found} }

// back forgets what was found since m, and reports whether it could:
// changes handed on are gone.
func (w *walker) back(m mark) bool {
	if w.handed > m.found {
		return false
	}
	w.kept, w.found = w.kept[:m.kept], m.found
	return true
}

// shown is a value of a change as it is shown: as encoding/json writes it,
// or as the record does when it is large.
func shown(raw []byte) json.RawMessage {
	if raw == nil {
		return nil
	}
	if len(raw) > shownWhole || isNumberStart(raw[0]) && bytes.IndexAny(raw, " \t\r\n") < 0 || raw[0] == 't' || raw[0] == 'f' || raw[0] == 'n' {
		// Large, or written as encoding/json writes it already.
		return json.RawMessage(raw)
	}
	v, err := decodeValue(raw)
	if err != nil {
		return json.RawMessage(raw)
	}
	return encodeValue(v)
}

// compareJSON appends to out the changes between the JSON values a and b,
// found under path, skipping what ign names (nil a or b: absent).
func compareJSON(out []Change, path Path, ign ignoreSet, a, b json.RawMessage) ([]Change, error) {
	w := &walker{kept: out}
	w.setPath(placesOf(path))
	w.values(ign, a, b)
	return w.kept, w.err
}

// values compares two whole values, nil for one that is absent.
func (w *walker) values(ign ignoreSet, a, b []byte) {
	a, b = bytes.TrimSpace(a), bytes.TrimSpace(b)
	switch {
	case bytes.Equal(a, b) && (a == nil) == (b == nil):
	case a == nil || b == nil:
		w.change(a, b)
	default:
		ea, eb := w.compare(ign, a, 0, b, 0)
		if w.err == nil && (skipSpace(a, ea) != len(a) || skipSpace(b, eb) != len(b)) {
			w.err = errors.New("not one JSON value")
		}
	}
}

// compare compares the value at a[i:] with the one at b[j:] (space
// skipped) and returns where each ends.
func (w *walker) compare(ign ignoreSet, a []byte, i int, b []byte, j int) (int, int) {
	i, j = skipSpace(a, i), skipSpace(b, j)
	if w.err != nil || i >= len(a) || j >= len(b) {
		w.fail()
		return len(a), len(b)
	}
	ka, kb := a[i], b[j]
	switch {
	case ka == '{' && kb == '{':
		return w.objects(ign, a, i, b, j)
	case ka == '[' && kb == '[':
		return w.arrays(ign, a, i, b, j)
	}
	ea, eb := skipValue(a, i), skipValue(b, j)
	if ea < 0 || eb < 0 {
		w.fail()
		return len(a), len(b)
	}
	va, vb := a[i:ea], b[j:eb]
	same := bytes.Equal(va, vb)
	switch {
	case same:
	case ka == '"' && kb == '"':
		same = stringsEqual(va, vb)
	case isNumberStart(ka) && isNumberStart(kb) && isInteger(va) && isInteger(vb):
		// Written differently, two integers are one only as 0 and -0.
		same = isZero(va) && isZero(vb)
	case isNumberStart(ka) && isNumberStart(kb):
		same = numbersEqual(json.Number(va), json.Number(vb))
	}
	if !same {
		w.change(va, vb)
	}
	return ea, eb
}

func (w *walker) fail() {
	if w.err == nil {
		w.err = errors.New("not valid JSON")
	}
}

// arrays compares two arrays element by element, by position.
func (w *walker) arrays(ign ignoreSet, a []byte, i int, b []byte, j int) (int, int) {
	i, j = i+1, j+1
	for k := 0; w.err == nil; k++ {
		i, j = skipSpace(a, i), skipSpace(b, j)
		endA, endB := i < len(a) && a[i] == ']', j < len(b) && b[j] == ']'
		if endA && endB {
			return i + 1, j + 1
		}
		pl := place{index: k}
		sub, ignored := below(ign, pl)
		w.push(pl)
		switch {
		case endA || endB || ignored:
			var va, vb []byte
			va, i = w.element(a, i, endA)
			vb, j = w.element(b, j, endB)
			if !ignored && w.err == nil {
				w.change(va, vb)
			}
		default:
			i, j = w.compare(sub, a, i, b, j)
		}
		w.pop()
		i, j = afterElement(a, i, endA), afterElement(b, j, endB)
	}
	return len(a), len(b)
}

// element is the value at data[i:] and where it ends, nil where the
// array has ended.
func (w *walker) element(data []byte, i int, ended bool) ([]byte, int) {
	if ended {
		return nil, i
	}
	e := skipValue(data, i)
	if e < 0 {
		w.fail()
		return nil, len(data)
	}
	return data[i:e], e
}

// afterElement moves past the comma after an element, unless the array
// has ended (ended), where i stays on its bracket.
func afterElement(data []byte, i int, ended bool) int {
	if ended {
		return i
	}
	if i = skipSpace(data, i); i < len(data) && data[i] == ',' {
		return i + 1
	}
	return i
}

// objects compares two objects by key: in one pass while their keys come
// in the same ascending order, else from an index of their members.
func (w *walker) objects(ign ignoreSet, a []byte, oa int, b []byte, ob int) (int, int) {
	m := w.mark()
	i, j := oa+1, ob+1
	var last []byte
	for w.err == nil {
		i, j = skipSpace(a, i), skipSpace(b, j)
		endA, endB := i < len(a) && a[i] == '}', j < len(b) && b[j] == '}'
		if endA && endB {
			return i + 1, j + 1
		}
		if endA || endB {
			break
		}
		ka, ia := readKey(a, i)
		kb, jb := readKey(b, j)
		if ia < 0 || jb < 0 {
			w.fail()
			break
		}
		if !bytes.Equal(ka, kb) || last != nil && bytes.Compare(last, ka) >= 0 {
			break
		}
		last = ka
		i, j = ia, jb
		pl := place{key: ka, isKey: true}
		sub, ignored := below(ign, pl)
		if ignored {
			i, j = skipValue(a, skipSpace(a, i)), skipValue(b, skipSpace(b, j))
			if i < 0 || j < 0 {
				w.fail()
				break
			}
		} else {
			w.push(pl)
			i, j = w.compare(sub, a, i, b, j)
			w.pop()
		}
		i, j = afterElement(a, i, false), afterElement(b, j, false)
	}
	if w.err != nil {
		return len(a), len(b)
	}
	if w.back(m) {
		// From the start, key by key in order: as if no member had been
		// compared yet.
		i, j = oa+1, ob+1
	}
	return w.indexed(ign, a, i, b, j)
}

// member is one member of an object: its key (decoded) and where its
// value lies.
type member struct {
	key        []byte
	start, end int
}

// indexed compares the members of two objects from a[i:] and b[j:] on
// (each at a member, or its closing brace) key by key, in the order of
// their keys; a key given twice in one object counts with its last value,
// as a decoder reads it.
func (w *walker) indexed(ign ignoreSet, a []byte, i int, b []byte, j int) (int, int) {
	ma, ea := members(a, i)
	mb, eb := members(b, j)
	if ea < 0 || eb < 0 {
		w.fail()
		return len(a), len(b)
	}
	for x, y := 0, 0; x < len(ma) || y < len(mb); {
		var c int
		switch {
		case x == len(ma):
			c = 1
		case y == len(mb):
			c = -1
		default:
			c = bytes.Compare(ma[x].key, mb[y].key)
		}
		var va, vb []byte
		var key []byte
		if c <= 0 {
			key, va = ma[x].key, a[ma[x].start:ma[x].end]
			x++
		}
		if c >= 0 {
			key, vb = mb[y].key, b[mb[y].start:mb[y].end]
			y++
		}
		pl := place{key: key, isKey: true}
		sub, ignored := below(ign, pl)
		if ignored {
			continue
		}
		w.push(pl)
		if va != nil && vb != nil {
			w.compare(sub, va, 0, vb, 0)
		} else {
			w.change(va, vb)
		}
		w.pop()
		if w.err != nil {
			break
		}
	}
	return ea, eb
}

// members indexes the members of the object from data[i:] on, sorted by
// key, each key once (its last member), and returns where the object
// ends; -1 for a text that is no object.
func members(data []byte, i int) ([]member, int) {
	var ms []member
	for {
		i = skipSpace(data, i)
		if i >= len(data) {
			return nil, -1
		}
		if data[i] == '}' {
			i++
			break
		}
		key, v := readKey(data, i)
		if v < 0 {
			return nil, -1
		}
		v = skipSpace(data, v)
		e := skipValue(data, v)
		if e < 0 {
			return nil, -1
		}
		ms = append(ms, member{key: key, start: v, end: e})
		i = afterElement(data, e, false)
	}
	slices.SortStableFunc(ms, func(x, y member) int { return bytes.Compare(x.key, y.key) })
	out := ms[:0]
	for k, m := range ms {
		if k+1 < len(ms) && bytes.Equal(ms[k+1].key, m.key) {
			continue
		}
		out = append(out, m)
	}
	return out, i
}

// readKey reads the key of the member at data[i:] and the colon after it:
// the key decoded (the text itself when it has no escapes), and where the
// value begins; -1 for a text that is no member.
func readKey(data []byte, i int) ([]byte, int) {
	if i >= len(data) || data[i] != '"' {
		return nil, -1
	}
	e := skipString(data, i)
	if e < 0 {
		return nil, -1
	}
	key := data[i+1 : e-1]
	if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
		var dec string
		if json.Unmarshal(data[i:e], &dec) != nil {
			return nil, -1
		}
		key = []byte(dec)
	}
	e = skipSpace(data, e)
	if e >= len(data) || data[e] != ':' {
		return nil, -1
	}
	return key, e + 1
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

func isNumberStart(c byte) bool { return c == '-' || '0' <= c && c <= '9' }

// skipValue returns where the value at data[i:] ends, -1 when there is
// none there; the text is a record's, checked when it was read.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				if i = skipString(data, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	// A number or a literal: up to the next delimiter.
	j := i
	for j < len(data) {
		switch data[j] {
		case ' ', '\t', '\n', '\r', ',', ':', '}', ']':
			return j
		}
		j++
	}
	return j
}

// skipString returns where the string at data[i:] (its opening quote)
// ends, after its closing quote; -1 when it does not.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// stringsEqual reports whether two JSON string literals (quotes and all)
// hold the same string, decoded as encoding/json decodes them, without
// building either.
func stringsEqual(a, b []byte) bool {
	x, y := strIter{data: a, i: 1}, strIter{data: b, i: 1}
	for {
		ra, okA := x.next()
		rb, okB := y.next()
		if okA != okB || ra != rb {
			return false
		}
		if !okA {
			return true
		}
	}
}

// strIter reads the characters of a JSON string literal one by one.
type strIter struct {
	data []byte
	i    int
}

// next returns the next character, false at the closing quote. Escapes
// are decoded, and bytes that are not UTF-8 and lone surrogates are
// U+FFFD, as encoding/json reads them.
func (s *strIter) next() (rune, bool) {
	if s.i >= len(s.data) || s.data[s.i] == '"' {
		return 0, false
	}
	c := s.data[s.i]
	if c != '\\' {
		if c < utf8.RuneSelf {
			s.i++
			return rune(c), true
		}
		r, n := utf8.DecodeRune(s.data[s.i:])
		s.i += n
		return r, true
	}
	if s.i+1 >= len(s.data) {
		s.i = len(s.data)
		return utf8.RuneError, true
	}
	e := s.data[s.i+1]
	s.i += 2
	switch e {
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r, ok := hex4(s.data, s.i)
		if !ok {
			return utf8.RuneError, true
		}
		s.i += 4
		if 0xD800 <= r && r < 0xDC00 && s.i+1 < len(s.data) && s.data[s.i] == '\\' && s.data[s.i+1] == 'u' {
			if r2, ok := hex4(s.data, s.i+2); ok && 0xDC00 <= r2 && r2 < 0xE000 {
				r = (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000
				s.i += 6
			}
		}
		if 0xD800 <= r && r < 0xE000 {
			r = utf8.RuneError
		}
		return r, true
	}
	return rune(e), true // " \ /
}

// absent stands for a value that is not there, as distinct from null.
type absentValue struct{}

var absent any = absentValue{}

func decodeValue(raw json.RawMessage) (any, error) {
	if raw == nil {
		return absent, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// encodeValue is v as compact JSON, nil for an absent value.
func encodeValue(v any) json.RawMessage {
	if _, ok := v.(absentValue); ok {
		return nil
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		// Decoded from JSON, v always encodes.
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// isInteger reports whether the number n is written as an integer, with
// no fraction or exponent: two such, the common case, are the same number
// only when written alike (or both zero), which needs no arithmetic.
func isInteger(n []byte) bool {
	if len(n) > 0 && n[0] == '-' {
		n = n[1:]
	}
	if len(n) == 0 || n[0] == '0' && len(n) > 1 {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isZero(n []byte) bool { return string(n) == "0" || string(n) == "-0" }

// numbersEqual reports whether two JSON numbers have the same value,
// exactly: 1, 1.0, 10e-1 and 0.1e1 are one number, and so are 0 and -0.
func numbersEqual(a, b json.Number) bool {
	return a == b || canonicalNumber(string(a)) == canonicalNumber(string(b))
}

// canonicalNumber writes a JSON number as -0.DIGITSeEXP with no zero at
// either end of DIGITS: one spelling per value, found without arithmetic
// on the value (an exponent of a billion costs nothing).
func canonicalNumber(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	// The value is 0.DIGITS × 10^(len(intPart)+exp).
	shift := len(intPart)
	lead := len(digits) - len(strings.TrimLeft(digits, "0"))
	digits = strings.TrimRight(digits[lead:], "0")
	if digits == "" {
		return "0"
	}
	e := new(big.Int)
	if n, err := strconv.ParseInt(exp, 10, 64); err == nil || exp == "" {
		e.SetInt64(n)
	} else if _, ok := e.SetString(strings.TrimPrefix(exp, "+"), 10); !ok {
		return s // not a number of JSON's; compared as written
	}
	e.Add(e, big.NewInt(int64(shift-lead)))
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + "0." + digits + "e" + e.String()
}

// hex4 decodes the four hexadecimal digits of a \u escape at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	r, err := strconv.ParseUint(string(data[i:i+4]), 16, 32)
	return rune(r), err == nil
}

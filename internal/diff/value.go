package diff

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
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
		if len(p) > 0 && p[0].matches(st) {
			if len(p) == 1 {
				return nil, true
			}
			next = append(next, p[1:])
		}
	}
	return next, false
}

// changeChunk is how many changes of one request a walker holds before it
// hands them on, when it keeps them all: a request whose every one of
// millions of numbers changed costs no more. shownWhole bounds the values
// of a change that are shown as encoding/json writes them (keys in order,
// strings escaped alike): a larger one is shown as the record writes it.
const (
	changeChunk = 256
	shownWhole  = 64 << 10
)

// What a record holds is read as it was written: a key given twice counts
// with its last value, and bytes that are not UTF-8 are U+FFFD, as
// encoding/json reads them.
var readOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// walker compares two JSON values as their records hold them, by value —
// key order, white space, the escapes of a string and the form of a
// number (1, 1.0, 1e0) do not matter — reading the two texts side by side
// with jsontext, never decoding them: it holds the texts, the members of
// the objects it compares from an index, and the place it is at.
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
	// free are decoders done with, and members the members of the objects
	// being compared, innermost last: reused from value to value.
	free    []*reader
	members []member
	pairs   []pair
}

// reader reads a value in place: a decoder of a bytes.Buffer parses the
// buffer's own bytes, and the values it returns are the text's.
type reader struct {
	jsontext.Decoder
	b    bytes.Buffer
	text []byte
}

// reader is a reader of v.
func (w *walker) reader(v []byte) *reader {
	var r *reader
	if n := len(w.free); n > 0 {
		r, w.free = w.free[n-1], w.free[:n-1]
	} else {
		r = new(reader)
	}
	r.b, r.text = *bytes.NewBuffer(v), v
	r.Reset(&r.b, readOptions...)
	return r
}

// place is a Step whose key is still the text's.
type place struct {
	key   []byte
	index int
	isKey bool
}

func (w *walker) setPath(path Path) {
	w.at = w.at[:0]
	for _, st := range path {
		w.at = append(w.at, place{[]byte(st.Key), st.Index, st.Kind == KeyStep})
	}
}

func (p place) step() Step {
	if p.isKey {
		return keyStep(string(p.key))
	}
	return indexStep(p.index)
}

// change records that the place the walker is at went from old to new
// (raw JSON, nil where absent).
func (w *walker) change(old, new []byte) {
	w.found++
	if w.max > 0 && len(w.kept) >= w.max || w.err != nil {
		return
	}
	path := make(Path, len(w.at))
	for i, p := range w.at {
		path[i] = p.step()
	}
	w.kept = append(w.kept, Change{Path: path, Old: shown(old), New: shown(new)})
	if w.max == 0 && len(w.kept) == changeChunk && w.flush != nil {
		w.err = w.flush(w.kept)
		w.handed += len(w.kept)
		w.kept = w.kept[:0]
	}
}

// shown is a value of a change as it is shown: as encoding/json writes it,
// or as the record does when it is large or written so already.
func shown(raw []byte) json.RawMessage {
	k := jsontext.Value(raw).Kind()
	if len(raw) <= shownWhole && (k == '"' || k == '{' || k == '[' || k == '0' && bytes.IndexAny(raw, " \t\r\n") >= 0) {
		if v, err := decodeValue(raw); err == nil {
			return encodeValue(v)
		}
	}
	return json.RawMessage(raw)
}

// compareJSON appends to out the changes between the JSON values a and b,
// found under path, skipping what ign names (nil a or b: absent).
func compareJSON(out []Change, path Path, ign ignoreSet, a, b json.RawMessage) ([]Change, error) {
	w := &walker{kept: out}
	w.setPath(path)
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
		ra, rb := w.reader(a), w.reader(b)
		w.compare(ign, ra, rb)
		w.free = append(w.free, ra, rb)
	}
}

// compare compares the values that ra and rb are at, side by side, and
// reads past them: each text is read once however deep its values nest,
// but for an object compared from an index of its members.
func (w *walker) compare(ign ignoreSet, ra, rb *reader) {
	ka, kb := ra.PeekKind(), rb.PeekKind()
	switch {
	case w.err != nil:
	case ka == '[' && kb == '[':
		w.arrays(ign, ra, rb)
	case ka == '{' && kb == '{':
		w.objects(ign, ra, rb)
	default:
		a, b := w.value(ra), w.value(rb)
		if w.err == nil {
			w.scalars(a, b)
		}
	}
}

// scalars compares two values that are not both arrays nor both objects.
func (w *walker) scalars(a, b jsontext.Value) {
	ka, kb := a.Kind(), b.Kind()
	switch {
	case bytes.Equal(a, b):
	case ka == '"' && kb == '"' && sameString(a, b):
	case ka == '0' && kb == '0' && numbersEqual(json.Number(a), json.Number(b)):
	default:
		w.change(a, b)
	}
}

// value reads the value r is at: the text's own bytes, which stay.
func (w *walker) value(r *reader) jsontext.Value {
	v, err := r.ReadValue()
	if err != nil && w.err == nil {
		// A record's content was checked as it was read; a value given
		// to compareJSON may not have been.
		w.err = errors.New("not valid JSON")
	}
	return v
}

// sameString reports whether two JSON strings, written differently, hold
// the same text.
func sameString(a, b []byte) bool {
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 && utf8.Valid(a) && utf8.Valid(b) {
		return false
	}
	return bytes.Equal(unquote(a), unquote(b))
}

// unquote is the text of a JSON string: escapes decoded, bytes that are
// not UTF-8 and lone surrogates U+FFFD, as encoding/json reads them.
func unquote(s []byte) []byte {
	t, _ := jsontext.AppendUnquote(nil, s)
	return t
}

// below is ign.below of the step p, which costs nothing where nothing is
// ignored.
func below(ign ignoreSet, p place) (ignoreSet, bool) {
	if len(ign) == 0 {
		return nil, false
	}
	return ign.below(p.step())
}

// arrays compares two arrays element by element, by position.
func (w *walker) arrays(ign ignoreSet, ra, rb *reader) {
	ra.ReadToken()
	rb.ReadToken()
	for k := 0; w.err == nil; k++ {
		endA, endB := ra.PeekKind() == ']', rb.PeekKind() == ']'
		if endA && endB {
			ra.ReadToken()
			rb.ReadToken()
			return
		}
		p := place{index: k}
		sub, ignored := below(ign, p)
		w.at = append(w.at, p)
		if endA || endB || ignored {
			var a, b []byte
			if !endA {
				a = w.value(ra)
			}
			if !endB {
				b = w.value(rb)
			}
			if !ignored && w.err == nil {
				w.change(a, b)
			}
		} else {
			w.compare(sub, ra, rb)
		}
		w.at = w.at[:len(w.at)-1]
	}
}

// mark is where a walker stands, to go back to when an object turns out
// to need comparing from an index of its members.
type mark struct{ kept, found int }

// back forgets what was found since m, and reports whether it could:
// changes handed on are gone.
func (w *walker) back(m mark) bool {
	if w.handed > m.found {
		return false
	}
	w.kept, w.found = w.kept[:m.kept], m.found
	return true
}

// objects compares two objects by key: side by side while their keys come
// in the same ascending order (as Go and most encoders write them), then
// from an index of their members, from the start when what was found can
// be taken back.
func (w *walker) objects(ign ignoreSet, ra, rb *reader) {
	m, base := mark{len(w.kept), w.found}, len(w.pairs)
	defer func() { w.pairs = w.pairs[:base] }()
	ra.ReadToken()
	rb.ReadToken()
	var last []byte
	for w.err == nil {
		endA, endB := ra.PeekKind() == '}', rb.PeekKind() == '}'
		if endA && endB {
			ra.ReadToken()
			rb.ReadToken()
			return
		}
		var ka, kb []byte
		if !endA && !endB {
			ka, kb = key(w.value(ra)), key(w.value(rb))
		}
		if endA || endB || !bytes.Equal(ka, kb) || last != nil && bytes.Compare(last, ka) >= 0 {
			w.indexed(ign, ra, rb, m, base, ka, kb)
			return
		}
		last = ka
		p := place{key: ka, isKey: true}
		sub, ignored := below(ign, p)
		fromA, fromB := ra.InputOffset(), rb.InputOffset()
		if ignored {
			ra.SkipValue()
			rb.SkipValue()
		} else {
			w.at = append(w.at, p)
			w.compare(sub, ra, rb)
			w.at = w.at[:len(w.at)-1]
		}
		w.pairs = append(w.pairs, pair{ka, ra.since(fromA), rb.since(fromB)})
	}
}

// pair is a member that two objects compared side by side share: its key
// and its value in each.
type pair struct{ key, a, b []byte }

// since is the value read from offset from on (after a member's name).
func (r *reader) since(from int64) []byte {
	return bytes.TrimLeft(r.text[from:r.InputOffset()], " \t\r\n:")
}

// key is the text of an object's name as it was read.
func key(name []byte) []byte {
	if k := name[1 : len(name)-1]; bytes.IndexByte(k, '\\') < 0 && utf8.Valid(k) {
		return k
	}
	return unquote(name)
}

// indexed reads the rest of the objects ra and rb are in (the name of
// their next member read already where ka and kb are set), and compares
// their members from an index of each: with those compared side by side
// (w.pairs from base on) when what was found since m can be taken back.
func (w *walker) indexed(ign ignoreSet, ra, rb *reader, m mark, base int, ka, kb []byte) {
	mbase := len(w.members)
	defer func() { w.members = w.members[:mbase] }()
	back := w.back(m)
	var sides [2][]member
	for i, r := range [2]*reader{ra, rb} {
		start := len(w.members)
		if back {
			for _, p := range w.pairs[base:] {
				w.members = append(w.members, member{p.key, [2][]byte{p.a, p.b}[i]})
			}
		}
		if k := [2][]byte{ka, kb}[i]; k != nil {
			w.members = append(w.members, member{k, w.value(r)})
		}
		for r.PeekKind() == '"' && w.err == nil {
			k := key(w.value(r))
			w.members = append(w.members, member{k, w.value(r)})
		}
		if _, err := r.ReadToken(); err != nil && w.err == nil {
			w.err = errors.New("not valid JSON")
		}
		sides[i] = sortMembers(w.members[start:])
		w.members = w.members[:start+len(sides[i])]
	}
	if w.err == nil {
		w.members2(ign, sides[0], sides[1])
	}
}

// member is one member of an object: its key, decoded, and its value.
type member struct{ key, value []byte }

// sortMembers sorts ms by key and keeps each key once, its last member (as
// a decoder reads it), in place.
func sortMembers(ms []member) []member {
	slices.SortStableFunc(ms, func(x, y member) int { return bytes.Compare(x.key, y.key) })
	out := ms[:0]
	for i := range ms {
		if i+1 == len(ms) || !bytes.Equal(ms[i+1].key, ms[i].key) {
			out = append(out, ms[i])
		}
	}
	return out
}

// members2 compares the members of two objects key by key, in the order
// of their keys.
func (w *walker) members2(ign ignoreSet, ma, mb []member) {
	for x, y := 0, 0; (x < len(ma) || y < len(mb)) && w.err == nil; {
		c := 0
		switch {
		case x == len(ma):
			c = 1
		case y == len(mb):
			c = -1
		default:
			c = bytes.Compare(ma[x].key, mb[y].key)
		}
		var k, va, vb []byte
		if c <= 0 {
			k, va = ma[x].key, ma[x].value
			x++
		}
		if c >= 0 {
			k, vb = mb[y].key, mb[y].value
			y++
		}
		p := place{key: k, isKey: true}
		sub, ignored := below(ign, p)
		if ignored {
			continue
		}
		w.at = append(w.at, p)
		if ka, kb := jsontext.Value(va).Kind(), jsontext.Value(vb).Kind(); va != nil && vb != nil && (ka != kb || ka != '{' && ka != '[') {
			w.scalars(va, vb) // no reader needed
		} else if va != nil && vb != nil {
			ra, rb := w.reader(va), w.reader(vb)
			w.compare(sub, ra, rb)
			w.free = append(w.free, ra, rb)
		} else {
			w.change(va, vb)
		}
		w.at = w.at[:len(w.at)-1]
	}
}

// decodeValue is raw decoded, its numbers as written.
func decodeValue(raw json.RawMessage) (v any, err error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return v, d.Decode(&v)
}

// encodeValue is v as compact JSON, as a change shows it.
func encodeValue(v any) json.RawMessage {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		panic(err) // decoded from JSON, v always encodes
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// numbersEqual reports whether two JSON numbers have the same value,
// exactly: 1, 1.0, 10e-1 and 0.1e1 are one number, and so are 0 and -0.
func numbersEqual(a, b json.Number) bool {
	return a == b || canonicalNumber(string(a)) == canonicalNumber(string(b))
}

// canonicalNumber writes a JSON number as -0.DIGITSeEXP with no zero at
// either end of DIGITS: one spelling per value, found without arithmetic
// on the value (an exponent of a billion costs nothing).
func canonicalNumber(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	// The value is 0.DIGITS × 10^(len(intPart)+exp).
	lead := len(digits) - len(strings.TrimLeft(digits, "0"))
	if digits = strings.TrimRight(digits[lead:], "0"); digits == "" {
		return "0"
	}
	e, ok := new(big.Int).SetString(strings.TrimPrefix(exp, "+"), 10)
	if exp == "" {
		e, ok = new(big.Int), true
	}
	if !ok {
		return s // not a number of JSON's; compared as written
	}
	return sign + "0." + digits + "e" + e.Add(e, big.NewInt(int64(len(intPart)-lead))).String()
}

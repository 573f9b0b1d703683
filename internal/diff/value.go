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

// changeChunk is how many changes a walker that keeps them all holds before
// it hands them on: a request whose millions of numbers all changed costs
// no more. A value of a change up to shownWhole is shown as encoding/json
// writes it (keys in order, strings escaped alike), a larger one as written.
const (
	changeChunk = 256
	shownWhole  = 64 << 10
)

// A record is read as encoding/json reads it: a key given twice counts
// with its last value, bytes that are not UTF-8 are U+FFFD.
var readOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// walker compares two JSON values by value — key order, white space, the
// escapes of a string and the form of a number (1, 1.0, 1e0) do not
// matter — reading the two texts side by side, never decoding them.
type walker struct {
	// at is the place being compared, its keys made strings only for the
	// places that differ. kept are the changes not yet handed on; found
	// counts every change of the request, handed those given to flush.
	at            []place
	kept          []Change
	found, handed int
	// max keeps at most that many changes, counting the rest; 0 keeps
	// them all, handing them to flush in chunks.
	max   int
	flush func([]Change) error
	err   error
	// Reused from value to value: readers done with, the members of the
	// objects being compared (innermost last), and those compared side by
	// side before an object turned out to need an index (a's, b's in turn).
	free           []*reader
	members, pairs []member
}

type (
	// member is one member of an object: its key, decoded, and its value.
	member struct{ key, value []byte }
	// place is a Step whose key is still the text's.
	place struct {
		key   []byte
		index int
		isKey bool
	}
)

// reader reads a value in place: a decoder of a bytes.Buffer parses the
// buffer's own bytes, and the values it returns are the text's.
type reader struct {
	jsontext.Decoder
	b    bytes.Buffer
	text []byte
}

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

// value reads the value r is at: the text's own bytes, which stay.
func (w *walker) value(r *reader) jsontext.Value {
	v, err := r.ReadValue()
	if err != nil && w.err == nil {
		// A record's content was checked as it was read; a value given
		// to values by a test may not have been.
		w.err = errors.New("not valid JSON")
	}
	return v
}

// valueIf is w.value(r) if there is a value (ok), else nil.
func (w *walker) valueIf(r *reader, ok bool) []byte {
	if !ok {
		return nil
	}
	return w.value(r)
}

// since is the value read from offset from on (after a member's name).
func (r *reader) since(from int64) []byte {
	return bytes.TrimLeft(r.text[from:r.InputOffset()], " \t\r\n:")
}

func (p place) step() Step {
	if p.isKey {
		return keyStep(string(p.key))
	}
	return indexStep(p.index)
}

func (w *walker) setPath(path Path) {
	w.at = w.at[:0]
	for _, st := range path {
		w.at = append(w.at, place{[]byte(st.Key), st.Index, st.Kind == KeyStep})
	}
}

// below is ign.below of p, which costs nothing where nothing is ignored.
func below(ign ignoreSet, p place) (ignoreSet, bool) {
	if len(ign) == 0 {
		return nil, false
	}
	return ign.below(p.step())
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

// compare compares the values that ra and rb are at and reads past them:
// each text is read once however deep it nests.
func (w *walker) compare(ign ignoreSet, ra, rb *reader) {
	ka, kb := ra.PeekKind(), rb.PeekKind()
	switch {
	case w.err != nil:
	case ka == '[' && kb == '[':
		w.arrays(ign, ra, rb)
	case ka == '{' && kb == '{':
		w.objects(ign, ra, rb)
	default:
		if a, b := w.value(ra), w.value(rb); w.err == nil {
			w.scalars(a, b)
		}
	}
}

// scalars compares two values that are not both arrays nor both objects.
func (w *walker) scalars(a, b jsontext.Value) {
	ka, kb := a.Kind(), b.Kind()
	switch {
	case bytes.Equal(a, b):
	case ka == '"' && kb == '"' && bytes.Equal(text(a), text(b)):
	case ka == '0' && kb == '0' && numbersEqual(json.Number(a), json.Number(b)):
	default:
		w.change(a, b)
	}
}

// text is a JSON string's text as encoding/json reads it (escapes decoded;
// bytes not UTF-8, lone surrogates U+FFFD), sharing s's bytes when it can.
func text(s []byte) []byte {
	if t := s[1 : len(s)-1]; bytes.IndexByte(t, '\\') < 0 && utf8.Valid(t) {
		return t
	}
	t, _ := jsontext.AppendUnquote(nil, s)
	return t
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
		if !endA && !endB && !ignored {
			w.compare(sub, ra, rb)
		} else if a, b := w.valueIf(ra, !endA), w.valueIf(rb, !endB); !ignored && w.err == nil {
			w.change(a, b) // one array is longer
		}
		w.at = w.at[:len(w.at)-1]
	}
}

// objects compares two objects by key: side by side while their keys come
// in the same ascending order (as Go and most encoders write them), then
// by an index — from the start when no change found since was handed on.
func (w *walker) objects(ign ignoreSet, ra, rb *reader) {
	kept, found, base := len(w.kept), w.found, len(w.pairs)
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
			ka, kb = text(w.value(ra)), text(w.value(rb))
		}
		if endA || endB || !bytes.Equal(ka, kb) || last != nil && bytes.Compare(last, ka) >= 0 {
			pairs := w.pairs[base:base]
			if w.handed <= found {
				w.kept, w.found, pairs = w.kept[:kept], found, w.pairs[base:]
			}
			w.indexed(ign, [2]*reader{ra, rb}, pairs, [2][]byte{ka, kb})
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
		w.pairs = append(w.pairs, member{ka, ra.since(fromA)}, member{ka, rb.since(fromB)})
	}
}

// indexed reads the rest of the objects rs are in (a next member's name
// read already where keys has it) and compares them, with pairs, by key.
func (w *walker) indexed(ign ignoreSet, rs [2]*reader, pairs []member, keys [2][]byte) {
	mbase := len(w.members)
	defer func() { w.members = w.members[:mbase] }()
	var sides [2][]member
	for i, r := range rs {
		start := len(w.members)
		for j := i; j < len(pairs); j += 2 {
			w.members = append(w.members, pairs[j])
		}
		if keys[i] != nil {
			w.members = append(w.members, member{keys[i], w.value(r)})
		}
		for r.PeekKind() == '"' && w.err == nil {
			k := text(w.value(r))
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

// sortMembers sorts ms by key and keeps each key once, its last member (as
// a decoder reads it), in place.
func sortMembers(ms []member) []member {
	slices.Reverse(ms) // the stable sort then puts a key's last member first
	slices.SortStableFunc(ms, func(x, y member) int { return bytes.Compare(x.key, y.key) })
	return slices.CompactFunc(ms, func(x, y member) bool { return bytes.Equal(x.key, y.key) })
}

// members2 compares the members of two objects, sorted by key, key by key.
func (w *walker) members2(ign ignoreSet, ma, mb []member) {
	for x, y := 0, 0; (x < len(ma) || y < len(mb)) && w.err == nil; {
		c := 1 // <0: ma's key only, >0: mb's only, 0: both
		if y == len(mb) {
			c = -1
		} else if x < len(ma) {
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
		if sub, ignored := below(ign, p); !ignored {
			w.at = append(w.at, p)
			if ka, kb := jsontext.Value(va).Kind(), jsontext.Value(vb).Kind(); va != nil && vb != nil && (ka != kb || ka != '{' && ka != '[') {
				w.scalars(va, vb) // no reader needed
			} else {
				w.values(sub, va, vb)
			}
			w.at = w.at[:len(w.at)-1]
		}
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
	u := strings.TrimPrefix(s, "-")
	sign, s := s[:len(s)-len(u)], u
	mant, exp, _ := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	// The value is 0.DIGITS × 10^(len(intPart)+exp).
	lead := len(digits) - len(strings.TrimLeft(digits, "0"))
	if digits = strings.TrimRight(digits[lead:], "0"); digits == "" {
		return "0"
	}
	if exp == "" {
		exp = "0"
	}
	e, ok := new(big.Int).SetString(exp, 10) // a "+" is taken
	if !ok {
		return s // not a number of JSON's; compared as written
	}
	return sign + "0." + digits + "e" + e.Add(e, big.NewInt(int64(len(intPart)-lead))).String()
}

package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// changeText writes changes as "PATH: OLD -> NEW" lines, "-" for absent.
func changeText(cs []Change) []string {
	var out []string
	for _, c := range cs {
		old, new := string(c.Old), string(c.New)
		if c.Old == nil {
			old = "-"
		}
		if c.New == nil {
			new = "-"
		}
		out = append(out, fmt.Sprintf("%s: %s -> %s", c.Path, old, new))
	}
	return out
}

func mustPaths(t testing.TB, ss ...string) ignoreSet {
	t.Helper()
	var out ignoreSet
	for _, s := range ss {
		p, err := ParsePath(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestCompareJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		a, b   string
		ignore []string
		want   []string
	}{
		{name: "same bytes", a: `{"a":1}`, b: `{"a":1}`},
		{name: "key order and space", a: `{"a":1,"b":[1,2]}`, b: ` { "b" : [ 1 , 2 ] , "a" : 1 } `},
		{name: "number forms", a: `[1, 1.0, 10e-1, 0.1e1, 100, -0, 0.5, 12345678901234567890123]`, b: `[1.00, 1, 1, 1E0, 1e2, 0, 5e-1, 1.2345678901234567890123e22]`},
		{name: "string escapes", a: `"é<\u0041>"`, b: `"\u00e9\u003cA>"`},
		{name: "scalar changed", a: `79235`, b: `79236`, want: []string{".content: 79235 -> 79236"}},
		{name: "numbers beyond float64", a: `12345678901234567890123`, b: `12345678901234567890124`, want: []string{".content: 12345678901234567890123 -> 12345678901234567890124"}},
		{name: "null is not absent", a: `{"a":null}`, b: `{}`, want: []string{".content.a: null -> -"}},
		{name: "type changed", a: `{"a":"1"}`, b: `{"a":1}`, want: []string{`.content.a: "1" -> 1`}},
		{name: "bool", a: `[true]`, b: `[false]`, want: []string{".content[0]: true -> false"}},
		{
			name: "nested, keys in order",
			a:    `{"z":1,"items":[{"name":"a","n":1},{"name":"b"}],"gone":true}`,
			b:    `{"z":2,"items":[{"name":"a","n":2},{"name":"c"},{"name":"d"}],"new":{"x":[]}}`,
			want: []string{
				".content.gone: true -> -",
				`.content.items[0].n: 1 -> 2`,
				`.content.items[1].name: "b" -> "c"`,
				`.content.items[2]: - -> {"name":"d"}`,
				`.content.new: - -> {"x":[]}`,
				".content.z: 1 -> 2",
			},
		},
		{name: "odd keys printed quoted", a: `{"a b":1,"":2}`, b: `{"a b":2,"":3}`, want: []string{`.content[""]: 2 -> 3`, `.content["a b"]: 1 -> 2`}},
		{name: "ignored key", a: `{"modified":"mon","size":1}`, b: `{"modified":"tue","size":1}`, ignore: []string{".content.modified"}},
		{name: "ignored key present on one side", a: `{"modified":"mon"}`, b: `{}`, ignore: []string{".content.modified"}},
		{name: "ignored under a key", a: `{"m":{"a":1,"b":1},"n":1}`, b: `{"m":{"a":2,"b":2},"n":2}`, ignore: []string{".content.m"}, want: []string{".content.n: 1 -> 2"}},
		{
			name:   "every element",
			a:      `{"files":[{"name":"a","mtime":1},{"name":"b","mtime":2}]}`,
			b:      `{"files":[{"name":"a","mtime":5},{"name":"c","mtime":6},{"name":"d","mtime":7}]}`,
			ignore: []string{".content.files[].mtime"},
			want:   []string{`.content.files[1].name: "b" -> "c"`, `.content.files[2]: - -> {"mtime":7,"name":"d"}`},
		},
		{name: "one element", a: `[1,2,3]`, b: `[1,5,6]`, ignore: []string{".content[1]"}, want: []string{".content[2]: 3 -> 6"}},
		{name: "every value of an object", a: `{"a":{"t":1,"v":1},"b":{"t":1,"v":1}}`, b: `{"a":{"t":2,"v":1},"b":{"t":3,"v":2}}`, ignore: []string{".content[].t"}, want: []string{".content.b.v: 1 -> 2"}},
		{name: "an index does not match a key", a: `{"0":1}`, b: `{"0":2}`, ignore: []string{".content[0]"}, want: []string{`.content["0"]: 1 -> 2`}},
		{name: "ignore of another place", a: `{"a":1}`, b: `{"a":2}`, ignore: []string{".status", ".content.b"}, want: []string{".content.a: 1 -> 2"}},
		{name: "html characters stay", a: `"<a&b>"`, b: `"<a&c>"`, want: []string{`.content: "<a&b>" -> "<a&c>"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ign, ok := mustPaths(t, tt.ignore...).below(keyStep("content"))
			if ok {
				t.Fatal("content ignored whole")
			}
			got, err := compareJSON(nil, contentPath, ign, json.RawMessage(tt.a), json.RawMessage(tt.b))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, changeText(got)); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNumbersEqual(t *testing.T) {
	t.Parallel()
	equal := [][2]string{
		{"0", "-0"}, {"0", "0.000e5"}, {"0", "0e-99999999999999999999"},
		{"1", "1.0"}, {"1", "10e-1"}, {"1", "0.001e3"}, {"1", "1E+0"},
		{"-12.5", "-125e-1"}, {"1e99999999999999999999", "10e99999999999999999998"},
		{"123456789012345678901234567890", "1.2345678901234567890123456789e29"},
	}
	for _, p := range equal {
		if !numbersEqual(json.Number(p[0]), json.Number(p[1])) {
			t.Errorf("numbersEqual(%s, %s) = false, want true", p[0], p[1])
		}
	}
	different := [][2]string{
		{"1", "-1"}, {"1", "1.0000000000000000000001"}, {"1e5", "1e6"}, {"0.1", "0.01"},
		{"1e99999999999999999999", "1e99999999999999999998"}, {"10", "1"},
	}
	for _, p := range different {
		if numbersEqual(json.Number(p[0]), json.Number(p[1])) {
			t.Errorf("numbersEqual(%s, %s) = true, want false", p[0], p[1])
		}
	}
}

// FuzzCompareJSON holds the comparison of two JSON values to what it
// promises: a value equals itself however it is written (keys reordered,
// space, escapes, numbers respelled); the comparison agrees with a
// comparison by value built otherwise (exact rationals for numbers);
// swapping the sides swaps old and new; and ignoring every place it
// reports leaves nothing different.
func FuzzCompareJSON(f *testing.F) {
	for _, p := range [][2]string{
		{`{"a":1}`, `{"a":1.0}`},
		{`{"a":[1,2,{"b":null}]}`, `{"a":[1,2,{"b":false}],"c":"x"}`},
		{`"\u00e9"`, `"é"`},
		{`[]`, `{}`},
		{`1e400`, `10e399`},
		{`{"a b":{"":[[]]}}`, `{"a b":{"":[[0]]}}`},
		{`-0`, `0.0`},
		{`[1,2,3]`, `[3,2,1,0]`},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !json.Valid([]byte(a)) || !json.Valid([]byte(b)) || hasHugeExponent(a) || hasHugeExponent(b) {
			return
		}
		ra, rb := json.RawMessage(a), json.RawMessage(b)
		if cs, err := compareJSON(nil, contentPath, nil, ra, respell(t, ra)); err != nil || len(cs) > 0 {
			t.Fatalf("%s differs from itself respelled as %s: %v %v", a, respell(t, ra), changeText(cs), err)
		}
		ab, err := compareJSON(nil, contentPath, nil, ra, rb)
		if err != nil {
			t.Fatal(err)
		}
		if same := len(ab) == 0; same != sameByValue(t, ra, rb) {
			t.Fatalf("compare(%s, %s) found %v, but by value same=%v", a, b, changeText(ab), !same)
		}
		ba, err := compareJSON(nil, contentPath, nil, rb, ra)
		if err != nil {
			t.Fatal(err)
		}
		if len(ab) != len(ba) {
			t.Fatalf("compare(a, b) found %d changes, compare(b, a) %d", len(ab), len(ba))
		}
		for i := range ab {
			if ab[i].Path.String() != ba[i].Path.String() || !bytes.Equal(ab[i].Old, ba[i].New) || !bytes.Equal(ab[i].New, ba[i].Old) {
				t.Fatalf("change %d not mirrored: %v against %v", i, changeText(ab[i:i+1]), changeText(ba[i:i+1]))
			}
		}
		var ign ignoreSet
		for _, c := range ab {
			if len(c.Path) == 1 {
				return // the content whole: Options.Ignore of .content, tested with records
			}
			p, err := ParsePath(c.Path.String())
			if err != nil {
				t.Fatalf("reported path %q does not parse: %v", c.Path, err)
			}
			ign = append(ign, p[1:]) // under .content
		}
		if cs, _ := compareJSON(nil, contentPath, ign, ra, rb); len(ab) > 0 && len(cs) > 0 {
			t.Fatalf("ignoring every reported place still finds %v", changeText(cs))
		}
	})
}

// hasHugeExponent reports whether s may hold a number whose exact value
// the oracle (big.Rat) cannot build quickly.
func hasHugeExponent(s string) bool {
	for _, part := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r != 'e' && (r < '0' || r > '9') && r != '-' && r != '+' }) {
		if i := strings.IndexByte(part, 'e'); i >= 0 && len(strings.TrimLeft(part[i+1:], "+-0")) > 3 {
			return true
		}
	}
	return false
}

// respell writes the same JSON value otherwise: keys in reverse order,
// space around every token, every string character escaped as \uXXXX
// where it can be, and numbers respelled (respellNumber).
func respell(t testing.TB, raw json.RawMessage) json.RawMessage {
	t.Helper()
	v, err := decodeValue(raw)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	var write func(v any)
	write = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			slices.Reverse(keys)
			b.WriteString(" {")
			for i, k := range keys {
				if i > 0 {
					b.WriteString(" ,")
				}
				writeEscaped(&b, k)
				b.WriteString(" : ")
				write(v[k])
			}
			b.WriteString("} ")
		case []any:
			b.WriteString("[ ")
			for i, e := range v {
				if i > 0 {
					b.WriteString(", ")
				}
				write(e)
			}
			b.WriteString(" ]")
		case string:
			writeEscaped(&b, v)
		case json.Number:
			b.WriteString(respellNumber(string(v)))
		default:
			data, _ := json.Marshal(v)
			b.Write(data)
		}
	}
	write(v)
	return json.RawMessage(b.String())
}

// respellNumber writes the number n with a point before all its digits, a
// zero after them and the exponent raised to match: 12.5 → 0.1250E2.
func respellNumber(n string) string {
	neg := strings.HasPrefix(n, "-")
	n = strings.TrimPrefix(n, "-")
	mant, exp, _ := strings.Cut(strings.ToLower(n), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	e := new(big.Int)
	if exp != "" {
		e.SetString(strings.TrimPrefix(exp, "+"), 10)
	}
	e.Add(e, big.NewInt(1))
	e.Add(e, big.NewInt(int64(len(intPart)-1)))
	s := "0." + intPart + frac + "0E" + e.String()
	if neg {
		s = "-" + s
	}
	return s
}

func writeEscaped(b *strings.Builder, s string) {
	b.WriteByte('"')
	for _, r := range s {
		if r < 0x10000 {
			fmt.Fprintf(b, `\u%04x`, r)
		} else {
			data, _ := json.Marshal(string(r))
			b.Write(data[1 : len(data)-1])
		}
	}
	b.WriteByte('"')
}

// sameByValue compares two JSON values another way: decoded with numbers
// as exact rationals.
func sameByValue(t testing.TB, a, b json.RawMessage) bool {
	t.Helper()
	va, err := decodeValue(a)
	if err != nil {
		t.Fatal(err)
	}
	vb, err := decodeValue(b)
	if err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(exact(va), exact(vb))
}

func exact(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range v {
			out[k] = exact(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = exact(e)
		}
		return out
	case json.Number:
		r, ok := new(big.Rat).SetString(string(v))
		if !ok {
			panic("not a number: " + string(v))
		}
		return exactNumber(r.RatString())
	}
	return v
}

// exactNumber is a number in exact's values: never equal to a string.
type exactNumber string

// compareJSON appends to out the changes between the JSON values a and b,
// found under path, skipping what ign names (nil a or b: absent).
func compareJSON(out []Change, path Path, ign ignoreSet, a, b json.RawMessage) ([]Change, error) {
	w := &walker{kept: out}
	w.setPath(path)
	w.values(ign, a, b)
	return w.kept, w.err
}

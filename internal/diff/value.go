package diff

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
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

// compareJSON appends to out the changes between the JSON values a and b,
// found under path, skipping what ign names. Values are compared by value:
// key order, white space, the escapes of a string and the form of a number
// (1, 1.0, 1e0) do not matter.
func compareJSON(out []Change, path Path, ign ignoreSet, a, b json.RawMessage) ([]Change, error) {
	if bytes.Equal(a, b) {
		return out, nil
	}
	va, err := decodeValue(a)
	if err != nil {
		return out, err
	}
	vb, err := decodeValue(b)
	if err != nil {
		return out, err
	}
	return compareValues(out, path, ign, va, vb), nil
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

func compareValues(out []Change, path Path, ign ignoreSet, a, b any) []Change {
	switch a := a.(type) {
	case map[string]any:
		if b, ok := b.(map[string]any); ok {
			keys := make([]string, 0, len(a)+len(b))
			for k := range a {
				keys = append(keys, k)
			}
			for k := range b {
				if _, ok := a[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				out = compareChild(out, path, ign, keyStep(k), member(a, k), member(b, k))
			}
			return out
		}
	case []any:
		if b, ok := b.([]any); ok {
			for i := range max(len(a), len(b)) {
				out = compareChild(out, path, ign, indexStep(i), element(a, i), element(b, i))
			}
			return out
		}
	case json.Number:
		if b, ok := b.(json.Number); ok && numbersEqual(a, b) {
			return out
		}
	case string, bool, nil:
		if a == b {
			return out
		}
	case absentValue:
		if _, ok := b.(absentValue); ok {
			return out
		}
	}
	return append(out, Change{Path: path, Old: encodeValue(a), New: encodeValue(b)})
}

func compareChild(out []Change, path Path, ign ignoreSet, st Step, a, b any) []Change {
	sub, ignored := ign.below(st)
	if ignored {
		return out
	}
	return compareValues(out, path.child(st), sub, a, b)
}

func member(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return absent
}

func element(a []any, i int) any {
	if i < len(a) {
		return a[i]
	}
	return absent
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

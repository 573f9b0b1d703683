package toolspec

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Reading argument values and naming them in messages. Validate and
// the Decode functions of generated code must agree on what a value is, to
// the word: a call that Validate accepts has to decode, and both say what
// came in the same terms. So they share these helpers rather than keep
// copies that could drift apart.
//
// Values are what a JSON or YAML decoder produced: float64, string, bool,
// nil, []any, map[string]any, json.Number under UseNumber, or any Go
// integer kind from YAML.

// intResult says what asInteger made of a value.
type intResult uint8

const (
	isInteger intResult = iota
	notNumber
	notIntegral
	// tooLarge is an integral number beyond every Go integer kind.
	tooLarge
)

// asInteger reads v as an integer: its sign and magnitude, so that the
// whole range from math.MinInt64 to math.MaxUint64 is representable. A
// float that is integral is an integer, since Gemini sends 1.0.
func asInteger(v any) (neg bool, mag uint64, res intResult) {
	switch n := v.(type) {
	case int:
		return signed(int64(n))
	case int8:
		return signed(int64(n))
	case int16:
		return signed(int64(n))
	case int32:
		return signed(int64(n))
	case int64:
		return signed(n)
	case uint:
		return false, uint64(n), isInteger
	case uint8:
		return false, uint64(n), isInteger
	case uint16:
		return false, uint64(n), isInteger
	case uint32:
		return false, uint64(n), isInteger
	case uint64:
		return false, n, isInteger
	case uintptr:
		return false, uint64(n), isInteger
	case float64:
		return integralFloat(n)
	case float32:
		return integralFloat(float64(n))
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err == nil {
			return signed(i)
		}
		if isRangeErr(err) && strings.HasPrefix(string(n), "-") {
			// An integer literal below math.MinInt64: as a float it would
			// round to MinInt64 and pass.
			return true, 0, tooLarge
		}
		if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
			return false, u, isInteger
		} else if isRangeErr(err) {
			return false, 0, tooLarge
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !isRangeErr(err) {
			return false, 0, notNumber
		}
		return integralFloat(f)
	}
	return false, 0, notNumber
}

func signed(i int64) (bool, uint64, intResult) {
	if i < 0 {
		// -(i+1) cannot overflow, even for math.MinInt64.
		return true, uint64(-(i + 1)) + 1, isInteger
	}
	return false, uint64(i), isInteger
}

func integralFloat(f float64) (bool, uint64, intResult) {
	// The common case first; NaN fails every comparison and falls through.
	if f >= 0 && f < 0x1p64 && f == math.Trunc(f) {
		return false, uint64(f), isInteger
	}
	if f < 0 && f >= -0x1p63 && f == math.Trunc(f) {
		return true, uint64(-f), isInteger
	}
	if math.IsInf(f, 0) || f == math.Trunc(f) {
		// Infinite, or integral beyond every Go integer kind.
		return f < 0, 0, tooLarge
	}
	return false, 0, notIntegral
}

// isRangeErr reports whether a strconv error is only about size: a
// json.Number such as 1e400 is still a number, just too large for any kind.
func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// asFloat reads v as a number of any Go numeric kind.
func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int8:
		return float64(n), true
	case int16:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint:
		return float64(n), true
	case uint8:
		return float64(n), true
	case uint16:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case uintptr:
		return float64(n), true
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !isRangeErr(err) {
			return 0, false
		}
		return f, true
	}
	return 0, false
}

// intRange returns the range of a Go integer of the given size and
// signedness, as the magnitude of its least value and its greatest value.
func intRange(isSigned bool, bits uint) (negMag, hi uint64) {
	switch {
	case isSigned:
		return 1 << (bits - 1), 1<<(bits-1) - 1
	case bits >= 64:
		return 0, math.MaxUint64
	}
	return 0, 1<<bits - 1
}

// intBounds returns the range of a Go integer kind named by goType. Types
// the name does not tell (a named type, say) get int64's range.
func intBounds(goType string) (negMag, hi uint64) {
	switch strings.TrimLeft(goType, "*") {
	case "int8":
		return intRange(true, 8)
	case "int16":
		return intRange(true, 16)
	case "int32", "rune":
		return intRange(true, 32)
	case "uint8", "byte":
		return intRange(false, 8)
	case "uint16":
		return intRange(false, 16)
	case "uint32":
		return intRange(false, 32)
	case "uint", "uint64", "uintptr":
		return intRange(false, 64)
	}
	return intRange(true, 64)
}

// outOfRange reports whether an integer that asInteger read, as neg, mag
// and res, lies outside the range from -negMag to hi.
func outOfRange(neg bool, mag uint64, res intResult, negMag, hi uint64) bool {
	return res == tooLarge || neg && mag > negMag || !neg && mag > hi
}

// rangeText says what an integer must be and its range in one message
// phrase: "integer (int8) from -128 to 127". It is built in one buffer so
// that a refusal costs a single allocation beyond what.
func rangeText(what string, negMag, hi uint64) string {
	var buf [96]byte
	b := append(buf[:0], what...)
	b = append(b, " from "...)
	if negMag > 0 {
		b = append(b, '-')
	}
	b = strconv.AppendUint(b, negMag, 10)
	b = append(b, " to "...)
	b = strconv.AppendUint(b, hi, 10)
	return string(b)
}

// maxShown bounds how much of a wrong string value a message repeats.
const maxShown = 60

// Describe says what a value is in the words of ArgError's Got: `string
// "3"`, `number 1.5`, `null`, `array of 3 items`. A validator of its own
// (a tool's Check, toolset.Tool) uses it to speak as Validate does; so does every
// message of kesoku's about a value of the wrong kind (in a request file,
// in a config file's schema, in what an MCP client sent).
func Describe(v any) string { return describe(v) }

// describe says what came, in JSON's words: `string "3"`, `number 1.5`,
// `null`, `array of 3 items`.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > maxShown {
			return fmt.Sprintf("string %q… (%d bytes)", truncateUTF8(x, maxShown), len(x))
		}
		return "string " + strconv.Quote(x)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case float64:
		return "number " + formatFloat(x, 64)
	case float32:
		return "number " + formatFloat(float64(x), 32)
	case json.Number:
		return "number " + string(x)
	case []any:
		if len(x) == 1 {
			return "array of 1 item"
		}
		return fmt.Sprintf("array of %d items", len(x))
	case map[string]any:
		return "object"
	}
	if _, ok := asFloat(v); ok {
		return fmt.Sprintf("number %v", v)
	}
	return fmt.Sprintf("%T value", v)
}

// formatFloat writes f as JSON would: 1000000, not 1e+06.
func formatFloat(f float64, bits int) string {
	if math.Abs(f) < 1e21 && f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', -1, bits)
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// quotedList writes values quoted and separated by commas: `"a", "b"`.
func quotedList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, ", ")
}

// Paths name where in the arguments a problem is: `items[2].name`,
// `labels.en`, `labels["a b"]`. Both Validate and the generated callers of
// the Decode functions build them from the inside out, one step per level,
// and only for problems, so that success builds none.

// joinPath puts step in front of path: "name" + "[2].x" = "name[2].x",
// "[2]" + "name" = "[2].name". A path that starts with an index needs no
// dot before it.
func joinPath(step, path string) string {
	switch {
	case path == "":
		return step
	case path[0] == '[':
		return step + path
	}
	return step + "." + path
}

// indexStep writes an array index as a path step: `[2]`.
func indexStep(i int) string {
	return "[" + strconv.Itoa(i) + "]"
}

// keyStep writes a map key as a path step: `en`, or `["a b"]` when a dot
// would be ambiguous.
func keyStep(k string) string {
	if isPlainKey(k) {
		return k
	}
	return "[" + strconv.Quote(k) + "]"
}

// isPlainKey reports whether a map key can be written after a dot without
// ambiguity.
func isPlainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

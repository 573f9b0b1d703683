package registry

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// The Decode functions turn one argument value, as a JSON or YAML decoder
// produced it, into a Go value of the parameter's type. Code written by
// kesoku gen calls them from each tool's Call, so that arguments reach the
// typed parameters without reflection: they are the hot path of every run.
//
// Values come from encoding/json (float64, string, bool, nil, []any,
// map[string]any, or json.Number under UseNumber) or from YAML (any Go
// integer kind, float64, …). Every numeric kind is accepted where a number
// is expected, an integral float is an integer (Gemini sends 1.0), and a
// fractional or out-of-range value is refused. A refusal is an *ArgError
// with an empty Path; the generated caller names the argument with ArgAt,
// ArgAtIndex and ArgAtKey on the way out, so that paths cost nothing until
// something is wrong.

// DecodeString decodes a string.
func DecodeString[T ~string](v any) (T, error) {
	if s, ok := v.(string); ok {
		return T(s), nil
	}
	return "", decodeWrongType[T]("string", v)
}

// DecodeEnum decodes a string that must be one of allowed.
func DecodeEnum[T ~string](v any, allowed []string) (T, error) {
	s, ok := v.(string)
	if !ok {
		return "", decodeWrongType[T]("string", v)
	}
	if !slices.Contains(allowed, s) {
		q := make([]string, len(allowed))
		for i, a := range allowed {
			q[i] = strconv.Quote(a)
		}
		return "", &ArgError{
			Problem:    "not one of the allowed values",
			Expected:   "one of " + strings.Join(q, ", "),
			Got:        decodeDescribe(v),
			Suggestion: Suggest(s, allowed),
		}
	}
	return T(s), nil
}

// DecodeBool decodes a boolean.
func DecodeBool[T ~bool](v any) (T, error) {
	if b, ok := v.(bool); ok {
		return T(b), nil
	}
	return false, decodeWrongType[T]("boolean", v)
}

// DecodeInt decodes a signed integer of T's size: any numeric kind whose
// value is integral and within T's range.
func DecodeInt[T ~int | ~int8 | ~int16 | ~int32 | ~int64](v any) (T, error) {
	// JSON's float64 and YAML's int64 first: they are nearly every call.
	switch x := v.(type) {
	case float64:
		// A conversion that round-trips is integral and in range; any
		// other value takes the slow path, which says what is wrong.
		if t := T(x); float64(t) == x && x >= -0x1p63 && x < 0x1p63 {
			return t, nil
		}
	case int64:
		if t := T(x); int64(t) == x {
			return t, nil
		}
	case int:
		if t := T(x); int(t) == x {
			return t, nil
		}
	}
	var zero T
	bits := uint(unsafe.Sizeof(zero)) * 8
	neg, mag, res := decodeInteger(v)
	switch {
	case res == decodeNotNumber || res == decodeNotIntegral:
		return 0, decodeWrongType[T]("integer", v)
	case res == decodeTooLarge, neg && mag > 1<<(bits-1), !neg && mag > 1<<(bits-1)-1:
		return 0, decodeOutOfRange[T](v, 1<<(bits-1), 1<<(bits-1)-1)
	case neg:
		// -(mag-1)-1 cannot overflow, even for the least int64.
		return T(-int64(mag-1) - 1), nil
	}
	return T(mag), nil
}

// DecodeUint decodes an unsigned integer of T's size: any numeric kind
// whose value is integral, not negative and within T's range.
func DecodeUint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](v any) (T, error) {
	if x, ok := v.(float64); ok {
		if t := T(x); x >= 0 && x < 0x1p64 && float64(t) == x {
			return t, nil
		}
	}
	var zero T
	bits := uint(unsafe.Sizeof(zero)) * 8
	hi := uint64(math.MaxUint64)
	if bits < 64 {
		hi = 1<<bits - 1
	}
	neg, mag, res := decodeInteger(v)
	switch {
	case res == decodeNotNumber || res == decodeNotIntegral:
		return 0, decodeWrongType[T]("integer", v)
	case res == decodeTooLarge, neg && mag > 0, mag > hi:
		return 0, decodeOutOfRange[T](v, 0, hi)
	}
	return T(mag), nil
}

// DecodeFloat decodes a number: any numeric kind, finite, and within
// float32's range when T is a float32.
func DecodeFloat[T ~float32 | ~float64](v any) (T, error) {
	f, ok := decodeFloat(v)
	if !ok {
		return 0, decodeWrongType[T]("number", v)
	}
	t := T(f)
	if math.IsNaN(f) || math.IsInf(float64(t), 0) {
		return 0, &ArgError{Problem: "out of range", Expected: "a finite number (" + decodeTypeName[T]() + ")", Got: decodeDescribe(v)}
	}
	return t, nil
}

// DecodeArray decodes an array: the items are left for the caller, which
// decodes each into the element type.
func DecodeArray(v any) ([]any, error) {
	if a, ok := v.([]any); ok {
		return a, nil
	}
	return nil, &ArgError{Problem: "wrong type", Expected: "array", Got: decodeDescribe(v)}
}

// DecodeArrayLen decodes an array of exactly n items, for a Go array type.
func DecodeArrayLen(v any, n int) ([]any, error) {
	a, err := DecodeArray(v)
	if err != nil {
		return nil, err
	}
	if len(a) != n {
		return nil, &ArgError{Problem: "wrong length", Expected: fmt.Sprintf("array of %d items", n), Got: decodeDescribe(v)}
	}
	return a, nil
}

// DecodeObject decodes an object: a struct's fields or a map's entries,
// left for the caller to decode.
func DecodeObject(v any) (map[string]any, error) {
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	return nil, &ArgError{Problem: "wrong type", Expected: "object", Got: decodeDescribe(v)}
}

// MissingArg is the error for a required argument, named name, that is
// absent or null.
func MissingArg(name string) error {
	return &ArgError{Path: name, Problem: "missing required argument"}
}

// MissingField is MissingArg for a required field of a struct.
func MissingField(name string) error {
	return &ArgError{Path: name, Problem: "missing required field"}
}

// ArgAt puts the argument or field name in front of err's path. An error
// that is not an *ArgError becomes one, about name.
func ArgAt(err error, name string) error {
	return decodePrefix(err, name)
}

// ArgAtKey puts a map key in front of err's path, quoted when it is not a
// plain name: `labels.en`, `labels["a b"]`.
func ArgAtKey(err error, key string) error {
	if decodePlainKey(key) {
		return decodePrefix(err, key)
	}
	return decodePrefix(err, "["+strconv.Quote(key)+"]")
}

// ArgAtIndex puts an array index in front of err's path: `[2].name`.
func ArgAtIndex(err error, i int) error {
	return decodePrefix(err, "["+strconv.Itoa(i)+"]")
}

// decodePrefix joins step and err's path. An index step or a path that
// starts with an index needs no dot between them.
func decodePrefix(err error, step string) error {
	if err == nil {
		return nil
	}
	ae, ok := err.(*ArgError)
	if !ok {
		return &ArgError{Path: step, Problem: "invalid value", Err: err}
	}
	switch {
	case ae.Path == "":
		ae.Path = step
	case strings.HasPrefix(ae.Path, "["):
		ae.Path = step + ae.Path
	default:
		ae.Path = step + "." + ae.Path
	}
	return ae
}

// decodePlainKey reports whether a map key can follow a dot in a path
// without ambiguity.
func decodePlainKey(k string) bool {
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

// decodeResult says what decodeInteger made of a value.
type decodeResult uint8

const (
	decodeIsInteger decodeResult = iota
	decodeNotNumber
	decodeNotIntegral
	// decodeTooLarge is an integral number beyond every Go integer kind.
	decodeTooLarge
)

// decodeInteger reads v as an integer, as its sign and magnitude so that
// the whole range from math.MinInt64 to math.MaxUint64 fits.
func decodeInteger(v any) (neg bool, mag uint64, res decodeResult) {
	switch n := v.(type) {
	case int:
		return decodeSigned(int64(n))
	case int8:
		return decodeSigned(int64(n))
	case int16:
		return decodeSigned(int64(n))
	case int32:
		return decodeSigned(int64(n))
	case int64:
		return decodeSigned(n)
	case uint:
		return false, uint64(n), decodeIsInteger
	case uint8:
		return false, uint64(n), decodeIsInteger
	case uint16:
		return false, uint64(n), decodeIsInteger
	case uint32:
		return false, uint64(n), decodeIsInteger
	case uint64:
		return false, n, decodeIsInteger
	case uintptr:
		return false, uint64(n), decodeIsInteger
	case float64:
		return decodeIntegral(n)
	case float32:
		return decodeIntegral(float64(n))
	case json.Number:
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return decodeSigned(i)
		}
		if u, err := strconv.ParseUint(string(n), 10, 64); err == nil {
			return false, u, decodeIsInteger
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil && !decodeRangeErr(err) {
			return false, 0, decodeNotNumber
		}
		return decodeIntegral(f)
	}
	return false, 0, decodeNotNumber
}

func decodeSigned(i int64) (bool, uint64, decodeResult) {
	if i < 0 {
		return true, uint64(-(i + 1)) + 1, decodeIsInteger
	}
	return false, uint64(i), decodeIsInteger
}

func decodeIntegral(f float64) (bool, uint64, decodeResult) {
	switch {
	case math.IsNaN(f):
		return false, 0, decodeNotIntegral
	case math.IsInf(f, 0):
		return f < 0, 0, decodeTooLarge
	case f != math.Trunc(f):
		return false, 0, decodeNotIntegral
	case f >= 0x1p64 || f < -0x1p63:
		return f < 0, 0, decodeTooLarge
	case f < 0:
		return true, uint64(-f), decodeIsInteger
	}
	return false, uint64(f), decodeIsInteger
}

func decodeRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// decodeFloat reads v as a number of any Go numeric kind.
func decodeFloat(v any) (float64, bool) {
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
		if err != nil && !decodeRangeErr(err) {
			return 0, false
		}
		return f, true
	}
	return 0, false
}

// decodeTypeName names T as Go writes it ("int8", "tools.Mode"). Only
// messages use it, so the reflection inside fmt costs nothing on success.
func decodeTypeName[T any]() string {
	var zero T
	return fmt.Sprintf("%T", zero)
}

func decodeWrongType[T any](want string, v any) *ArgError {
	return &ArgError{Problem: "wrong type", Expected: want + " (" + decodeTypeName[T]() + ")", Got: decodeDescribe(v)}
}

func decodeOutOfRange[T any](v any, negMag, hi uint64) *ArgError {
	lo := "0"
	if negMag > 0 {
		lo = "-" + strconv.FormatUint(negMag, 10)
	}
	return &ArgError{
		Problem:  "out of range",
		Expected: "integer (" + decodeTypeName[T]() + ") from " + lo + " to " + strconv.FormatUint(hi, 10),
		Got:      decodeDescribe(v),
	}
}

// decodeMaxShown bounds how much of a wrong string a message repeats.
const decodeMaxShown = 60

// decodeDescribe says what came, in JSON's words: `string "3"`,
// `number 1.5`, `null`, `array of 3 items`.
func decodeDescribe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > decodeMaxShown {
			n := decodeMaxShown
			for n > 0 && x[n]&0xC0 == 0x80 {
				n--
			}
			return fmt.Sprintf("string %q… (%d bytes)", x[:n], len(x))
		}
		return "string " + strconv.Quote(x)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case float64:
		return "number " + decodeFormatFloat(x, 64)
	case float32:
		return "number " + decodeFormatFloat(float64(x), 32)
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
	if _, ok := decodeFloat(v); ok {
		return fmt.Sprintf("number %v", v)
	}
	return fmt.Sprintf("%T value", v)
}

// decodeFormatFloat writes f as JSON would: 1000000, not 1e+06.
func decodeFormatFloat(f float64, bits int) string {
	if math.Abs(f) < 1e21 && f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', -1, bits)
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

package toolspec

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"github.com/kesoku/kesoku/internal/english"
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
	return "", wrongType("string", v, decodeTypeName[T])
}

// DecodeEnum decodes a string that must be one of allowed.
func DecodeEnum[T ~string](v any, allowed []string) (T, error) {
	s, err := decodeEnum(v, allowed, decodeTypeName[T])
	return T(s), err
}

// DecodeBool decodes a boolean.
func DecodeBool[T ~bool](v any) (T, error) {
	if b, ok := v.(bool); ok {
		return T(b), nil
	}
	return false, wrongType("boolean", v, decodeTypeName[T])
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
	i, err := decodeInt(v, uint(unsafe.Sizeof(zero))*8, decodeTypeName[T])
	return T(i), err
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
	u, err := decodeUint(v, uint(unsafe.Sizeof(zero))*8, decodeTypeName[T])
	return T(u), err
}

// DecodeFloat decodes a number: any numeric kind, finite, and within
// float32's range when T is a float32.
func DecodeFloat[T ~float32 | ~float64](v any) (T, error) {
	var zero T
	f, err := decodeFloat(v, unsafe.Sizeof(zero) == 4, decodeTypeName[T])
	return T(f), err
}

// The Decode functions' work, for a type known only by its size and its
// name: the generic functions above give them T's, and typed registration
// (Add) a type's from reflection, so that both refuse a value in the same
// words. name is called only to word a refusal.

func decodeEnum(v any, allowed []string, name func() string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", wrongType("string", v, name)
	}
	if !slices.Contains(allowed, s) {
		return "", &ArgError{
			Problem:    "not one of the allowed values",
			Expected:   "one of " + quotedList(allowed),
			Got:        describe(v),
			Suggestion: english.Suggest(s, allowed),
		}
	}
	return s, nil
}

// decodeInteger reads an integer of the given signedness and size in
// bits, as its sign and magnitude.
func decodeInteger(v any, signed bool, bits uint, name func() string) (neg bool, mag uint64, err error) {
	negMag, hi := intRange(signed, bits)
	neg, mag, res := asInteger(v)
	switch {
	case res == notNumber || res == notIntegral:
		return false, 0, wrongType("integer", v, name)
	case outOfRange(neg, mag, res, negMag, hi):
		return false, 0, decodeOutOfRange(v, negMag, hi, name)
	}
	return neg, mag, nil
}

// decodeInt decodes a signed integer of the given size in bits.
func decodeInt(v any, bits uint, name func() string) (int64, error) {
	neg, mag, err := decodeInteger(v, true, bits, name)
	if neg {
		// -(mag-1)-1 cannot overflow, even for the least int64.
		return -int64(mag-1) - 1, err
	}
	return int64(mag), err
}

// decodeUint decodes an unsigned integer of the given size in bits.
func decodeUint(v any, bits uint, name func() string) (uint64, error) {
	_, mag, err := decodeInteger(v, false, bits, name)
	return mag, err
}

// decodeFloat decodes a finite number, within float32's range when is32.
func decodeFloat(v any, is32 bool, name func() string) (float64, error) {
	f, ok := asFloat(v)
	if !ok {
		return 0, wrongType("number", v, name)
	}
	inf := math.IsInf(f, 0)
	if is32 {
		inf = math.IsInf(float64(float32(f)), 0)
	}
	if math.IsNaN(f) || inf {
		return 0, &ArgError{Problem: "out of range", Expected: "a finite number (" + name() + ")", Got: describe(v)}
	}
	return f, nil
}

// DecodeArray decodes an array: the items are left for the caller, which
// decodes each into the element type.
func DecodeArray(v any) ([]any, error) {
	if a, ok := v.([]any); ok {
		return a, nil
	}
	return nil, &ArgError{Problem: "wrong type", Expected: "array", Got: describe(v)}
}

// DecodeArrayLen decodes an array of exactly n items, for a Go array type.
func DecodeArrayLen(v any, n int) ([]any, error) {
	a, err := DecodeArray(v)
	if err != nil {
		return nil, err
	}
	if len(a) != n {
		return nil, &ArgError{Problem: "wrong length", Expected: fmt.Sprintf("array of %d items", n), Got: describe(v)}
	}
	return a, nil
}

// DecodeObject decodes an object: a struct's fields or a map's entries,
// left for the caller to decode.
func DecodeObject(v any) (map[string]any, error) {
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	return nil, &ArgError{Problem: "wrong type", Expected: "object", Got: describe(v)}
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
	return decodePrefix(err, keyStep(key))
}

// ArgAtIndex puts an array index in front of err's path: `[2].name`.
func ArgAtIndex(err error, i int) error {
	return decodePrefix(err, indexStep(i))
}

// decodePrefix puts step in front of err's path. An error that is not an
// *ArgError becomes one, about step.
func decodePrefix(err error, step string) error {
	if err == nil {
		return nil
	}
	ae, ok := err.(*ArgError)
	if !ok {
		return &ArgError{Path: step, Problem: "invalid value", Err: err}
	}
	ae.Path = joinPath(step, ae.Path)
	return ae
}

// decodeTypeName names T as Go writes it ("int8", "tools.Mode"). Only
// messages use it, so the reflection inside fmt costs nothing on success.
func decodeTypeName[T any]() string {
	var zero T
	return fmt.Sprintf("%T", zero)
}

func wrongType(want string, v any, name func() string) *ArgError {
	return &ArgError{Problem: "wrong type", Expected: want + " (" + name() + ")", Got: describe(v)}
}

func decodeOutOfRange(v any, negMag, hi uint64, name func() string) *ArgError {
	return &ArgError{
		Problem:  "out of range",
		Expected: rangeText("integer ("+name()+")", negMag, hi),
		Got:      describe(v),
	}
}

package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Decode reads one JSON value with its numbers as json.Number, as a
// schema is compiled from (a number's exact digits matter to a bound
// such as multipleOf 0.01), and nothing after it.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

// number is v as an exact rational when it is a JSON number in any of
// the forms decoding makes (json.Number, float64, Go integers).
func number(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		return numberOf(string(x))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(x), true
	case float32:
		return number(float64(x))
	case int:
		return new(big.Rat).SetInt64(int64(x)), true
	case int8:
		return new(big.Rat).SetInt64(int64(x)), true
	case int16:
		return new(big.Rat).SetInt64(int64(x)), true
	case int32:
		return new(big.Rat).SetInt64(int64(x)), true
	case int64:
		return new(big.Rat).SetInt64(x), true
	case uint:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint8:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint16:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint32:
		return new(big.Rat).SetUint64(uint64(x)), true
	case uint64:
		return new(big.Rat).SetUint64(x), true
	case *big.Rat:
		return x, x != nil
	}
	return nil, false
}

// numberOf reads a JSON number exactly, unless its exponent or digits
// are so many that exactness would cost more than the number is worth
// (1e999999999 is a billion digits): then as the nearest float64, or as
// ±1e400 beyond float64's range.
func numberOf(s string) (*big.Rat, bool) {
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	e, err := strconv.Atoi(strings.TrimPrefix(exp, "+"))
	if !hasExp {
		e, err = 0, nil
	}
	if err == nil && e > -400 && e < 400 && len(mant) <= 400 {
		return new(big.Rat).SetString(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, false
	}
	if math.IsInf(f, 0) {
		r, _ := new(big.Rat).SetString("1e400")
		if f < 0 {
			r.Neg(r)
		}
		return r, true
	}
	return new(big.Rat).SetFloat64(f), true
}

// typeOf is the JSON type of v: null, boolean, number, string, array or
// object; "" for a Go value that is none of them.
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	if _, ok := number(v); ok {
		return "number"
	}
	return ""
}

// hasType reports whether v is of the JSON Schema type t, where an
// integer is a number without a fraction (1.0 is one).
func hasType(v any, t string) bool {
	got := typeOf(v)
	switch {
	case got == t:
		return true
	case t == "integer" && got == "number":
		r, _ := number(v)
		return r.IsInt()
	}
	return false
}

// equal compares two JSON values as JSON does: numbers by value, objects
// whatever the order of their members.
func equal(a, b any) bool {
	ra, aNum := number(a)
	rb, bNum := number(b)
	if aNum || bNum {
		return aNum && bNum && ra.Cmp(rb) == 0
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equal)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, vx := range x {
			vy, ok := y[k]
			if !ok || !equal(vx, vy) {
				return false
			}
		}
		return true
	case nil, bool, string:
		return a == b
	}
	return reflect.DeepEqual(a, b)
}

// display writes v short, for a message: a string quoted, a number as
// written, an object or array as "object" or "array".
func display(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case nil:
		return "null"
	}
	if r, ok := number(v); ok {
		return ratString(r)
	}
	return fmt.Sprint(v)
}

// ratString writes r as a short decimal: 0.1, 1e+400.
func ratString(r *big.Rat) string {
	if r.IsInt() && r.Num().IsInt64() {
		return r.Num().String()
	}
	return new(big.Float).SetPrec(64).SetRat(r).Text('g', -1)
}

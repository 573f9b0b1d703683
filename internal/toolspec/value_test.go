package toolspec

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// The helpers in value.go are exercised through Validate and the Decode
// functions too; these tests pin their edges, where both depend on them.

func TestAsInteger(t *testing.T) {
	t.Parallel()
	type result struct {
		Neg bool
		Mag uint64
		Res intResult
	}
	tests := []struct {
		name string
		in   any
		want result
	}{
		{"zero", 0.0, result{false, 0, isInteger}},
		{"negative zero", math.Copysign(0, -1), result{false, 0, isInteger}},
		{"integral float", -7.0, result{true, 7, isInteger}},
		{"least int64 as float", -0x1p63, result{true, 1 << 63, isInteger}},
		{"2^64 float", 0x1p64, result{false, 0, tooLarge}},
		{"below least int64", -0x1p64, result{true, 0, tooLarge}},
		{"fraction", 1.5, result{false, 0, notIntegral}},
		{"NaN", math.NaN(), result{false, 0, notIntegral}},
		{"+Inf", math.Inf(1), result{false, 0, tooLarge}},
		{"-Inf", math.Inf(-1), result{true, 0, tooLarge}},
		{"float32", float32(-3), result{true, 3, isInteger}},
		{"least int64", int64(math.MinInt64), result{true, 1 << 63, isInteger}},
		{"int8", int8(-128), result{true, 128, isInteger}},
		{"greatest uint64", uint64(math.MaxUint64), result{false, math.MaxUint64, isInteger}},
		{"uintptr", uintptr(5), result{false, 5, isInteger}},
		{"json.Number int", json.Number("-12"), result{true, 12, isInteger}},
		{"json.Number uint64", json.Number("18446744073709551615"), result{false, math.MaxUint64, isInteger}},
		{"json.Number beyond uint64", json.Number("18446744073709551616"), result{false, 0, tooLarge}},
		{"json.Number exponent", json.Number("1e3"), result{false, 1000, isInteger}},
		{"json.Number huge", json.Number("-1e400"), result{true, 0, tooLarge}},
		{"json.Number fraction", json.Number("2.5"), result{false, 0, notIntegral}},
		{"json.Number garbage", json.Number("x"), result{false, 0, notNumber}},
		{"string", "1", result{false, 0, notNumber}},
		{"null", nil, result{false, 0, notNumber}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got result
			got.Neg, got.Mag, got.Res = asInteger(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("asInteger(%#v) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestAsFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     any
		want   float64
		wantOK bool
	}{
		{"float64", 0.25, 0.25, true},
		{"int64", int64(-3), -3, true},
		{"uint8", uint8(200), 200, true},
		{"json.Number", json.Number("2.5"), 2.5, true},
		{"json.Number too large is infinite", json.Number("1e400"), math.Inf(1), true},
		{"json.Number garbage", json.Number("x"), 0, false},
		{"string", "1", 0, false},
		{"bool", true, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := asFloat(tt.in)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("asFloat(%#v) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestIntBoundsMatchSizes holds Validate, which knows a kind by its name,
// and the Decode functions, which know it by its size, to the same range.
func TestIntBoundsMatchSizes(t *testing.T) {
	t.Parallel()
	type bounds struct{ NegMag, Hi uint64 }
	sized := func(isSigned bool, size uintptr) bounds {
		var b bounds
		b.NegMag, b.Hi = intRange(isSigned, uint(size)*8)
		return b
	}
	tests := []struct {
		goType string
		want   bounds
	}{
		{"int8", sized(true, unsafe.Sizeof(int8(0)))},
		{"int16", sized(true, unsafe.Sizeof(int16(0)))},
		{"int32", sized(true, unsafe.Sizeof(int32(0)))},
		{"*rune", sized(true, unsafe.Sizeof(rune(0)))},
		{"int64", sized(true, unsafe.Sizeof(int64(0)))},
		{"int", sized(true, unsafe.Sizeof(int(0)))},
		{"tools.Level", sized(true, 8)},
		{"uint8", sized(false, unsafe.Sizeof(uint8(0)))},
		{"byte", sized(false, unsafe.Sizeof(byte(0)))},
		{"uint16", sized(false, unsafe.Sizeof(uint16(0)))},
		{"uint32", sized(false, unsafe.Sizeof(uint32(0)))},
		{"uint64", sized(false, unsafe.Sizeof(uint64(0)))},
		{"uint", sized(false, unsafe.Sizeof(uint(0)))},
		{"uintptr", sized(false, unsafe.Sizeof(uintptr(0)))},
	}
	for _, tt := range tests {
		var got bounds
		got.NegMag, got.Hi = intBounds(tt.goType)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("intBounds(%q) mismatch (-want +got):\n%s", tt.goType, diff)
		}
	}
	if lo, hi := intRange(true, 8); lo != 128 || hi != 127 {
		t.Errorf("intRange(signed, 8) = %d, %d; want 128, 127", lo, hi)
	}
	if lo, hi := intRange(false, 64); lo != 0 || hi != math.MaxUint64 {
		t.Errorf("intRange(unsigned, 64) = %d, %d; want 0, %d", lo, hi, uint64(math.MaxUint64))
	}
}

func TestRangeText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		what       string
		negMag, hi uint64
		want       string
	}{
		{"integer (int8)", 128, 127, "integer (int8) from -128 to 127"},
		{"integer (uint8)", 0, 255, "integer (uint8) from 0 to 255"},
		{"integer", 1 << 63, math.MaxUint64, "integer from -9223372036854775808 to 18446744073709551615"},
		{strings.Repeat("x", 100), 1, 2, strings.Repeat("x", 100) + " from -1 to 2"},
	}
	for _, tt := range tests {
		if got := rangeText(tt.what, tt.negMag, tt.hi); got != tt.want {
			t.Errorf("rangeText(%q, %d, %d) = %q, want %q", tt.what, tt.negMag, tt.hi, got, tt.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{nil, "null"},
		{true, "boolean true"},
		{"3", `string "3"`},
		{strings.Repeat("a", maxShown), `string "` + strings.Repeat("a", maxShown) + `"`},
		{strings.Repeat("a", maxShown+1), `string "` + strings.Repeat("a", maxShown) + `"… (61 bytes)`},
		// A cut inside a two-byte character backs off to its start.
		{strings.Repeat("a", maxShown-1) + "é", `string "` + strings.Repeat("a", maxShown-1) + `"… (61 bytes)`},
		{1.5, "number 1.5"},
		{1e6, "number 1000000"},
		{1e21, "number 1e+21"},
		{float32(0.1), "number 0.1"},
		{math.NaN(), "number NaN"},
		{json.Number("1e400"), "number 1e400"},
		{int8(-3), "number -3"},
		{uint64(math.MaxUint64), "number 18446744073709551615"},
		{[]any{1.0}, "array of 1 item"},
		{[]any{}, "array of 0 items"},
		{map[string]any{"a": 1.0}, "object"},
		{[]string{"x"}, "[]string value"},
	}
	for _, tt := range tests {
		if got := describe(tt.in); got != tt.want {
			t.Errorf("describe(%#v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPathSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		step, path, want string
	}{
		{"a", "", "a"},
		{"items", "[2].name", "items[2].name"},
		{"[2]", "name", "[2].name"},
		{"[0]", "[1]", "[0][1]"},
		{"m", `["a.b"].n`, `m["a.b"].n`},
		{keyStep("en"), "x", "en.x"},
		{keyStep("a b"), "", `["a b"]`},
		{keyStep(""), "", `[""]`},
		{keyStep("1a"), "", `["1a"]`},
		{keyStep("a1_-"), "", "a1_-"},
		{keyStep("é"), "", `["é"]`},
		{indexStep(12), "x", "[12].x"},
	}
	for _, tt := range tests {
		if got := joinPath(tt.step, tt.path); got != tt.want {
			t.Errorf("joinPath(%q, %q) = %q, want %q", tt.step, tt.path, got, tt.want)
		}
	}
}

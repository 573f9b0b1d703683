package toolspec

import (
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type level int8

type mode string

// decodeCase is one value through one decoder: the value wanted, or the
// error's message.
type decodeCase struct {
	name    string
	decode  func(any) (any, error)
	in      any
	want    any
	wantErr string
}

func wrap[T any](f func(any) (T, error)) func(any) (any, error) {
	return func(v any) (any, error) {
		t, err := f(v)
		return t, err
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	tests := []decodeCase{
		{name: "string", decode: wrap(DecodeString[string]), in: "héllo", want: "héllo"},
		{name: "named string", decode: wrap(DecodeString[mode]), in: "fast", want: mode("fast")},
		{name: "string from number", decode: wrap(DecodeString[string]), in: 3.0, wantErr: "args.: wrong type: expected string (string), got number 3"},
		{name: "string from null", decode: wrap(DecodeString[string]), in: nil, wantErr: "args.: wrong type: expected string (string), got null"},
		{name: "bool", decode: wrap(DecodeBool[bool]), in: true, want: true},
		{name: "bool from string", decode: wrap(DecodeBool[bool]), in: "true", wantErr: `args.: wrong type: expected boolean (bool), got string "true"`},

		{name: "int from float64", decode: wrap(DecodeInt[int]), in: 42.0, want: 42},
		{name: "int from negative float64", decode: wrap(DecodeInt[int]), in: -7.0, want: -7},
		{name: "int from int64", decode: wrap(DecodeInt[int]), in: int64(-3), want: -3},
		{name: "int from uint64", decode: wrap(DecodeInt[int]), in: uint64(9), want: 9},
		{name: "int from int8", decode: wrap(DecodeInt[int]), in: int8(-9), want: -9},
		{name: "int from float32", decode: wrap(DecodeInt[int]), in: float32(5), want: 5},
		{name: "int from json.Number", decode: wrap(DecodeInt[int]), in: json.Number("123"), want: 123},
		{name: "int from json.Number float", decode: wrap(DecodeInt[int]), in: json.Number("1e3"), want: 1000},
		{name: "int from fraction", decode: wrap(DecodeInt[int]), in: 1.5, wantErr: "args.: wrong type: expected integer (int), got number 1.5"},
		{name: "int from json.Number fraction", decode: wrap(DecodeInt[int]), in: json.Number("1.5"), wantErr: "args.: wrong type: expected integer (int), got number 1.5"},
		{name: "int from NaN", decode: wrap(DecodeInt[int]), in: math.NaN(), wantErr: "args.: wrong type: expected integer (int), got number NaN"},
		{name: "int from string", decode: wrap(DecodeInt[int]), in: "1", wantErr: `args.: wrong type: expected integer (int), got string "1"`},
		{name: "int from bool", decode: wrap(DecodeInt[int]), in: true, wantErr: "args.: wrong type: expected integer (int), got boolean true"},
		{name: "int64 max", decode: wrap(DecodeInt[int64]), in: int64(math.MaxInt64), want: int64(math.MaxInt64)},
		{name: "int64 min", decode: wrap(DecodeInt[int64]), in: int64(math.MinInt64), want: int64(math.MinInt64)},
		{name: "int64 min from float", decode: wrap(DecodeInt[int64]), in: -0x1p63, want: int64(math.MinInt64)},
		{name: "int64 from 2^63 float", decode: wrap(DecodeInt[int64]), in: 0x1p63, wantErr: "args.: out of range: expected integer (int64) from -9223372036854775808 to 9223372036854775807, got number 9223372036854776000"},
		{name: "int64 from uint64 max", decode: wrap(DecodeInt[int64]), in: uint64(math.MaxUint64), wantErr: "args.: out of range: expected integer (int64) from -9223372036854775808 to 9223372036854775807, got number 18446744073709551615"},
		{name: "int64 from huge json.Number", decode: wrap(DecodeInt[int64]), in: json.Number("1e400"), wantErr: "args.: out of range: expected integer (int64) from -9223372036854775808 to 9223372036854775807, got number 1e400"},
		{name: "int64 from infinity", decode: wrap(DecodeInt[int64]), in: math.Inf(-1), wantErr: "args.: out of range: expected integer (int64) from -9223372036854775808 to 9223372036854775807, got number -Inf"},
		{name: "int8 max", decode: wrap(DecodeInt[int8]), in: 127.0, want: int8(127)},
		{name: "int8 min", decode: wrap(DecodeInt[int8]), in: -128.0, want: int8(-128)},
		{name: "int8 over", decode: wrap(DecodeInt[int8]), in: 128.0, wantErr: "args.: out of range: expected integer (int8) from -128 to 127, got number 128"},
		{name: "int8 under from int64", decode: wrap(DecodeInt[int8]), in: int64(-129), wantErr: "args.: out of range: expected integer (int8) from -128 to 127, got number -129"},
		{name: "named int8", decode: wrap(DecodeInt[level]), in: 3.0, want: level(3)},
		{name: "named int8 over", decode: wrap(DecodeInt[level]), in: 300.0, wantErr: "args.: out of range: expected integer (toolspec.level) from -128 to 127, got number 300"},
		{name: "int32 over from int", decode: wrap(DecodeInt[int32]), in: int(1 << 40), wantErr: "args.: out of range: expected integer (int32) from -2147483648 to 2147483647, got number 1099511627776"},

		{name: "uint8", decode: wrap(DecodeUint[uint8]), in: 255.0, want: uint8(255)},
		{name: "uint8 over", decode: wrap(DecodeUint[uint8]), in: 256.0, wantErr: "args.: out of range: expected integer (uint8) from 0 to 255, got number 256"},
		{name: "uint negative", decode: wrap(DecodeUint[uint]), in: -1.0, wantErr: "args.: out of range: expected integer (uint) from 0 to 18446744073709551615, got number -1"},
		{name: "uint negative int64", decode: wrap(DecodeUint[uint64]), in: int64(-1), wantErr: "args.: out of range: expected integer (uint64) from 0 to 18446744073709551615, got number -1"},
		{name: "uint64 max", decode: wrap(DecodeUint[uint64]), in: uint64(math.MaxUint64), want: uint64(math.MaxUint64)},
		{name: "uint64 max json.Number", decode: wrap(DecodeUint[uint64]), in: json.Number("18446744073709551615"), want: uint64(math.MaxUint64)},
		{name: "uint64 from 2^64 float", decode: wrap(DecodeUint[uint64]), in: 0x1p64, wantErr: "args.: out of range: expected integer (uint64) from 0 to 18446744073709551615, got number 18446744073709552000"},
		{name: "uint from fraction", decode: wrap(DecodeUint[uint]), in: 0.5, wantErr: "args.: wrong type: expected integer (uint), got number 0.5"},
		{name: "uintptr", decode: wrap(DecodeUint[uintptr]), in: 8.0, want: uintptr(8)},

		{name: "float64", decode: wrap(DecodeFloat[float64]), in: 0.25, want: 0.25},
		{name: "float64 from int64", decode: wrap(DecodeFloat[float64]), in: int64(3), want: 3.0},
		{name: "float64 from json.Number", decode: wrap(DecodeFloat[float64]), in: json.Number("2.5"), want: 2.5},
		{name: "float32", decode: wrap(DecodeFloat[float32]), in: 1.5, want: float32(1.5)},
		{name: "float32 over", decode: wrap(DecodeFloat[float32]), in: 1e39, wantErr: "args.: out of range: expected a finite number (float32), got number 1e+39"},
		{name: "float64 NaN", decode: wrap(DecodeFloat[float64]), in: math.NaN(), wantErr: "args.: out of range: expected a finite number (float64), got number NaN"},
		{name: "float64 from bad json.Number", decode: wrap(DecodeFloat[float64]), in: json.Number("x"), wantErr: "args.: wrong type: expected number (float64), got number x"},
		{name: "float64 from string", decode: wrap(DecodeFloat[float64]), in: "1", wantErr: `args.: wrong type: expected number (float64), got string "1"`},

		{name: "enum", decode: wrap(func(v any) (mode, error) { return DecodeEnum[mode](v, []string{"fast", "slow"}) }), in: "slow", want: mode("slow")},
		{name: "enum miss", decode: wrap(func(v any) (mode, error) { return DecodeEnum[mode](v, []string{"fast", "slow"}) }), in: "fas", wantErr: `args.: not one of the allowed values: expected one of "fast", "slow", got string "fas" (did you mean "fast"?)`},
		{name: "enum wrong type", decode: wrap(func(v any) (mode, error) { return DecodeEnum[mode](v, []string{"fast"}) }), in: 1.0, wantErr: "args.: wrong type: expected string (toolspec.mode), got number 1"},

		{name: "array", decode: wrap(DecodeArray), in: []any{1.0, "x"}, want: []any{1.0, "x"}},
		{name: "array from object", decode: wrap(DecodeArray), in: map[string]any{}, wantErr: "args.: wrong type: expected array, got object"},
		{name: "array len", decode: wrap(func(v any) ([]any, error) { return DecodeArrayLen(v, 2) }), in: []any{1.0, 2.0}, want: []any{1.0, 2.0}},
		{name: "array len wrong", decode: wrap(func(v any) ([]any, error) { return DecodeArrayLen(v, 2) }), in: []any{1.0}, wantErr: "args.: wrong length: expected array of 2 items, got array of 1 item"},
		{name: "object", decode: wrap(DecodeObject), in: map[string]any{"a": 1.0}, want: map[string]any{"a": 1.0}},
		{name: "object from array", decode: wrap(DecodeObject), in: []any{}, wantErr: "args.: wrong type: expected object, got array of 0 items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.decode(tt.in)
			if tt.wantErr != "" {
				if err == nil {
					t.Fatalf("decode(%#v) = %#v, want error %q", tt.in, got, tt.wantErr)
				}
				var ae *ArgError
				if !errors.As(err, &ae) {
					t.Fatalf("error %T is not an *ArgError", err)
				}
				if diff := cmp.Diff(tt.wantErr, err.Error()); diff != "" {
					t.Errorf("error mismatch (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("decode(%#v): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecodeLongString(t *testing.T) {
	t.Parallel()
	long := ""
	for range 40 {
		long += "é"
	}
	_, err := DecodeInt[int](long)
	want := `args.: wrong type: expected integer (int), got string "éééééééééééééééééééééééééééééé"… (80 bytes)`
	if diff := cmp.Diff(want, err.Error()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestArgPaths(t *testing.T) {
	t.Parallel()
	leaf := func() error { _, err := DecodeInt[int]("x"); return err }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"param", ArgAt(leaf(), "a"), "a"},
		{"field of item", ArgAt(ArgAtIndex(ArgAt(leaf(), "name"), 2), "items"), "items[2].name"},
		{"nested index", ArgAt(ArgAtIndex(ArgAtIndex(leaf(), 1), 0), "grid"), "grid[0][1]"},
		{"plain key", ArgAt(ArgAtKey(leaf(), "en"), "labels"), "labels.en"},
		{"odd key", ArgAt(ArgAtKey(leaf(), "a b"), "labels"), `labels["a b"]`},
		{"field under odd key", ArgAt(ArgAtKey(ArgAt(leaf(), "n"), "a.b"), "m"), `m["a.b"].n`},
		{"missing field", ArgAt(ArgAtIndex(MissingField("name"), 0), "items"), "items[0].name"},
		{"foreign error", ArgAt(errors.New("boom"), "a"), "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ae *ArgError
			if !errors.As(tt.err, &ae) {
				t.Fatalf("%T is not an *ArgError", tt.err)
			}
			if diff := cmp.Diff(tt.want, ae.Path); diff != "" {
				t.Errorf("path mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if ArgAt(nil, "a") != nil || ArgAtIndex(nil, 1) != nil || ArgAtKey(nil, "k") != nil {
		t.Error("a nil error must stay nil")
	}
}

// TestDecodeAllocs holds the hot path to its promise: decoding JSON's and
// YAML's numbers, strings and booleans allocates nothing.
func TestDecodeAllocs(t *testing.T) {
	var args = map[string]any{"a": 1.0, "b": int64(2), "s": "x", "t": true}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := DecodeInt[int](args["a"]); err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeInt[int32](args["b"]); err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeUint[uint16](args["a"]); err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeFloat[float64](args["a"]); err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeString[string](args["s"]); err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeBool[bool](args["t"]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("decoding allocated %v times, want 0", allocs)
	}
}

func BenchmarkDecodeInt(b *testing.B) {
	var v any = 12345.0
	for b.Loop() {
		if _, err := DecodeInt[int](v); err != nil {
			b.Fatal(err)
		}
	}
}

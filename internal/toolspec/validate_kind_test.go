package toolspec

import (
	"encoding/json"
	"strings"
	"testing"
)

// A named integer type is bounded by its underlying kind, not by its name.
func TestValidateNamedIntegerKind(t *testing.T) {
	t.Parallel()
	s := &testSpec{Name: "t", Params: []*Property{{
		Name: "level", Required: true,
		Schema: &Schema{Type: TypeInteger, GoType: "tools.Level", Kind: "int8"},
	}}}
	if err := s.Validate(map[string]any{"level": float64(127)}); err != nil {
		t.Fatalf("127 fits int8: %v", err)
	}
	err := s.Validate(map[string]any{"level": float64(300)})
	if err == nil || !strings.Contains(err.Error(), "out of range") || !strings.Contains(err.Error(), "to 127") {
		t.Fatalf("300 for an int8 kind: got %v, want out of range up to 127", err)
	}
	if in := string(s.InputSchema()); !strings.Contains(in, `"maximum":127`) {
		t.Errorf("schema of an int8 kind has no maximum 127: %s", in)
	}
}

// Validate and the generated decoder agree on float32's edge: what rounds
// to a finite float32 fits.
func TestValidateFloat32Edge(t *testing.T) {
	t.Parallel()
	s := &testSpec{Name: "t", Params: []*Property{{
		Name: "x", Required: true,
		Schema: &Schema{Type: TypeNumber, GoType: "float32", Kind: "float32"},
	}}}
	for _, v := range []float64{3.4028235e38, -3.4028235e38, 1.5} {
		if err := s.Validate(map[string]any{"x": v}); err != nil {
			t.Errorf("Validate(%v): %v", v, err)
		}
		if _, err := DecodeFloat[float32](v); err != nil {
			t.Errorf("DecodeFloat(%v): %v", v, err)
		}
	}
	for _, v := range []float64{3.5e38, -1e39} {
		if err := s.Validate(map[string]any{"x": v}); err == nil {
			t.Errorf("Validate(%v) = nil, want out of range", v)
		}
		if _, err := DecodeFloat[float32](v); err == nil {
			t.Errorf("DecodeFloat(%v) = nil error, want out of range", v)
		}
	}
}

// An integer literal beyond int64 or uint64 is out of range, never rounded
// into range through a float.
func TestValidateIntegerLiteralBeyondRange(t *testing.T) {
	t.Parallel()
	s := &testSpec{Name: "t", Params: []*Property{{
		Name: "n", Required: true,
		Schema: &Schema{Type: TypeInteger, GoType: "int64", Kind: "int64"},
	}}}
	for _, lit := range []string{"-9223372036854775809", "18446744073709551616", "-99999999999999999999"} {
		err := s.Validate(map[string]any{"n": json.Number(lit)})
		if err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("Validate(%s) = %v, want out of range", lit, err)
		}
	}
	if err := s.Validate(map[string]any{"n": json.Number("-9223372036854775808")}); err != nil {
		t.Errorf("Validate(MinInt64) = %v", err)
	}
}

// The suggestion for an unknown argument is one that was not given.
func TestValidateSuggestsFreeName(t *testing.T) {
	t.Parallel()
	s := &testSpec{Name: "calculate_sum", Params: []*Property{
		{Name: "a", Required: true, Schema: &Schema{Type: TypeInteger, GoType: "int", Kind: "int"}},
		{Name: "b", Required: true, Schema: &Schema{Type: TypeInteger, GoType: "int", Kind: "int"}},
	}}
	err := s.Validate(map[string]any{"a": float64(1), "c": float64(2)})
	if err == nil || !strings.Contains(err.Error(), `args.c: unknown argument: expected one of a, b (did you mean "b"?)`) {
		t.Errorf("got %v, want a suggestion of b for c", err)
	}
}

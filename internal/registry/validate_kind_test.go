package registry

import (
	"strings"
	"testing"
)

// A named integer type is bounded by its underlying kind, not by its name.
func TestValidateNamedIntegerKind(t *testing.T) {
	t.Parallel()
	s := &Spec{Name: "t", Params: []*Property{{
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

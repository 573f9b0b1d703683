package registry

import (
	"context"
	"testing"
)

func TestSuggest(t *testing.T) {
	t.Parallel()
	names := []string{"calculate_sum", "read_file", "write_file", "name", "fast"}
	tests := []struct {
		got, want string
	}{
		{"calculate_summ", "calculate_sum"},
		{"Calculate_Sum", "calculate_sum"},
		{"read_fil", "read_file"},
		{"nmae", "name"},
		{"fsat", "fast"},
		{"path", ""},
		{"", ""},
		{"completely_different", ""},
	}
	for _, tt := range tests {
		if got := Suggest(tt.got, names); got != tt.want {
			t.Errorf("Suggest(%q) = %q, want %q", tt.got, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"ab", "ba", 1},
		{"name", "nmae", 1},
		{"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestUnknownToolMessage(t *testing.T) {
	t.Parallel()
	r := New()
	call := func(context.Context, *ToolContext, map[string]any) (any, error) { return nil, nil }
	r.MustRegister(&Spec{Name: "calculate_sum", Call: call})
	for name, want := range map[string]string{
		"calculate_summ": `unknown tool "calculate_summ"; did you mean "calculate_sum"? known tools: calculate_sum`,
		"nope":           `unknown tool "nope"; known tools: calculate_sum`,
	} {
		if got := r.UnknownTool(name).Error(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

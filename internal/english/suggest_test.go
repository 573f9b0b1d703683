package english

import (
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

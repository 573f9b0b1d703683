package app

import (
	"testing"
	"unicode/utf8"
)

func TestArgsLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		limit int
		want  string
	}{
		{in: `{"a": 1,` + "\n" + ` "b": 2}`, limit: 200, want: `{"a": 1, "b": 2}`},
		{in: `{"path":"abcdef"}`, limit: 8, want: `{"path":…`},
		// "é" is two bytes: the cut does not split it.
		{in: `{"q":"éé"}`, limit: 8, want: `{"q":"é…`},
		{in: `{"q":"éé"}`, limit: 7, want: `{"q":"…`},
	}
	for _, tt := range tests {
		got := argsLine(tt.in, tt.limit)
		if got != tt.want {
			t.Errorf("argsLine(%q, %d) = %q, want %q", tt.in, tt.limit, got, tt.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("argsLine(%q, %d) = %q is not UTF-8", tt.in, tt.limit, got)
		}
	}
}

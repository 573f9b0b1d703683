package tooldoc

import (
	"testing"
)

func TestSummary(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Adds two integers. More.", "Adds two integers."},
		{"Adds two integers.", "Adds two integers."},
		{"Reads a file, e.g. a log. More.", "Reads a file, e.g. a log."},
		{"Sleeps (i.e. waits). More.", "Sleeps (i.e. waits)."},
		{"Greets J. Doe. More.", "Greets J. Doe."},
		{"Is it v1.2? Yes.", "Is it v1.2?"},
		{"Stops! Now.", "Stops!"},
		{"计算两个整数的和。第二句。", "计算两个整数的和。"},
		{"No full stop at all", "No full stop at all"},
		{"It can:\n- walk", "It can:"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			if got := Summary(tt.in); got != tt.want {
				t.Errorf("Summary(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

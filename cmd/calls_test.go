package cmd

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kesoku/kesoku/internal/notice"
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

// TestTeller: cmd alone decides what of the notices below reaches the
// terminal: -q holds back warnings, only -v lets through what is going
// on, errors always go out; each is a "kesoku: " line, escaped.
func TestTeller(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		quiet, verbose bool
		want           string
	}{
		{false, false, "kesoku: warn \\x1b[2J\nkesoku: failed\n"},
		{true, false, "kesoku: failed\n"},
		{false, true, "kesoku: going on\nkesoku: warn \\x1b[2J\nkesoku: failed\n"},
		{true, true, "kesoku: going on\nkesoku: failed\n"},
	} {
		var b strings.Builder
		tell := &teller{w: &b, quiet: tt.quiet, verbose: tt.verbose}
		tell.Tell(notice.Info, "going on")
		tell.Tell(notice.Warning, "warn \x1b[2J")
		tell.Tell(notice.Error, "failed")
		if b.String() != tt.want {
			t.Errorf("-q %v -v %v: %q, want %q", tt.quiet, tt.verbose, b.String(), tt.want)
		}
	}
}

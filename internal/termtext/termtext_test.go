package termtext

import (
	"testing"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want, lines string }{
		{"plain text, with spaces", "plain text, with spaces", ""},
		{"日本語 ok — café", "日本語 ok — café", ""},
		{`C:\Users\me`, `C:\Users\me`, ""},
		{"a\x1b[2Kb", `a\x1b[2Kb`, ""},
		{"name\nkesoku: forged", `name\nkesoku: forged`, "name\nkesoku: forged"},
		{"tab\there", `tab\there`, "tab\there"},
		{"tag \U000e0041 plane 14", `tag \U000e0041 plane 14`, ""},
		{"cr\roverwrite", `cr\roverwrite`, ""},
		{"bell\a del\x7f", `bell\x07 del\x7f`, ""},
		{"c1 \u009b31m", `c1 \u009b31m`, ""},
		{"rlo \u202eexe.txt", `rlo \u202eexe.txt`, ""},
		{"bad \xff utf8", `bad \xff utf8`, ""},
		// A backslash beside an escape is doubled, so that the two cannot be
		// told apart otherwise.
		{`lit \x1b` + "\x1b", `lit \\x1b\x1b`, ""},
		{`lit \n` + "\n", `lit \\n\n`, "lit \\n\n"},
		{"", "", ""},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		want := tt.lines
		if want == "" {
			want = tt.want
		}
		if got := Lines(tt.in); got != want {
			t.Errorf("Lines(%q) = %q, want %q", tt.in, got, want)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a\x1b[31mb", "x\ny", "\xff\xfe", "\u202e", `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Escape(s), Lines(s)} {
			for i := 0; i < len(out); i++ {
				c := out[i]
				if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
					t.Fatalf("Escape(%q) = %q holds control byte %#x", s, out, c)
				}
			}
		}
		if out := Escape(s); len(out) < len(s) {
			t.Fatalf("Escape(%q) = %q lost text", s, out)
		}
	})
}

package jsonlex

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzAppendString holds AppendString to encoding/json: the same string
// for every literal encoding/json takes, an error for every one it
// refuses.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{
		`"plain"`, `"a\"b\\c\/d\b\f\n\r\t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`,
		`"\ud83d"`, `"\ude00\ud83d"`, `"\ud83dx"`, `"\ud83d\u0041"`, "\"\xff\xfe\"",
		`"\x"`, `"\u12"`, `"\u12g4"`, "\"a\x01\"", `"unterminated`, `"\`, `"é"`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		if len(lit) == 0 || lit[0] != '"' {
			return
		}
		var want string
		wantErr := json.Unmarshal([]byte(lit), &want)
		got, next, err := AppendString(nil, []byte(lit), 1)
		if wantErr != nil {
			// encoding/json also refuses what follows the literal; only a
			// literal that ends the text is comparable.
			if err == nil && next == len(lit) {
				t.Errorf("AppendString(%q) = %q, want an error like %v", lit, got, wantErr)
			}
			return
		}
		if err != nil {
			t.Fatalf("AppendString(%q): %v; encoding/json took it as %q", lit, err, want)
		}
		if string(got) != want || strings.TrimLeft(lit[next:], " \t\r\n") != "" {
			t.Errorf("AppendString(%q) = %q, next %d; want %q, and only space after", lit, got, next, want)
		}
	})
}

func TestSyntaxErrorOffsets(t *testing.T) {
	tests := []struct {
		lit string
		off int
		msg string
	}{
		{`"a\x"`, 3, `invalid character 'x' in string escape code`},
		{"\"a\x01\"", 2, `invalid character '\x01' in string literal`},
		{`"\u12g4"`, 3, `invalid character in \u hexadecimal character escape`},
		{`"abc`, 4, `unexpected end of JSON input`},
		{`"abc\`, 5, `unexpected end of JSON input`},
	}
	for _, tt := range tests {
		_, _, err := AppendString(nil, []byte(tt.lit), 1)
		if err == nil || err.Off != tt.off || err.Msg != tt.msg {
			t.Errorf("AppendString(%q) error = %+v, want {Off:%d Msg:%s}", tt.lit, err, tt.off, tt.msg)
		}
	}
}

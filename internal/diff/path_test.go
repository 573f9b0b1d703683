package diff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Path
		str  string // String of the parsed path, when it differs from in
	}{
		{in: ".", want: Path{}},
		{in: "", want: Path{}, str: "."},
		{in: ".content", want: Path{keyStep("content")}},
		{in: ".content.modified", want: Path{keyStep("content"), keyStep("modified")}},
		{in: ".content.items[3].name", want: Path{keyStep("content"), keyStep("items"), indexStep(3), keyStep("name")}},
		{in: ".content.items[].mtime", want: Path{keyStep("content"), keyStep("items"), {Kind: EachStep}, keyStep("mtime")}},
		{in: `.content["a key"]`, want: Path{keyStep("content"), keyStep("a key")}},
		{in: `.content.["a.b"]`, want: Path{keyStep("content"), keyStep("a.b")}, str: `.content["a.b"]`},
		{in: `.content["x"]`, want: Path{keyStep("content"), keyStep("x")}, str: ".content.x"},
		{in: `.content["tab\there \"q\""]`, want: Path{keyStep("content"), keyStep("tab\there \"q\"")}},
		{in: `.content[""]`, want: Path{keyStep("content"), keyStep("")}},
		{in: `.content["9lives"]`, want: Path{keyStep("content"), keyStep("9lives")}},
		{in: ".content[0][1]", want: Path{keyStep("content"), indexStep(0), indexStep(1)}},
		{in: "[0]", want: Path{indexStep(0)}},
		{in: ".a_b.C9", want: Path{keyStep("a_b"), keyStep("C9")}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePath(tt.in)
			if err != nil {
				t.Fatalf("ParsePath(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParsePath(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			str := tt.str
			if str == "" {
				str = tt.in
			}
			if s := got.String(); s != str {
				t.Errorf("String() = %q, want %q", s, str)
			}
		})
	}
}

func TestParsePathErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"content", `a path starts with "." or "["`},
		{".content.", `at 10: a name must follow "."`},
		{"..a", `at 2: a name must follow "."`},
		{".content.9", `at 10: a name must follow "."`},
		{".content-x", `at 9: unexpected '-'`},
		{".a[", `at 3: "[" is not closed`},
		{".a[x]", `at 3: [x]: an index is a whole number from 0, a key is quoted`},
		{".a[-1]", `at 3: [-1]: an index`},
		{".a[01]", `at 3: [01]: an index`},
		{".a[+1]", `at 3: [+1]: an index`},
		{`.a["x]`, `at 3: a quoted key is not closed`},
		{`.a["x"`, `at 3: a quoted key must be followed by "]"`},
		{`.a["\q"]`, `at 3: bad quoted key`},
		{".a b", `at 3: unexpected ' '`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			_, err := ParsePath(tt.in)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("ParsePath(%q) = %v, want an error starting %q", tt.in, err, tt.want)
			}
		})
	}
}

// FuzzParsePath holds ParsePath and String to each other: what parses
// prints as a path that parses back to the same steps, and nothing
// panics.
func FuzzParsePath(f *testing.F) {
	for _, s := range []string{".", ".content.a[0]", `.content["a b"][]`, `.["\u00e9"]`, ".a[99999999999999999999]", `["\xff"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePath(s)
		if err != nil {
			return
		}
		q, err := ParsePath(p.String())
		if err != nil {
			t.Fatalf("ParsePath(%q).String() = %q, which does not parse: %v", s, p.String(), err)
		}
		if diff := cmp.Diff(p, q); diff != "" {
			t.Fatalf("path %q printed as %q parses differently (-first +again):\n%s", s, p.String(), diff)
		}
	})
}

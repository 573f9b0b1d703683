package yamlpos

import (
	"slices"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/ast"
)

func TestPos(t *testing.T) {
	for _, tc := range []struct {
		p          Pos
		str, where string
	}{
		{Pos{}, "", "msg"},
		{Pos{File: "a.yaml"}, "a.yaml", "a.yaml: msg"},
		{Pos{File: "a.yaml", Line: 3}, "a.yaml:3", "a.yaml:3: msg"},
		{Pos{File: "a.yaml", Line: 3, Col: 7}, "a.yaml:3:7", "a.yaml:3:7: msg"},
	} {
		if got := tc.p.String(); got != tc.str {
			t.Errorf("%#v.String() = %q, want %q", tc.p, got, tc.str)
		}
		if got := tc.p.Prefix("msg"); got != tc.where {
			t.Errorf("%#v.Prefix = %q, want %q", tc.p, got, tc.where)
		}
	}
}

// TestLexBounds: nesting beyond the bounds is refused at the token that
// goes too deep, before the parser sees it; within them, it is parsed.
func TestLexBounds(t *testing.T) {
	b := Bounds{Depth: 4, Column: 8}
	for _, tc := range []struct {
		text, err string
		line, col int
	}{
		{"a: [[[[x]]]]\n", "", 0, 0},
		{"a: [[[[[x]]]]]\n", "invalid YAML: nesting deeper than 4 levels", 1, 8},
		{"a:\n  - - - x\n", "", 0, 0},
		{"a:\n  - - - - x\n", "invalid YAML: nesting deeper than 8 columns of indentation", 2, 9},
	} {
		tokens, err := Lex(tc.text, b)
		if tc.err == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.text, err)
				continue
			}
			if _, err := Parse(tokens); err != nil {
				t.Errorf("%q: parse: %v", tc.text, err)
			}
			continue
		}
		ye, ok := err.(*Error)
		if !ok || ye.Msg != tc.err {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.err)
			continue
		}
		if p := At("f", ye.Token); p.Line != tc.line || p.Col != tc.col {
			t.Errorf("%q: error at %s, want f:%d:%d", tc.text, p, tc.line, tc.col)
		}
	}
}

// TestParse: documents of only comments are left out, the bodies are
// looked through comments, and a syntax error is an Error at its token.
func TestParse(t *testing.T) {
	tokens, err := Lex("# only a comment\n---\na: 1 # a comment\n---\n- x\n", Bounds{Depth: 10, Column: 10})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := Parse(tokens)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("%d documents, want 2", len(docs))
	}
	if m := Mapping(docs[0].Body); m == nil || len(m.Values) != 1 {
		t.Errorf("first body %T, want a mapping of one key", docs[0].Body)
	}
	if _, ok := docs[1].Body.(*ast.SequenceNode); !ok {
		t.Errorf("second body %T, want a list", docs[1].Body)
	}

	tokens, err = Lex("a: [1, 2\n", Bounds{Depth: 10, Column: 10})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(tokens)
	ye, ok := err.(*Error)
	if !ok || !strings.HasPrefix(ye.Msg, "invalid YAML: ") || ye.Token == nil {
		t.Errorf("an unclosed list: %#v, want an Error at a token", err)
	}
}

func TestScalarTextAndKind(t *testing.T) {
	tokens, err := Lex("s: hi\nq: 'x y'\nn: 12\nf: .inf\nb: true\nz: ~\nl: [1]\nm: {a: 1}\nt: |\n  lit\n", Bounds{Depth: 10, Column: 10})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := Parse(tokens)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		text string
		ok   bool
		kind string
	}{
		"s": {"hi", true, "a string"},
		"q": {"x y", true, "a string"},
		"n": {"12", true, "a number"},
		"f": {".inf", true, "a number"},
		"b": {"true", true, "a boolean"},
		"z": {"~", true, "nothing"},
		"l": {"", false, "a list"},
		"m": {"", false, "a mapping"},
		"t": {"lit\n", true, "a string"},
	}
	for _, mv := range Mapping(docs[0].Body).Values {
		key, ok := ScalarText(mv.Key)
		if !ok {
			t.Fatalf("key %v is no scalar", mv.Key)
		}
		w := want[key]
		text, ok := ScalarText(mv.Value)
		if text != w.text || ok != w.ok {
			t.Errorf("%s: ScalarText = %q, %v; want %q, %v", key, text, ok, w.text, w.ok)
		}
		if got := KindOf(mv.Value); got != w.kind {
			t.Errorf("%s: KindOf = %q, want %q", key, got, w.kind)
		}
		if p := Of("f", mv.Value); p.Line == 0 || p.File != "f" {
			t.Errorf("%s: at %s, want a line of f", key, p)
		}
	}
	if got := KindOf(nil); got != "nothing" {
		t.Errorf("KindOf(nil) = %q", got)
	}
	if p := Of("f", nil); p != (Pos{File: "f"}) {
		t.Errorf("Of(nil) = %#v", p)
	}
}

// TestParseTab: a tab where YAML wants indentation is called a tab, with
// what to do, at the tab's place; no raw tab in the words (it shows as
// blank space).
func TestParseTab(t *testing.T) {
	for _, src := range []string{
		"- tool: x\n  args:\n\ta: 1\n",
		"a: 1\n\tb: 2\n",
		"a: 'x\n\ty'\n",
		"a: \"x\n\ty\"\n",
	} {
		tokens, err := Lex(src, Bounds{Depth: 10, Column: 10})
		if err == nil {
			_, err = Parse(tokens)
		}
		ye, ok := err.(*Error)
		if !ok || ye.Token == nil {
			t.Errorf("%q: %#v, want an Error at a token", src, err)
			continue
		}
		if strings.Contains(ye.Msg, "\t") || !strings.Contains(ye.Msg, "tab") || !strings.Contains(ye.Msg, "indent with spaces") {
			t.Errorf("%q: %q, want it to say tab and to indent with spaces, with no raw tab", src, ye.Msg)
		}
		line := strings.Count(src[:strings.IndexByte(src, '\t')], "\n") + 1
		if p := ye.Token.Position; p.Line != line || p.Column != 1 {
			t.Errorf("%q: at %d:%d, want the tab's place %d:1", src, p.Line, p.Column, line)
		}
	}
}

// TestParseEmptyDocuments: a document that holds nothing, or only
// comments, loses none of the documents after it (goccy/go-yaml drops
// them after two headers in a row).
func TestParseEmptyDocuments(t *testing.T) {
	for text, want := range map[string][]int{
		"a: 1\n---\n# commented out\n---\nb: 2\n": {1, 5},
		"---\n---\na: 1\n":                        {3},
		"a: 1\n---\n---\n---\nb: 2\n---\n":        {1, 5},
		"---\n# c\n---   # c\n---\n- x\n...\n":    {5},
	} {
		tokens, err := Lex(text, Bounds{Depth: 10, Column: 10})
		if err != nil {
			t.Fatal(err)
		}
		docs, err := Parse(tokens)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		var lines []int
		for _, d := range docs {
			lines = append(lines, d.Body.GetToken().Position.Line)
		}
		if !slices.Equal(lines, want) {
			t.Errorf("%q: documents at lines %v, want %v", text, lines, want)
		}
	}
}

// TestLexCRLF: a CRLF is one line break, inside a quoted scalar too, and
// the text reads as it does with LF alone.
func TestLexCRLF(t *testing.T) {
	for _, text := range []string{"\"a\r\nb\"\r\nc: 0", "'a\r\nb'\r\nc: 0"} {
		crlf, err := Lex(text, Bounds{Depth: 8, Column: 8})
		if err != nil {
			t.Fatal(err)
		}
		lf, err := Lex(strings.ReplaceAll(text, "\r\n", "\n"), Bounds{Depth: 8, Column: 8})
		if err != nil {
			t.Fatal(err)
		}
		if len(crlf) != len(lf) {
			t.Fatalf("%q: %d tokens, %d with LF", text, len(crlf), len(lf))
		}
		for i := range crlf {
			if c, l := crlf[i], lf[i]; c.Value != l.Value || c.Position.Line != l.Position.Line || c.Position.Column != l.Position.Column {
				t.Errorf("%q: token %d is %q at %d:%d, with LF %q at %d:%d", text, i, c.Value, c.Position.Line, c.Position.Column, l.Value, l.Position.Line, l.Position.Column)
			}
		}
	}
}

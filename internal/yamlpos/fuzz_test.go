package yamlpos

import (
	"testing"
)

// FuzzLexParse: whatever the text, Lex and Parse return, never panic,
// and their errors are *Error; a body Parse returns holds a value.
func FuzzLexParse(f *testing.F) {
	for _, s := range []string{"a: 1\n", "- [1, {b: c}]\n", "---\n# c\n---\nx\n", "a: &x [*x]\n", "? [a]\n: b\n", "a: |\n  lit\n", "{"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4<<10 {
			return
		}
		tokens, err := Lex(text, Bounds{Depth: 16, Column: 32})
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Lex error %T", err)
			}
			return
		}
		docs, err := Parse(tokens)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Parse error %T", err)
			}
			return
		}
		for _, d := range docs {
			if Body(d.Body) == nil {
				t.Fatal("a document without a value")
			}
			_ = KindOf(d.Body)
			_, _ = ScalarText(d.Body)
		}
	})
}

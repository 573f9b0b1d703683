package request

import (
	"testing"

	"github.com/goccy/go-yaml/ast"

	"github.com/kesoku/kesoku/internal/yamlpos"
)

// tokenSeeds are items of the shapes request files are made of, and of
// shapes the token reader must leave to the parser.
var tokenSeeds = []string{
	"- id: call_1\n  name: calculate_sum\n  args: {a: 1, b: 2}\n",
	"- {name: calculate_sum, args: {a: 1, b: 2}}\n",
	"  - id: x # a comment\n    name: 'it''s'\n    args:\n      a: -1.5\n      b: [1, \"two\", null, true, ~, 0x1f, 012, 1e2]\n",
	"- name: a\n  args: {x: .inf}\n",
	"- name: echo\n  args:\n    text: |\n      two\n        lines\n\n    n: 3\n",
	"- name: a\n  args:\n    list:\n    - 1\n    - - 2\n      - 3\n    - k: v\n      j: w\n",
	"- name: a\n  args: {s: \"q\\\"\\n\\t\\u00e9\", t: 'x'}\n",
	"-\n  name: a\n  args:\n    k:\n    j: [ ]\n", "- {}\n", "- name: a\n  args: {k: [{x: 1}, []]}\n",
	"- hello\n", "- [1, 2]\n", "- 42\n", "-\n", "- # nothing\n", "- - a\n",
	"- name: a\n  name: b\n", "- &x {name: a}\n", "- name: !!str 1\n", "- name: >\n    folded\n",
	"- name: a\n  args: {x: [a, b}\n", "- name: \"multi\n    line\"\n", "- name: plain\n    more\n",
	"- name: a\n\targs: {}\n", "- a: b: c\n", "- {a: 1, a: 2}\n", "- {1: a, \"1\": b}\n", "- name: a #c\n  args: {\"k\": \"v\", k2: [ ]}\n",
	"- name: a\n  args: {k: -}\n", "- name: a\n  args: {k: [-1, -x, - ]}\n", "- name: a\n   b: 1\n", "- name: a\n  args:\n  - 1\n  x: 2\n",
	"- name: 2001-12-14\n  args: {on: yes, n: No, e: 1e2, big: 18446744073709551616}\n", "- name: 'a'b\n", "- name: a\n  args:\n    k:\n  x: 1\n",
}

// FuzzYAMLTokens holds the token reader to goccy/go-yaml's parser and the
// converter: an item it reads, they read as the same request (its JSON
// and its position); what it does not read, they judge.
func FuzzYAMLTokens(f *testing.F) {
	for _, s := range tokenSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		type emitted struct {
			pos  yamlpos.Pos
			json string
		}
		var got, want []emitted
		collect := func(to *[]emitted) func(yamlpos.Pos, []byte) error {
			return func(pos yamlpos.Pos, b []byte) error {
				*to = append(*to, emitted{pos, string(b)})
				return nil
			}
		}
		ch := &yamlChunk{data: []byte(src), first: 7, what: "a request"}
		fast := newYAMLConverter("f.yaml", collect(&got))
		tokens, err := fast.lex(ch)
		if err != nil {
			return
		}
		pos, keys, vals, ok := fast.tokenItem(tokens)
		if !ok {
			return
		}
		fastErr := fast.emitObject(pos, keys, vals)
		full := newYAMLConverter("f.yaml", collect(&want))
		bodies, err := full.parse(ch)
		for _, body := range bodies {
			seq, ok := body.(*ast.SequenceNode)
			if !ok {
				t.Fatalf("the token reader read %q, which the parser reads as no list", src)
			}
			if err = full.list(seq); err != nil {
				break
			}
		}
		if (err == nil) != (fastErr == nil) {
			t.Fatalf("the token reader read %q (%v), the parser and converter: %v", src, fastErr, err)
		}
		if len(want) != 1 || len(got) != 1 || got[0] != want[0] {
			t.Fatalf("%q read differently:\n parser %+v\n tokens %+v", src, want, got)
		}
	})
}

// TestTokenReaderReadsTheCommonShapes checks that the shapes request
// files are made of are read from the tokens, not left to the parser:
// they are what makes YAML fast enough.
func TestTokenReaderReadsTheCommonShapes(t *testing.T) {
	t.Parallel()
	for _, src := range append(tokenSeeds[:3], tokenSeeds[5:10]...) {
		c := newYAMLConverter("f.yaml", nil)
		tokens, err := c.lex(&yamlChunk{data: []byte(src), first: 1})
		if _, _, _, ok := c.tokenItem(tokens); err != nil || !ok {
			t.Errorf("the token reader left %q to the parser", src)
		}
	}
}

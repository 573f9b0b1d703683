package yamlpos

import (
	"errors"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/ast"
)

// convert converts the first document of text under p.
func convert(t *testing.T, p Policy, text string) (string, error) {
	t.Helper()
	tokens, err := Lex(text, Bounds{Depth: 100, Column: 100})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := Parse(tokens)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewConverter(p).Append(nil, docs[0].Body)
	return string(b), err
}

// TestConverter: values as JSON reads them, under each policy; what a
// policy refuses is said as data (the kind, the node, the limit).
func TestConverter(t *testing.T) {
	requests := Policy{Aliases: true, MaxValues: 50, MaxDepth: 3, MaxBytes: 1000, SortKeys: true}
	for _, tc := range []struct {
		name string
		p    Policy
		text string
		want string
		kind JSONKind
	}{
		{"scalars", Policy{}, "[1, 0x1f, 1.0, 2.5, 1e2, 18446744073709551615, ~, true, 'a<b', |\n  x\n]", `[1,31,1.0,2.5,100.0,18446744073709551615,null,true,"a\u003cb","x\n"]`, 0},
		{"keys in order written", Policy{}, "{b: 1, a: 2, 0x1: 3, ~: 4}", `{"b":1,"a":2,"1":3,"null":4}`, 0},
		{"keys sorted", requests, "{b: 1, a: {d: 1, c: 2}}", `{"a":{"c":2,"d":1},"b":1}`, 0},
		{"two keys that JSON reads as one", Policy{}, "{1: a, 0x1: b}", "", DuplicateKey},
		{"infinity", Policy{}, "[.inf]", "", NotJSONNumber},
		{"a key that is a list", requests, "a: &x [1]\n*x : b\n", "", KeyNotScalar},
		{"anchors refused", Policy{}, "{a: &x 1, b: *x}", "", NotSupported},
		{"merge refused", Policy{}, "{<<: {a: 1}}", "", NotSupported},
		{"tags refused", Policy{}, "!!str 1", "", NotSupported},
		{"aliases", requests, "{a: &x [1, 2], b: *x}", `{"a":[1,2],"b":[1,2]}`, 0},
		{"merges: the keys written win", requests, "{<<: [{a: 1, c: 1}, {c: 2, d: 2}], a: 0}", `{"a":0,"c":1,"d":2}`, 0},
		{"a merge of no mapping", requests, "{<<: [1]}", "", MergeNotMapping},
		{"a tag of a string", requests, "[!!str null, !!str 1]", `["null","1"]`, 0},
		{"an alias of no anchor", requests, "[*x]", "", NoAnchor},
		{"an alias inside its anchor", requests, "&x [*x]", "", AliasInAnchor},
		{"too deep", requests, "[[[[1]]]]", "", TooDeep},
		{"an alias counts what its anchor holds", requests, "{a: &x [1, 2, 3, 4, 5, 6, 7, 8, 9], b: [*x, *x, *x, *x, *x]}", "", TooManyValues},
		{"the JSON an alias makes is bounded", requests, "{a: &x '" + strings.Repeat("x", 400) + "', b: [*x, *x, *x]}", "", TooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := convert(t, tc.p, tc.text)
			var je *JSONError
			switch {
			case tc.kind == 0 && err != nil:
				t.Fatalf("error %v, want %s", err, tc.want)
			case tc.kind == 0 && got != tc.want:
				t.Errorf("got %s, want %s", got, tc.want)
			case tc.kind != 0 && !errors.As(err, &je):
				t.Errorf("got %s, %v; want an error of kind %d", got, err, tc.kind)
			case tc.kind != 0 && je.Kind != tc.kind:
				t.Errorf("error %v of kind %d, want kind %d", err, je.Kind, tc.kind)
			}
		})
	}
}

// TestAliasOutBoundsAFile: what the values that use an alias come to is
// bounded across conversions, by the bytes read.
func TestAliasOutBoundsAFile(t *testing.T) {
	read := int64(10)
	out := &AliasOut{Read: func() int64 { return read }, Ratio: 2}
	c := NewConverter(Policy{Aliases: true, Out: out})
	tokens, _ := Lex("- &x 'abcdefgh'\n- *x\n- *x\n- *x\n", Bounds{Depth: 10, Column: 10})
	docs, _ := Parse(tokens)
	var err error
	for _, item := range docs[0].Body.(*ast.SequenceNode).Values {
		c.Begin()
		if _, err = c.Append(nil, item); err != nil {
			break
		}
	}
	var je *JSONError
	if !errors.As(err, &je) || je.Kind != AliasesExpand || je.Read != 10 {
		t.Fatalf("got %v, want aliases to expand past 2×10 bytes", err)
	}
}

package request

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fastSeeds are chunks of the shapes request files are made of, and of
// shapes yamlFast must leave to the full parser.
var fastSeeds = []string{
	"- id: call_1\n  name: calculate_sum\n  args: {a: 1, b: 2}\n",
	"- {name: calculate_sum, args: {a: 1, b: 2}}\n",
	"  - id: x # a comment\n    name: 'it''s'\n    args:\n      a: -1.5\n      b: [1, \"two\", null, true, ~, 0x1f, 012, 1e2, .inf]\n",
	"- name: echo\n  args:\n    text: |\n      two\n        lines\n\n    n: 3\n",
	"- name: echo\n  args:\n    text: |-\n      x\n\n\n",
	"- name: echo\n  args:\n    text: |+\n      x\n\n",
	"- name: a\n  args:\n    list:\n    - 1\n    - - 2\n      - 3\n    - k: v\n      j: w\n",
	"- name: a\n  args: {s: \"q\\\"\\n\\t\\u00e9\", t: 'x'}\n",
	"- hello\n", "- [1, 2]\n", "- 42\n", "-\n", "- # nothing\n", "- - a\n",
	"- name: a\n  name: b\n", "- &x {name: a}\n", "- name: !!str 1\n", "- name: >\n    folded\n",
	"- name: a\n  args: {x: [a, b}\n", "- name: \"multi\n    line\"\n", "- name: plain\n    more\n",
	"- name: a\n\targs: {}\n", "- a: b: c\n", "- {a: 1, a: 2}\n", "- name: a #c\n  args: {\"k\": \"v\", k2: [ ]}\n",
	"- name: \"\\x41\"\n", "- name: a\n  args: {k: -}\n", "- name: a\n  args: {k: [-1, -x, - ]}\n",
	"- name: 2001-12-14\n  args: {on: yes, n: No}\n", "- name: 'a'b\n", "- name: a\n  args:\n    k:\n  x: 1\n",
}

var keySeeds = []string{
	"session_id: demo\n", "session_id: [1]\n", "name: calculate_sum\n", "args:\n  a: 1\n  b: [x]\n",
	"args: {a: 1}\n", "\"quoted\": 'v'\n", "text: |\n  line\n", "list:\n- 1\n- 2\n", "k: v # c\n# trailing\n",
	"k:\n", "<<: *a\n", "k: &a v\n", "k: v\nj: w\n",
}

// FuzzYAMLFast holds yamlFast to goccy/go-yaml and yamlConverter: any
// chunk it reads, it reads as they do (values, their types, positions,
// messages); what it does not read, they judge.
func FuzzYAMLFast(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s, true)
	}
	for _, s := range keySeeds {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, src string, item bool) {
		ch := &yamlChunk{data: []byte(src), first: 7}
		if item {
			got, ok := fastItem(ch.data, ch.first, "f.yaml")
			if !ok {
				return
			}
			want, err := newYAMLConverter("f.yaml").items(ch)
			if err != nil {
				t.Fatalf("yamlFast read %q, which the full parser refuses: %v", src, err)
			}
			if len(want) != 1 {
				t.Fatalf("yamlFast read %q as one request, the full parser as %d", src, len(want))
			}
			compareRequests(t, src, want[0], got)
			return
		}
		got, ok := fastKey(ch.data, ch.first, "f.yaml")
		if !ok {
			return
		}
		want, err := newYAMLConverter("f.yaml").members(ch)
		if err != nil {
			t.Fatalf("yamlFast read %q, which the full parser refuses: %v", src, err)
		}
		if len(want) != 1 {
			t.Fatalf("yamlFast read %q as one key, the full parser as %d", src, len(want))
		}
		// Where a value is, is said of flow collections written on the
		// key's line (it places "session_id: expected a string, got a
		// list"); the parsers place other values differently (goccy/go-yaml
		// a plain scalar with trailing space at its end, say).
		flowOnKeyLine := got.vPos.Line == got.keyPos.Line
		switch got.v.(type) {
		case []any, map[string]any:
		default:
			flowOnKeyLine = false
		}
		if !flowOnKeyLine {
			got.vPos, want[0].vPos = Position{}, Position{}
		}
		if diff := cmp.Diff(want[0], got, cmp.AllowUnexported(yamlMember{}), cmpopts.EquateNaNs(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%q read differently (-full parser +yamlFast):\n%s", src, diff)
		}
	})
}

func compareRequests(t *testing.T, src string, want, got *Request) {
	t.Helper()
	errText := func(r *Request) string {
		if r.Err == nil {
			return ""
		}
		return r.Err.Error()
	}
	w := loaded{ID: want.ID, Name: want.Name, Args: want.Args, Line: want.Pos.Line, Col: want.Pos.Col, Err: errText(want)}
	g := loaded{ID: got.ID, Name: got.Name, Args: got.Args, Line: got.Pos.Line, Col: got.Pos.Col, Err: errText(got)}
	if diff := cmp.Diff(w, g, cmpopts.EquateNaNs()); diff != "" {
		t.Fatalf("%q read differently (-full parser +yamlFast):\n%s", src, diff)
	}
}

// TestYAMLFastReadsTheCommonShapes checks that the shapes request files
// are made of are read by yamlFast, not left to the full parser: they are
// what makes YAML fast.
func TestYAMLFastReadsTheCommonShapes(t *testing.T) {
	t.Parallel()
	for _, src := range fastSeeds[:8] {
		if _, ok := fastItem([]byte(src), 1, "f.yaml"); !ok {
			t.Errorf("yamlFast left %q to the full parser", src)
		}
	}
	for _, src := range keySeeds[:9] {
		if _, ok := fastKey([]byte(src), 1, "f.yaml"); !ok && !strings.HasPrefix(src, "list") {
			t.Errorf("yamlFast left %q to the full parser", src)
		}
	}
}

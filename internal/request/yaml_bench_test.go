package request

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/ast"

	"github.com/kesoku/kesoku/internal/yamlpos"
)

// BenchmarkYAMLConvert converts a parsed list of 1,000 requests to the
// JSON of the spool, without the parsing: what the conversion costs.
// ns/op is per request.
func BenchmarkYAMLConvert(b *testing.B) {
	var s strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&s, "- id: call_%d\n  name: calculate_sum\n  args: {a: %d, b: %d.5, tags: [x, 'y z'], opts: {deep: true, n: null}}\n", i+1, i+1, 2*(i+1))
	}
	tokens, err := yamlpos.Lex(s.String(), yamlpos.Bounds{Depth: maxDepth, Column: maxBlockColumn})
	if err != nil {
		b.Fatal(err)
	}
	docs, err := yamlpos.Parse(tokens)
	if err != nil {
		b.Fatal(err)
	}
	seq := docs[0].Body.(*ast.SequenceNode)
	n := 0
	c := newYAMLConverter("r.yaml", func(yamlpos.Pos, []byte) error { n++; return nil }, nil)
	c.ch = &yamlChunk{data: []byte(s.String())}
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += 1000 {
		if err := c.list(seq); err != nil {
			b.Fatal(err)
		}
	}
}

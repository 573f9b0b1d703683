package gemini

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kesoku/kesoku/internal/toolset"
)

// TestDeclarationInlinesRefs: a schema written outside Go (an MCP
// server's: Pydantic and zod write $defs) reaches Gemini without $ref,
// which its API refuses ("reference to undefined schema", "$ref was set
// alongside unsupported fields"): each local reference is replaced by
// what it names, the keys beside it kept, $defs and $schema dropped, the
// properties in their order. A reference to itself (a tree) becomes an
// object, once the cycle is found.
func TestDeclarationInlinesRefs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, raw, want string
	}{{
		name: "defs",
		raw: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
			`"properties":{"z":{"$ref":"#/$defs/P","description":"The point."},"a":{"type":"array","items":{"$ref":"#/$defs/P"}}},` +
			`"required":["z"],"$defs":{"P":{"type":"object","description":"A point.","properties":{"y":{"type":"number"},"x":{"type":"number"}}}}}`,
		want: `{"type":"object","properties":{"z":{"type":"object","description":"The point.","properties":{"y":{"type":"number"},"x":{"type":"number"}}},` +
			`"a":{"type":"array","items":{"type":"object","description":"A point.","properties":{"y":{"type":"number"},"x":{"type":"number"}}}}},"required":["z"]}`,
	}, {
		name: "definitions and pointers",
		raw:  `{"type":"object","properties":{"h":{"type":"object"},"l":{"type":"array","items":{"$ref":"#/properties/h"}},"k":{"anyOf":[{"$ref":"#/definitions/K"},{"type":"null"}]}},"definitions":{"K":{"enum":["a","b"]}}}`,
		want: `{"type":"object","properties":{"h":{"type":"object"},"l":{"type":"array","items":{"type":"object"}},"k":{"anyOf":[{"enum":["a","b"]},{"type":"null"}]}}}`,
	}, {
		name: "cycle",
		raw:  `{"type":"object","properties":{"t":{"$ref":"#/$defs/T"}},"$defs":{"T":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/T"}}}}}}`,
		want: `{"type":"object","properties":{"t":{"type":"object","properties":{"kids":{"type":"array","items":{"type":"object"}}}}}}`,
	}, {
		name: "no refs",
		raw:  `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}`,
		want: `{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := Declaration(&toolset.Tool{Name: "s__t", RawSchema: json.RawMessage(tt.raw)})
			got, err := json.Marshal(d.ParametersJsonSchema)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("parametersJsonSchema mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeclarationRefsBounded: a schema whose references double it at
// each level is not inlined past a bound: it goes as written.
func TestDeclarationRefsBounded(t *testing.T) {
	t.Parallel()
	defs := `"D0":{"type":"string","description":"` + strings.Repeat("x", 100) + `"}`
	for i := 1; i <= 30; i++ {
		defs += fmt.Sprintf(`,"D%d":{"type":"object","properties":{"a":{"$ref":"#/$defs/D%d"},"b":{"$ref":"#/$defs/D%d"}}}`, i, i-1, i-1)
	}
	raw := `{"type":"object","properties":{"p":{"$ref":"#/$defs/D30"}},"$defs":{` + defs + `}}`
	d := Declaration(&toolset.Tool{Name: "s__t", RawSchema: json.RawMessage(raw)})
	got, err := json.Marshal(d.ParametersJsonSchema)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > 2*len(raw) {
		t.Errorf("the schema grew from %d to %d bytes", len(raw), len(got))
	}
}

// FuzzForGemini: whatever schema a server sends, what goes to Gemini is
// JSON, and has no local reference left unless it went as written.
func FuzzForGemini(f *testing.F) {
	f.Add(`{"type":"object","properties":{"z":{"$ref":"#/$defs/P","description":"d"}},"$defs":{"P":{"type":"object"}}}`)
	f.Add(`{"type":"object","properties":{"t":{"$ref":"#/$defs/T"}},"$defs":{"T":{"type":"array","items":{"$ref":"#/$defs/T"}}}}`)
	f.Add(`{"$ref":"#/properties/a","properties":{"a":{"$ref":"#"}}}`)
	f.Add(`{"properties":{"$ref":{"type":"string"}},"$defs":{"a~1b":true},"x":{"$ref":"#/$defs/a~1b"}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		if !json.Valid([]byte(raw)) {
			return
		}
		out := forGemini(json.RawMessage(raw))
		if !json.Valid(out) {
			t.Fatalf("forGemini(%s) = %s: not JSON", raw, out)
		}
	})
}

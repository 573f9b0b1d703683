package schema

import (
	"encoding/json"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
	"strings"
	"testing"
)

// TestRawSchemaEveryFormat: a tool whose schema was written outside Go (an
// MCP server's inputSchema) is declared with that schema, whole, in every
// format; Gemini gets it as parametersJsonSchema without "$schema", its
// references inlined (Gemini refuses $ref).
func TestRawSchemaEveryFormat(t *testing.T) {
	t.Parallel()
	raw := `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"z":{"$ref":"#/$defs/p"},"a":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["z"],"additionalProperties":false,"$defs":{"p":{"type":"string","pattern":"^/"}}}`
	spec := &toolset.Tool{Name: "fs__read", Description: "Reads.", RawSchema: json.RawMessage(raw),
		// Params as a source derives them for listings: never exported.
		Params: []*toolspec.Property{{Name: "z", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeString}}}}
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out, err := JSON(format, []*toolset.Tool{spec})
			if err != nil {
				t.Fatal(err)
			}
			var got []map[string]any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v", out, err)
			}
			var schema any
			switch format {
			case FormatGemini:
				decl := got[0]["functionDeclarations"].([]any)[0].(map[string]any)
				if _, ok := decl["parameters"]; ok {
					t.Errorf("gemini: parameters set: %s", out)
				}
				schema = decl["parametersJsonSchema"]
				if _, ok := schema.(map[string]any)["$schema"]; ok {
					t.Errorf("gemini: $schema kept: %s", out)
				}
			case FormatClaude:
				schema = got[0]["input_schema"]
			case FormatOpenAI:
				schema = got[0]["function"].(map[string]any)["parameters"]
			case FormatMCP:
				schema = got[0]["inputSchema"]
			case FormatJSONSchema:
				schema = got[0]
				if got[0]["title"] != "fs__read" || got[0]["description"] != "Reads." {
					t.Errorf("jsonschema: no title or description: %s", out)
				}
			}
			m := schema.(map[string]any)
			keys := []string{"$defs", "additionalProperties", "required"}
			if format == FormatGemini {
				keys = keys[1:]
				if _, ok := m["$defs"]; ok {
					t.Errorf("gemini: $defs kept: %s", out)
				}
			}
			for _, key := range keys {
				if _, ok := m[key]; !ok {
					t.Errorf("%s lost %s: %s", format, key, out)
				}
			}
			z := m["properties"].(map[string]any)["z"].(map[string]any)
			if format == FormatGemini {
				if z["pattern"] != "^/" || z["$ref"] != nil {
					t.Errorf("gemini: the $ref not inlined: %s", out)
				}
			} else if _, ok := z["$ref"]; !ok {
				t.Errorf("%s lost a $ref: %s", format, out)
			}
			if i, j := strings.Index(string(out), `"z"`), strings.Index(string(out), `"a"`); i < 0 || j < i {
				t.Errorf("%s: properties out of order: %s", format, out)
			}
		})
	}
}

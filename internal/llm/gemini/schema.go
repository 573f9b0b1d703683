package gemini

import (
	"encoding/json"

	"google.golang.org/genai"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// Tools returns the value of the `tools` field of a Gemini
// generateContent request: one Tool holding a FunctionDeclaration per spec,
// in the SDK's own types so that a session passes it straight to the
// client. No specs give an empty list.
//
// A declaration carries its schema in `parameters`, Gemini's OpenAPI-subset
// Schema, when the schema can be said exactly in that subset, and in
// `parametersJsonSchema` otherwise. `parameters` is the long-standing field
// every Gemini model and endpoint takes; but it knows no
// `additionalProperties`, and any keyword outside the subset is a hard 400
// from the API. So a map (which needs `additionalProperties` for
// its value type), a free-form object (an OBJECT without properties is
// refused) or a property name outside Gemini's rule sends the whole schema
// as JSON Schema instead. The one thing `parameters` loses is
// `additionalProperties: false` on closed objects, which toolspec.Validate enforces
// anyway. A tool without parameters declares neither field, as the API
// allows.
func Tools(specs []*toolset.Tool) []*genai.Tool {
	if len(specs) == 0 {
		return []*genai.Tool{}
	}
	decls := make([]*genai.FunctionDeclaration, len(specs))
	for i, s := range specs {
		decls[i] = Declaration(s)
	}
	return []*genai.Tool{{FunctionDeclarations: decls}}
}

// Declaration returns the FunctionDeclaration of one tool, as Tools
// explains.
func Declaration(s *toolset.Tool) *genai.FunctionDeclaration {
	d := &genai.FunctionDeclaration{Name: s.Name, Description: s.Description}
	switch {
	case len(s.RawSchema) > 0:
		// A schema written outside Go (an MCP server's, a command tool's)
		// goes as JSON Schema, the field that takes it whole; without
		// "$schema" and "$ref", which Gemini refuses (refs.go).
		d.ParametersJsonSchema = forGemini(s.RawSchema)
	case len(s.Params) == 0:
	case geminiFits(s.Params, map[*toolspec.Schema]bool{}):
		d.Parameters = geminiObject(s.Params)
	default:
		d.ParametersJsonSchema = s.InputSchema()
	}
	return d
}

// geminiPropertyName reports whether name obeys Gemini's rule for
// parameter names, ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$.
// It is written out rather than a regexp so that nothing is compiled at
// start-up.
func geminiPropertyName(name string) bool {
	if name == "" || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// geminiFits reports whether the parameters can be declared exactly in
// Gemini's `parameters` subset.
func geminiFits(props []*toolspec.Property, active map[*toolspec.Schema]bool) bool {
	for _, p := range props {
		if !geminiPropertyName(p.Name) || !geminiSchemaFits(p.Schema, active) {
			return false
		}
	}
	return true
}

func geminiSchemaFits(s *toolspec.Schema, active map[*toolspec.Schema]bool) bool {
	if s == nil || s.Type == "" || active[s] {
		return false
	}
	if len(s.Default) > 0 && !json.Valid(s.Default) {
		return false
	}
	active[s] = true
	defer delete(active, s)
	switch s.Type {
	case toolspec.TypeArray:
		return s.Items != nil && geminiSchemaFits(s.Items, active)
	case toolspec.TypeObject:
		return s.AdditionalProperties == nil && len(s.Properties) > 0 && geminiFits(s.Properties, active)
	case toolspec.TypeString:
		return true
	}
	// Gemini takes enums of strings only on STRING and INTEGER; ours are
	// on strings.
	return len(s.Enum) == 0
}

// geminiObject is the `parameters` schema of the given properties. Its
// properties are a Go map, so their declaration order travels in
// propertyOrdering.
func geminiObject(props []*toolspec.Property) *genai.Schema {
	out := &genai.Schema{
		Type:             genai.TypeObject,
		Properties:       make(map[string]*genai.Schema, len(props)),
		PropertyOrdering: make([]string, 0, len(props)),
	}
	for _, p := range props {
		out.Properties[p.Name] = geminiSchema(p.Schema)
		out.PropertyOrdering = append(out.PropertyOrdering, p.Name)
		if p.Required {
			out.Required = append(out.Required, p.Name)
		}
	}
	return out
}

var geminiTypes = map[toolspec.Type]genai.Type{
	toolspec.TypeString:  genai.TypeString,
	toolspec.TypeInteger: genai.TypeInteger,
	toolspec.TypeNumber:  genai.TypeNumber,
	toolspec.TypeBoolean: genai.TypeBoolean,
	toolspec.TypeArray:   genai.TypeArray,
	toolspec.TypeObject:  genai.TypeObject,
}

// geminiSchema converts a schema that geminiSchemaFits accepted.
func geminiSchema(s *toolspec.Schema) *genai.Schema {
	var out *genai.Schema
	if s.Type == toolspec.TypeObject {
		out = geminiObject(s.Properties)
	} else {
		out = &genai.Schema{Type: geminiTypes[s.Type]}
	}
	out.Description = s.Description
	if len(s.Enum) > 0 {
		// The SDK's documentation asks for format "enum" with enum values.
		out.Enum, out.Format = s.Enum, "enum"
	}
	if len(s.Default) > 0 {
		out.Default = json.RawMessage(s.Default)
	}
	switch s.Type {
	case toolspec.TypeInteger:
		if lo, hi := s.IntRange(); lo != nil {
			min := float64(*lo)
			out.Minimum = &min
			if hi != nil {
				max := float64(*hi)
				out.Maximum = &max
			}
		}
	case toolspec.TypeArray:
		out.Items = geminiSchema(s.Items)
	}
	return out
}

// withoutDialect is a JSON Schema object without its top-level "$schema".
func withoutDialect(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if _, ok := m["$schema"]; !ok {
		return raw
	}
	delete(m, "$schema")
	// The order of the keys is lost; the properties keep theirs, as they
	// are still raw.
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}

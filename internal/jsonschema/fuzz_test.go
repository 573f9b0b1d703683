package jsonschema

import (
	"errors"
	"testing"
)

// FuzzCompileValidate: any schema either compiles or is refused with a
// *SchemaError, and a compiled one checks any value without panicking,
// answering nil or a *ValidationError.
func FuzzCompileValidate(f *testing.F) {
	for _, seed := range []struct{ schema, value string }{
		{`{"type": "object", "properties": {"a": {"type": "integer", "minimum": 1}}, "required": ["a"], "additionalProperties": false}`, `{"a": 0, "b": 1}`},
		{`{"$defs": {"t": {"$dynamicAnchor": "t", "items": {"$dynamicRef": "#t"}}}, "$ref": "#/$defs/t"}`, `[[1], [[2]]]`},
		{`{"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveAnchor": true, "items": {"$recursiveRef": "#"}}`, `[[[]]]`},
		{`{"$schema": "http://json-schema.org/draft-04/schema#", "id": "http://x/", "definitions": {"a": {"id": "#a", "maximum": 3, "exclusiveMaximum": true}}, "$ref": "#a"}`, `3`},
		{`{"anyOf": [{"oneOf": [{"const": 1}, {"enum": [1, 2]}]}, {"not": {"type": "null"}}], "if": {"minimum": 0}, "then": {"multipleOf": 0.5}, "else": false}`, `1.5`},
		{`{"prefixItems": [{"type": "string"}], "contains": {"type": "number"}, "minContains": 2, "unevaluatedItems": false, "uniqueItems": true}`, `["a", 1, 1]`},
		{`{"patternProperties": {"^x": true}, "propertyNames": {"maxLength": 3}, "dependentSchemas": {"a": {"required": ["b"]}}, "unevaluatedProperties": {"type": "string"}}`, `{"xyzw": 1, "a": 2}`},
		{`{"$ref": "#"}`, `{}`},
		{`{"properties": {"s": {"$ref": "https://json-schema.org/draft/2020-12/schema"}, "t": {"$ref": "http://json-schema.org/draft-04/schema#"}}}`, `{"s": {"minLength": -1}, "t": {"type": 5}}`},
	} {
		f.Add(seed.schema, seed.value)
	}
	f.Fuzz(func(t *testing.T, schema, value string) {
		doc, err := Decode([]byte(schema))
		if err != nil {
			return
		}
		s, err := Compile("mem:///f.json", doc, Options{})
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("compile: %v (%T), want a *SchemaError", err, err)
			}
			return
		}
		v, err := Decode([]byte(value))
		if err != nil {
			return
		}
		if err := s.Validate(v); err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Causes) == 0 {
				t.Fatalf("validate: %v (%T), want a *ValidationError with causes", err, err)
			}
			_ = ve.Error()
		}
	})
}

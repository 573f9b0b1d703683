package jsonschema

import (
	"errors"
	"testing"
)

// TestMetaSchemasBundled: a reference to a draft's meta-schema (a value
// that must itself be a schema) resolves to the bundled copy of that
// draft's meta-schema, by http or https, vocabularies and all, and checks
// what the meta-schema checks; a reference to another path of
// json-schema.org is still refused, never fetched.
func TestMetaSchemasBundled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		draft        Draft
		ref          string
		valid, wrong string
	}{
		{Draft4, "http://json-schema.org/draft-04/schema#", `{"type": "string", "minLength": 1}`, `{"minLength": -1}`},
		{Draft6, "http://json-schema.org/draft-06/schema#", `{"properties": {"a": true}}`, `{"type": "strin"}`},
		{Draft7, "http://json-schema.org/draft-07/schema#", `{"if": {"type": "string"}}`, `{"required": "a"}`},
		{Draft7, "https://json-schema.org/draft-07/schema", `{"if": {"type": "string"}}`, `{"required": "a"}`},
		{Draft2019, "https://json-schema.org/draft/2019-09/schema", `{"$defs": {"a": {"maxItems": 2}}}`, `{"$defs": {"a": {"maxItems": -2}}}`},
		{Draft2020, "https://json-schema.org/draft/2020-12/schema", `{"prefixItems": [{"type": "integer"}]}`, `{"properties": {"a": {"prefixItems": {"type": "integer"}}}}`},
		{Draft2020, "http://json-schema.org/draft/2020-12/schema", `true`, `{"minimum": "1"}`},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			t.Parallel()
			doc, err := Decode([]byte(`{"allOf": [{"$ref": "` + tt.ref + `"}, {"$ref": "` + tt.ref + `"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			s, err := Compile("mem:///t.json", doc, Options{Draft: tt.draft})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			for v, want := range map[string]bool{tt.valid: true, tt.wrong: false} {
				value, err := Decode([]byte(v))
				if err != nil {
					t.Fatal(err)
				}
				if err := s.Validate(value); (err == nil) != want {
					t.Errorf("%s: valid %v, got %v", v, want, err)
				}
			}
		})
	}
	// One document, by http and by https at once.
	doc, _ := Decode([]byte(`{"allOf": [{"$ref": "http://json-schema.org/draft-07/schema#"}, {"$ref": "https://json-schema.org/draft-07/schema#"}]}`))
	if _, err := Compile("mem:///t.json", doc, Options{Draft: Draft7}); err != nil {
		t.Errorf("draft-07 by http and https: %v", err)
	}
	for _, ref := range []string{"https://json-schema.org/draft/2020-12/output/schema", "https://json-schema.org/../schema", "https://json-schema.org/draft-07/schema?x=1"} {
		doc, _ := Decode([]byte(`{"$ref": "` + ref + `"}`))
		_, err := Compile("mem:///t.json", doc, Options{})
		var re *RefError
		if !errors.As(err, &re) {
			t.Errorf("%s: compile: %v; want a *RefError", ref, err)
		}
	}
}

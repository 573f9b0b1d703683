package jsonschema

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func compile(t *testing.T, schema string) *Schema {
	t.Helper()
	doc, err := Decode([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Compile("mem:///t.json", doc, Options{})
	if err != nil {
		t.Fatalf("compile %s: %v", schema, err)
	}
	return s
}

// leaves lists the problems of err as "instance location | schema
// pointer | kind's words", every leaf of the tree.
func leaves(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("%v (%T) is not a *ValidationError", err, err)
	}
	var out []string
	var walk func(e *ValidationError)
	walk = func(e *ValidationError) {
		if _, ok := e.Kind.(*Group); ok {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		out = append(out, "/"+strings.Join(e.InstanceLocation, "/")+" | /"+strings.Join(e.SchemaPointer, "/")+" | "+e.Kind.String())
	}
	walk(ve)
	return out
}

func TestValidateSaysWhereAndWhat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, value string
		want                []string
	}{
		{"every problem at once",
			`{"type": "object", "properties": {"a": {"type": "integer", "minimum": 1}, "b": {"type": "string", "maxLength": 2}}, "required": ["a", "c"], "additionalProperties": false}`,
			`{"a": 0.5, "b": "long", "d": 1}`,
			[]string{
				`/ | / | missing property "c"`,
				`/a | /properties/a | got number, want integer`,
				`/a | /properties/a | minimum: got 0.5, want 1`,
				`/b | /properties/b | maxLength: got 4, want 2`,
				`/ | / | additional properties "d" not allowed`,
			}},
		{"through a ref, the schema where the keyword is",
			`{"type": "object", "properties": {"tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}}}, "$defs": {"tag": {"type": "string", "pattern": "^[a-z]+$"}}}`,
			`{"tags": ["ok", "Bad", 3]}`,
			[]string{
				`/tags/1 | /$defs/tag | "Bad" does not match pattern "^[a-z]+$"`,
				`/tags/2 | /$defs/tag | got number, want string`,
			}},
		{"anyOf keeps its alternatives",
			`{"anyOf": [{"type": "string"}, {"type": "null"}]}`, `3`,
			[]string{`/ | / | anyOf failed`}},
		{"oneOf matching twice", `{"oneOf": [{"type": "number"}, {"minimum": 0}]}`, `3`,
			[]string{`/ | / | oneOf failed, subschemas 0, 1 matched`}},
		{"enum and const by value", `{"properties": {"e": {"enum": [1, "x"]}, "c": {"const": {"k": [1.0]}}}}`, `{"e": 1.0, "c": {"k": [1]}}`, nil},
		{"enum refused", `{"enum": ["fast", "exact"]}`, `"fats"`, []string{`/ | / | value must be one of "fast", "exact"`}},
		{"draft-04 exclusive bound", `{"$schema": "http://json-schema.org/draft-04/schema#", "minimum": 1, "exclusiveMinimum": true}`, `1`,
			[]string{`/ | / | exclusiveMinimum: got 1, want 1`}},
		{"draft-07 ignores the keywords beside $ref", `{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/definitions/s", "maxLength": 1}}}`, `{"a": "long"}`, nil},
		{"2020-12 applies them", `{"$defs": {"s": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/s", "maxLength": 1}}}`, `{"a": "long"}`,
			[]string{`/a | /properties/a | maxLength: got 4, want 1`}},
		{"an $id is a base for refs", `{"$id": "http://example.com/root.json", "properties": {"a": {"$id": "sub/", "$defs": {"n": {"type": "integer"}}, "$ref": "#/$defs/n"}}}`, `{"a": "x"}`,
			[]string{`/a | /properties/a/$defs/n | got string, want integer`}},
		{"anchors", `{"properties": {"a": {"$ref": "#num"}}, "$defs": {"n": {"$anchor": "num", "type": "number"}}}`, `{"a": true}`,
			[]string{`/a | /$defs/n | got boolean, want number`}},
		{"unevaluatedProperties sees through allOf", `{"allOf": [{"properties": {"a": true}}], "unevaluatedProperties": false}`, `{"a": 1, "b": 2}`,
			[]string{`/ | / | unevaluated properties "b" not allowed`}},
		{"prefixItems and items false", `{"prefixItems": [{"type": "string"}], "items": false}`, `["a", 1, 2]`,
			[]string{`/ | / | last 2 additional item(s) not allowed`}},
		{"a huge exponent is a number, not a billion digits", `{"maximum": 10}`, `1e999999999`,
			[]string{`/ | / | maximum: got 1e+400, want 10`}},
		{"a recursive schema stops", `{"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}`, `1`,
			[]string{`/ | /$defs/a | mem:///t.json#/$defs/a refers to itself without consuming the value`}},
		{"dependentRequired", `{"dependentRequired": {"a": ["b"]}}`, `{"a": 1}`, []string{`/ | / | properties "b" required, if "a" exists`}},
		{"format is an annotation in 2020-12", `{"format": "email"}`, `"not an address"`, nil},
		{"and a check in draft-07", `{"$schema": "http://json-schema.org/draft-07/schema#", "format": "uuid"}`, `"x"`,
			[]string{`/ | / | "x" is not valid uuid: not 36 characters`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := Decode([]byte(tt.value))
			if err != nil {
				t.Fatal(err)
			}
			got := leaves(t, compile(t, tt.schema).Validate(v))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAnyOfAlternatives: an alternative with one problem is that problem,
// so that a message can list what each alternative wanted.
func TestAnyOfAlternatives(t *testing.T) {
	t.Parallel()
	err := compile(t, `{"anyOf": [{"type": "string"}, {"type": "object", "required": ["a", "b"], "minProperties": 3}]}`).Validate(3.0)
	var ve *ValidationError
	if !errors.As(err, &ve) || len(ve.Causes) != 1 {
		t.Fatalf("got %v", err)
	}
	var alts []string
	for _, c := range ve.Causes[0].Causes {
		alts = append(alts, c.Text())
	}
	want := []string{"got number, want string", "got number, want object"}
	if diff := cmp.Diff(want, alts); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestCompileRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema string
		pointer      []string
		want         string
	}{
		{"a type that is none", `{"properties": {"a": {"type": "strin"}}}`, []string{"properties", "a", "type"}, `want one of array, boolean`},
		{"a bound that is no number", `{"minimum": "1"}`, []string{"minimum"}, "want a number, not string"},
		{"a count below 0", `{"maxLength": -1}`, []string{"maxLength"}, "want a whole number of at least 0"},
		{"required not names", `{"required": ["a", 2]}`, []string{"required", "1"}, "want a property name"},
		{"a schema that is no schema", `{"properties": {"a": 3}}`, []string{"properties", "a"}, "a schema is an object or a boolean, not number"},
		{"an empty allOf", `{"allOf": []}`, []string{"allOf"}, "want a non-empty array of schemas"},
		{"a mistake in an unused $defs", `{"$defs": {"x": {"enum": 1}}}`, []string{"$defs", "x", "enum"}, "want an array"},
		{"a ref to nothing", `{"$ref": "#/$defs/none"}`, []string{"$ref"}, "points at nothing"},
		{"a ref to an unknown anchor", `{"$ref": "#none"}`, []string{"$ref"}, "names no anchor"},
		{"a bad pattern", `{"patternProperties": {"(": {}}}`, []string{"patternProperties", "("}, "missing closing )"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc, err := Decode([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			_, err = Compile("mem:///t.json", doc, Options{})
			var se *SchemaError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("compile: %v; want a *SchemaError saying %q", err, tt.want)
			}
			if diff := cmp.Diff(tt.pointer, se.Pointer); diff != "" {
				t.Errorf("pointer mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNothingLoaded: a reference to another document, or a meta-schema
// no draft has, is refused as a *RefError, never fetched.
func TestNothingLoaded(t *testing.T) {
	t.Parallel()
	for _, schema := range []string{
		`{"properties": {"a": {"$ref": "other.json"}}}`,
		`{"$ref": "https://example.com/schema.json#/x"}`,
		`{"$schema": "https://example.com/my-meta-schema"}`,
	} {
		doc, err := Decode([]byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		_, err = Compile("mem:///t.json", doc, Options{})
		var re *RefError
		if !errors.As(err, &re) {
			t.Errorf("%s: compile: %v; want a *RefError", schema, err)
		}
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	if _, err := Decode([]byte(`{"a": 1} {"b": 2}`)); err == nil {
		t.Error("Decode took two values")
	}
	v, err := Decode([]byte(` 0.1 `))
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := number(v); !ok || r.RatString() != "1/10" {
		t.Errorf("0.1 read as %v", r)
	}
}

// TestMultipleOfIsExact: 0.3 is a multiple of 0.1 when read as written.
func TestMultipleOfIsExact(t *testing.T) {
	t.Parallel()
	s := compile(t, `{"multipleOf": 0.1}`)
	for _, v := range []string{`0.3`, `1e2`, `-7.7`} {
		x, _ := Decode([]byte(v))
		if err := s.Validate(x); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}

// TestValidateConcurrently: one Schema checks the calls of many jobs at
// once (go test -race).
func TestValidateConcurrently(t *testing.T) {
	t.Parallel()
	s := compile(t, `{"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 2}, "s": {"pattern": "^a"}}, "unevaluatedProperties": false}`)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				err := s.Validate(map[string]any{"n": float64(i + j), "s": "ab"})
				if (err == nil) != ((i+j)%2 == 0) {
					t.Errorf("n=%d: %v", i+j, err)
				}
			}
		})
	}
	wg.Wait()
}

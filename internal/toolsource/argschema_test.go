package toolsource

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/toolspec"
)

const searchSchema = `{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "What to look for."},
    "limit": {"type": "integer", "minimum": 1, "default": 10},
    "mode": {"type": "string", "enum": ["fast", "exact"]},
    "tags": {"type": "array", "items": {"$ref": "#/definitions/tag"}},
    "opts": {"type": "object", "properties": {"case": {"type": "boolean"}}, "required": ["case"], "additionalProperties": false},
    "when": {"anyOf": [{"type": "string"}, {"type": "null"}]}
  },
  "required": ["query"],
  "additionalProperties": false,
  "definitions": {"tag": {"type": "string", "pattern": "^[a-z]+$"}}
}`

func mustCompile(t *testing.T, schema string) *argSchema {
	t.Helper()
	a, err := compileArgSchema("search", []byte(schema), false)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCheckSpeaksLikeValidate: the problems a JSON Schema finds are told
// as toolspec.Validate tells a Go tool's: the argument's path, what was
// expected, what came, and the likely name for a misspelt one.
func TestCheckSpeaksLikeValidate(t *testing.T) {
	t.Parallel()
	a := mustCompile(t, searchSchema)
	tests := []struct {
		name string
		args string
		want []string
	}{
		{"fine", `{"query": "x", "limit": 3.0, "tags": ["a"], "when": null}`, nil},
		{"missing", `{}`, []string{`args.query: missing required argument: expected string`}},
		{"wrong type", `{"query": 5}`, []string{`args.query: wrong type: expected string, got number 5`}},
		{"integer", `{"query": "x", "limit": 1.5}`, []string{`args.limit: wrong type: expected integer, got number 1.5`}},
		{"minimum", `{"query": "x", "limit": 0}`, []string{`args.limit: out of range: expected a number of at least 1, got number 0`}},
		{"enum", `{"query": "x", "mode": "fats"}`, []string{`args.mode: not one of the allowed values: expected one of "fast", "exact", got string "fats" (did you mean "fast"?)`}},
		{"unknown", `{"query": "x", "limt": 2}`, []string{`args.limt: unknown argument: expected one of limit, mode, opts, query, tags, when (did you mean "limit"?)`}},
		{"nested", `{"query": "x", "opts": {"cas": true}}`, []string{
			`args.opts.cas: unknown field: expected one of case (did you mean "case"?)`,
			`args.opts.case: missing required field: expected boolean`,
		}},
		{"item via ref", `{"query": "x", "tags": ["ok", "Bad", 3]}`, []string{
			`args.tags[1]: does not match the pattern: expected a string matching ^[a-z]+$, got string "Bad"`,
			`args.tags[2]: wrong type: expected string, got number 3`,
		}},
		{"anyOf", `{"query": "x", "when": 3}`, []string{`args.when: matches none of the allowed forms (got number, want string; got number, want null): got number 3`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var args map[string]any
			if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
				t.Fatal(err)
			}
			err := a.check(args)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("check: %v", err)
				}
				return
			}
			var ae *toolspec.ArgsError
			if !errors.As(err, &ae) || !toolspec.IsInvalidArgs(err) {
				t.Fatalf("check: %v (%T); want an *ArgsError", err, err)
			}
			var got []string
			for _, p := range ae.Problems {
				got = append(got, p.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompileArgSchemaRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, want string
		pointer            []string
	}{
		{"not an object", `[1]`, "want a JSON Schema object describing the arguments, not array of 1 item", nil},
		{"no type", `{"properties": {}}`, "no type: want type object", nil},
		{"not type object", `{"type": "string"}`, `type "string": want type object`, []string{"type"}},
		{"bad keyword value", `{"type": "object", "properties": {"a": {"type": "strin"}}}`, "properties.a.type: not a valid JSON Schema", []string{"properties", "a", "type"}},
		{"outside ref", `{"type": "object", "properties": {"a": {"$ref": "other.json"}}}`, "not to other documents", nil},
		{"bad pattern", `{"type": "object", "properties": {"a": {"type": "string", "pattern": "(?!x)"}}}`, "Go's regexp (RE2) cannot compile it", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := compileArgSchema("t", []byte(tt.schema), false)
			var se *schemaError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("compile: %v; want a schemaError saying %q", err, tt.want)
			}
			if tt.pointer != nil {
				if diff := cmp.Diff(tt.pointer, se.Pointer); diff != "" {
					t.Errorf("pointer mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
	// A server's ECMAScript pattern is left to the server.
	a, err := compileArgSchema("t", []byte(`{"type": "object", "properties": {"a": {"type": "string", "pattern": "(?!x)"}}}`), true)
	if err != nil {
		t.Fatalf("lenient: %v", err)
	}
	if err := a.check(map[string]any{"a": "x"}); err != nil {
		t.Errorf("lenient check: %v", err)
	}
}

func TestParamsForListings(t *testing.T) {
	t.Parallel()
	a := mustCompile(t, searchSchema)
	var got []string
	for _, p := range a.params() {
		s := p.Name
		if p.Schema != nil {
			s += ":" + string(p.Schema.Type)
			if p.Schema.Items != nil {
				s += "[" + string(p.Schema.Items.Type) + "]"
			}
			if len(p.Schema.Default) > 0 {
				s += "=" + string(p.Schema.Default)
			}
		}
		if p.Required {
			s += "!"
		}
		got = append(got, s)
	}
	want := []string{"query:string!", "limit:integer=10", "mode:string", "tags:array", "opts:object", "when"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestCheckNearMissOfARequiredName: a schema that leaves other arguments
// open (no additionalProperties: false, as many servers write theirs)
// lets a misspelt name through, and then misses the name it meant: the
// misspelt one is named with the did-you-mean a Go tool's call gets, once
// however the schema refuses it.
func TestCheckNearMissOfARequiredName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		schema, args string
		want         []string
	}{
		{`{"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer"}}, "required": ["path"]}`,
			`{"paht": "a.txt", "extra": 1}`, []string{
				`args.paht: unknown argument: expected one of n, path (did you mean "path"?)`,
				`args.path: missing required argument: expected string`,
			}},
		{`{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false}`,
			`{"paht": "a.txt"}`, []string{
				`args.paht: unknown argument: expected one of path (did you mean "path"?)`,
				`args.path: missing required argument: expected string`,
			}},
		// Nothing near: the other names may be the server's to take.
		{`{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}`,
			`{"recursive": true}`, []string{`args.path: missing required argument: expected string`}},
	} {
		a := mustCompile(t, tt.schema)
		var args map[string]any
		if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
			t.Fatal(err)
		}
		var ae *toolspec.ArgsError
		if err := a.check(args); !errors.As(err, &ae) {
			t.Fatalf("%s: check: %v; want an *ArgsError", tt.args, err)
		}
		var got []string
		for _, p := range ae.Problems {
			got = append(got, p.Error())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.args, diff)
		}
	}
}

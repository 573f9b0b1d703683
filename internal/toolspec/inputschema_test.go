package toolspec

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInputSchema(t *testing.T) {
	t.Parallel()
	self := &Schema{Type: TypeObject, GoType: "tools.Node"}
	self.Properties = []*Property{{Name: "next", Schema: self}}
	tests := []struct {
		name   string
		schema *Schema
		want   string
	}{
		{"string", &Schema{Type: TypeString, GoType: "string", Description: "A name."},
			`{"type":"string","description":"A name."}`},
		{"enum with default", &Schema{Type: TypeString, Enum: []string{"a", "b"}, Default: json.RawMessage(`"a"`)},
			`{"type":"string","enum":["a","b"],"default":"a"}`},
		{"bad default left out", &Schema{Type: TypeString, Default: json.RawMessage(`not json`)},
			`{"type":"string"}`},
		{"int", &Schema{Type: TypeInteger, GoType: "int"}, `{"type":"integer"}`},
		{"int8", &Schema{Type: TypeInteger, GoType: "*int8"}, `{"type":"integer","minimum":-128,"maximum":127}`},
		{"uint32", &Schema{Type: TypeInteger, GoType: "uint32"}, `{"type":"integer","minimum":0,"maximum":4294967295}`},
		{"uint64", &Schema{Type: TypeInteger, GoType: "uint64"}, `{"type":"integer","minimum":0}`},
		{"number", &Schema{Type: TypeNumber, GoType: "float32", Default: json.RawMessage(`0.5`)}, `{"type":"number","default":0.5}`},
		{"array", &Schema{Type: TypeArray, Items: &Schema{Type: TypeInteger, GoType: "int32"}},
			`{"type":"array","items":{"type":"integer","minimum":-2147483648,"maximum":2147483647}}`},
		{"struct", &Schema{Type: TypeObject, Properties: []*Property{
			{Name: "z", Required: true, Schema: &Schema{Type: TypeBoolean}},
			{Name: "a", Schema: &Schema{Type: TypeString}},
		}}, `{"type":"object","properties":{"z":{"type":"boolean"},"a":{"type":"string"}},"required":["z"],"additionalProperties":false}`},
		{"map", &Schema{Type: TypeObject, AdditionalProperties: &Schema{Type: TypeArray, Items: &Schema{Type: TypeString}}},
			`{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}}`},
		{"free-form object", &Schema{Type: TypeObject, Description: "Anything."}, `{"type":"object","description":"Anything."}`},
		{"cycle ends", self,
			`{"type":"object","properties":{"next":{"type":"object"}},"additionalProperties":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &testSpec{Name: "t", Params: []*Property{{Name: "p", Required: true, Schema: tt.schema}}}
			want := `{"type":"object","properties":{"p":` + tt.want + `},"required":["p"],"additionalProperties":false}`
			if diff := cmp.Diff(want, string(s.InputSchema())); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInputSchemaNoParams(t *testing.T) {
	t.Parallel()
	got := string((&testSpec{Name: "current_time"}).InputSchema())
	want := `{"type":"object","properties":{},"additionalProperties":false}`
	if got != want {
		t.Errorf("InputSchema = %s, want %s", got, want)
	}
}

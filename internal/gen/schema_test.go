package gen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// schemaText writes a schema compactly, for tests to compare at a glance:
// "integer(int8)", "string(kinds.Mode)[exact|prefix]", "array([]int) of
// integer(int)", "object(kinds.Point){x: number(float64), y?: …}",
// "object(map[string]int) of integer(int)", with " = default" after.
func schemaText(s *toolspec.Schema) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(%s)", s.Type, s.GoType)
	if len(s.Enum) > 0 {
		fmt.Fprintf(&b, "[%s]", strings.Join(s.Enum, "|"))
	}
	if s.Items != nil {
		fmt.Fprintf(&b, " of %s", schemaText(s.Items))
	}
	if s.AdditionalProperties != nil {
		fmt.Fprintf(&b, " of %s", schemaText(s.AdditionalProperties))
	}
	if len(s.Properties) > 0 {
		b.WriteString("{")
		for i, p := range s.Properties {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(propertyText(p))
		}
		b.WriteString("}")
	}
	if s.Default != nil {
		fmt.Fprintf(&b, " = %s", s.Default)
	}
	return b.String()
}

func propertyText(p *toolspec.Property) string {
	opt := "?"
	if p.Required {
		opt = ""
	}
	return fmt.Sprintf("%s%s: %s", p.Name, opt, schemaText(p.Schema))
}

// TestSchemas checks the type → schema mapping for every supported type,
// as registered by the test packages' generated code.
func TestSchemas(t *testing.T) {
	t.Parallel()
	query := "object(kinds.Query){trace?: boolean(bool), text: string(string), mode: string(kinds.Mode)[exact|prefix|fuzzy], " +
		"limit?: integer(*int), langs?: array([]kinds.Lang) of string(kinds.Lang), " +
		"near?: object(*kinds.Point){x: number(float64), y: number(float64)}, boost?: object(map[string]float32) of number(float32), " +
		"Untagged: integer(int)}"
	tests := []struct {
		tool string
		want []string
	}{
		{"calculate_sum", []string{"a: integer(int)", "b: integer(int)"}},
		{"say_hello", []string{"name: string(string)", `style?: string(string)[plain|loud] = "plain"`}},
		{"sleep", []string{"seconds?: number(float64) = 0.05"}},
		{"who_am_i", nil},
		{"scalars", []string{
			"s: string(string)", "b: boolean(bool)",
			"i: integer(int)", "i8: integer(int8)", "i16: integer(int16)", "i32: integer(int32)", "i64: integer(int64)",
			"u: integer(uint)", "u8: integer(uint8)", "u16: integer(uint16)", "u32: integer(uint32)", "u64: integer(uint64)",
			"f32: number(float32)", "f64: number(float64)", "c: integer(kinds.Count)", "d: integer(time.Duration)",
		}},
		{"search", []string{"q: " + query, "page?: integer(int) = 1", "mode?: string(*kinds.Mode)[exact|prefix]"}},
		{"collections", []string{
			"tags: array(kinds.Tags) of string(string)",
			"grid: array([2][]int) of array([]int) of integer(int)",
			"points: array([]kinds.Point) of object(kinds.Point){x: number(float64), y: number(float64)}",
			"optional: array([]*kinds.Point) of object(*kinds.Point){x: number(float64), y: number(float64)}",
			"scores: object(map[string]int) of integer(int)",
			"byLang: object(map[kinds.Lang]kinds.Query) of " + query,
			`sizes?: array([]string) of string(string)[s|m|l] = ["m"]`,
		}},
		{"defaults", []string{
			`word?: string(string) = "utf-8"`, `quoted?: string(string) = "a, b. c"`, `number?: string(string) = "10"`,
			"n?: integer(int) = 3", "ratio?: number(float64) = 0.5", "flag?: boolean(bool) = true",
			"opt?: integer(*int) = 7", "none?: integer(*int) = null", `at?: object(kinds.Point){x: number(float64), y: number(float64)} = {"x":1,"y":2}`,
			`mode?: string(kinds.Mode)[exact|prefix|fuzzy] = "fuzzy"`, "big?: integer(uint64) = 18446744073709551615",
		}},
		{"join", []string{"sep: string(string)", "parts?: array([]string) of string(string)"}},
		{"measure", []string{"w: object(shared.Window){from: integer(int), to?: integer(*int)}", `unit?: string(shared.Unit)[m|ft] = "m"`}},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, p := range lookup(t, tt.tool).Params {
				got = append(got, propertyText(p))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("params mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSpecText checks what a model reads: names, summaries, descriptions
// (Chinese kept, the Go name dropped), Returns, field comments.
func TestSpecText(t *testing.T) {
	t.Parallel()
	sum := lookup(t, "calculate_sum")
	hello := lookup(t, "say_hello")
	search := lookup(t, "search")
	got := []string{
		sum.Summary, sum.Description, sum.Params[0].Schema.Description, sum.Source,
		hello.Summary, hello.Description, hello.Returns, hello.Params[1].Schema.Description,
		search.Returns, search.Params[0].Schema.Properties[0].Schema.Description, search.Params[0].Schema.Properties[1].Schema.Description,
		search.Params[0].Schema.Properties[6].Schema.Description,
		lookup(t, "measure").Params[0].Schema.Properties[1].Schema.Description,
	}
	want := []string{
		"计算两个整数的和。", "计算两个整数的和。", "第一个整数。", "basic.go:23",
		"Says hello to someone, in the style asked for.",
		"Says hello to someone, in the style asked for.\n\nThe greeting is plain text. It is meant for tests, e.g. of defaults.",
		"the greeting.", "how to greet. Must be one of: plain, loud. Defaults to plain.",
		"the query as it was understood.", "Asks for a trace of the query.", "Text is what to look for.",
		"Weighs fields.",
		"To is the last line, when given.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if w := lookup(t, "touch"); !w.Writes || lookup(t, "calculate_sum").Writes {
		t.Error("Writes is not as the directives say")
	}
}

// TestOutputSchemas checks the output schemas gen declares: an object's,
// as encoding/json writes the result, described by the Returns section
// and the fields' comments or tags; none for a result that is no object.
func TestOutputSchemas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool, want string
	}{
		{"report", `{"type":"object","description":"what was found.","properties":{` +
			`"count":{"type":"integer","description":"Count is how many words counted."},` +
			`"mean":{"type":["number","null"],"description":"Mean is their mean length, null for none."},` +
			`"words":{"type":["array","null"],"description":"Words are the words, left out when there are none.","items":{"type":"string"}},` +
			`"raw":{"type":["string","null"],"description":"Raw is the input as bytes, in base64."},` +
			`"mode":{"type":"string","description":"Mode is a string type's value: its constants are no promise."},` +
			`"by":{"type":["object","null"],"description":"Counts words by their first letter.","additionalProperties":{"type":"integer","minimum":0,"maximum":65535}},` +
			`"when":{"description":"When is a time, which writes itself."},` +
			`"level":{"type":"string","description":"Level is a number written as a string."},` +
			`"extra":{"description":"Extra is anything."},` +
			`"child":{"type":["object","null"],"description":"Child is a report inside this one."},` +
			`"points":{"type":"array","items":{"type":"object","properties":{"x":{"type":"number","description":"X is the horizontal position."},"y":{"type":"number","description":"Y is the vertical position."}},"required":["x","y"],"additionalProperties":false}},` +
			`"source":{"type":"string","description":"Names the input."},` +
			`"tagged":{"type":"string","description":"A field described by its tag."}},` +
			`"required":["count","mean","raw","mode","by","when","level","points","tagged"],"additionalProperties":false}`},
		{"search", `{"type":"object","description":"the query as it was understood.","additionalProperties":{}}`},
		{"calculate_sum", ``},
		{"scalars", ``},
		{"join", ``},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, string(lookup(t, tt.tool).OutputSchema())); diff != "" {
				t.Errorf("output schema mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

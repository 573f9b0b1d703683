package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/kesoku/kesoku/internal/llm/gemini"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// fixtureSpecs are hand-written tools that cover every shape a schema can
// take, so that the exports are tested before and beside the built-ins.
func fixtureSpecs() []*toolset.Tool {
	item := &toolspec.Schema{Type: toolspec.TypeObject, GoType: "tools.Item", Description: "One thing to look at.", Properties: []*toolspec.Property{
		{Name: "name", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeString, GoType: "string", Description: "Its name."}},
		{Name: "weight", Schema: &toolspec.Schema{Type: toolspec.TypeNumber, GoType: "*float64", Description: "How much it counts."}},
	}}
	return []*toolset.Tool{
		{
			Name: "calculate_sum", Summary: "Add two integers.",
			Description: "Add two integers.",
			Params: []*toolspec.Property{
				{Name: "a", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeInteger, GoType: "int", Description: "The first integer."}},
				{Name: "b", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeInteger, GoType: "int", Description: "The second integer."}},
			},
		},
		{
			Name: "search", Summary: "Search the notes.",
			Description: "Search the notes.\n\nMatches are ranked by <relevance> & age.",
			Params: []*toolspec.Property{
				{Name: "query", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeString, GoType: "string", Description: "What to look for."}},
				{Name: "mode", Schema: &toolspec.Schema{Type: toolspec.TypeString, GoType: "tools.Mode", Description: "How to match. Defaults to fast.", Enum: []string{"fast", "exact"}, Default: json.RawMessage(`"fast"`)}},
				{Name: "limit", Schema: &toolspec.Schema{Type: toolspec.TypeInteger, GoType: "uint16", Description: "At most this many results.", Default: json.RawMessage(`10`)}},
				{Name: "offset", Schema: &toolspec.Schema{Type: toolspec.TypeInteger, GoType: "*uint64", Description: "Results to skip."}},
				{Name: "tags", Schema: &toolspec.Schema{Type: toolspec.TypeArray, GoType: "[]string", Description: "Only notes with these tags.", Items: &toolspec.Schema{Type: toolspec.TypeString, GoType: "string"}}},
				{Name: "items", Schema: &toolspec.Schema{Type: toolspec.TypeArray, GoType: "[]tools.Item", Description: "Things to look at.", Items: item}},
				{Name: "exact", Schema: &toolspec.Schema{Type: toolspec.TypeBoolean, GoType: "*bool", Description: "Match case."}},
			},
		},
		{
			Name: "label", Summary: "Label files.",
			Description: "Label files.",
			Params: []*toolspec.Property{
				{Name: "labels", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeObject, GoType: "map[string]string", Description: "Label per file.", AdditionalProperties: &toolspec.Schema{Type: toolspec.TypeString, GoType: "string"}}},
				{Name: "meta", Schema: &toolspec.Schema{Type: toolspec.TypeObject, GoType: "map[string]any", Description: "Anything else."}},
			},
		},
		{Name: "current_time", Summary: "Tell the time.", Description: "Tell the time."},
	}
}

// TestExportKeepsDeclarationOrder checks that every format lists the
// parameters in the order the function declares them, not sorted.
func TestExportKeepsDeclarationOrder(t *testing.T) {
	t.Parallel()
	s := &toolset.Tool{Name: "t", Params: []*toolspec.Property{
		{Name: "zeta", Schema: &toolspec.Schema{Type: toolspec.TypeString}},
		{Name: "alpha", Schema: &toolspec.Schema{Type: toolspec.TypeString}},
		{Name: "mu", Schema: &toolspec.Schema{Type: toolspec.TypeObject, Properties: []*toolspec.Property{
			{Name: "y", Schema: &toolspec.Schema{Type: toolspec.TypeString}},
			{Name: "b", Schema: &toolspec.Schema{Type: toolspec.TypeString}},
		}}},
	}}
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			out, err := JSON(format, []*toolset.Tool{s})
			if err != nil {
				t.Fatal(err)
			}
			if format == FormatGemini {
				// Gemini's properties are a Go map in the SDK: the order
				// travels in propertyOrdering.
				d := gemini.Declaration(s)
				if diff := cmp.Diff([]string{"zeta", "alpha", "mu"}, d.Parameters.PropertyOrdering); diff != "" {
					t.Errorf("propertyOrdering mismatch (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff([]string{"y", "b"}, d.Parameters.Properties["mu"].PropertyOrdering); diff != "" {
					t.Errorf("nested propertyOrdering mismatch (-want +got):\n%s", diff)
				}
				return
			}
			z, a, m := bytes.Index(out, []byte(`"zeta"`)), bytes.Index(out, []byte(`"alpha"`)), bytes.Index(out, []byte(`"mu"`))
			y, b := bytes.Index(out, []byte(`"y"`)), bytes.Index(out, []byte(`"b"`))
			if !(z < a && a < m && y < b) {
				t.Errorf("properties out of declaration order:\n%s", out)
			}
		})
	}
}

func TestExportUnknownFormat(t *testing.T) {
	t.Parallel()
	_, err := Export("gemnii", fixtureSpecs())
	var ufe *UnknownFormatError
	if !errors.As(err, &ufe) {
		t.Fatalf("Export = %v, want *UnknownFormatError", err)
	}
	want := `unknown format "gemnii" (did you mean "gemini"?): want one of gemini, claude, openai, mcp, jsonschema`
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestExportNoSpecs(t *testing.T) {
	t.Parallel()
	for _, format := range Formats {
		out, err := JSON(format, nil)
		if err != nil || string(out) != "[]\n" {
			t.Errorf("JSON(%s, nil) = %q, %v; want an empty list", format, out, err)
		}
	}
}

func TestGeminiChoosesField(t *testing.T) {
	t.Parallel()
	byName := map[string]*genai.FunctionDeclaration{}
	for _, d := range gemini.Tools(fixtureSpecs())[0].FunctionDeclarations {
		byName[d.Name] = d
	}
	tests := []struct {
		tool             string
		params, jsonSchm bool
	}{
		{"calculate_sum", true, false},
		{"search", true, false},
		{"label", false, true}, // a map needs additionalProperties
		{"current_time", false, false},
	}
	for _, tt := range tests {
		d := byName[tt.tool]
		if (d.Parameters != nil) != tt.params || (d.ParametersJsonSchema != nil) != tt.jsonSchm {
			t.Errorf("%s: parameters set %v, parametersJsonSchema set %v; want %v, %v",
				tt.tool, d.Parameters != nil, d.ParametersJsonSchema != nil, tt.params, tt.jsonSchm)
		}
	}
	odd := &toolset.Tool{Name: "odd", Params: []*toolspec.Property{{Name: "not-gemini", Schema: &toolspec.Schema{Type: toolspec.TypeString}}}}
	if d := gemini.Declaration(odd); d.Parameters != nil || d.ParametersJsonSchema == nil {
		t.Errorf("a property name outside Gemini's rule went to parameters")
	}
}

// TestExportFixtures checks the five formats of the fixture tools against
// golden files, and that the providers' SDKs read them back unchanged.
func TestExportFixtures(t *testing.T) {
	t.Parallel()
	CheckExports(t, "testdata/export", fixtureSpecs())
}

// CheckExports checks every format of specs against dir/<format>.json
// (rewritten with -update), that the gemini and claude outputs are what
// the SDKs themselves would send, and that no Gemini `parameters` schema
// holds a keyword Gemini refuses. The built-in tools' test calls it too.
func CheckExports(t *testing.T, dir string, specs []*toolset.Tool) {
	t.Helper()
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			got, err := JSON(format, specs)
			if err != nil {
				t.Fatal(err)
			}
			CheckGolden(t, filepath.Join(dir, format+".json"), got)
			switch format {
			case FormatGemini:
				CheckSDKRoundTrip[[]*genai.Tool](t, got)
				CheckGeminiParameters(t, got)
			case FormatClaude:
				CheckSDKRoundTrip[[]anthropic.ToolUnionParam](t, got)
				CheckClaudeTools(t, got)
			}
		})
	}
}

// CheckGolden compares got with the file at path, or rewrites the file
// under -update.
func CheckGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// CheckSDKRoundTrip decodes out into the SDK's type T, encodes it again,
// and fails when anything changed: a key the SDK does not know, or a value
// it would send differently, means the output is not what the SDK sends.
func CheckSDKRoundTrip[T any](t *testing.T, out []byte) {
	t.Helper()
	var typed T
	if err := json.Unmarshal(out, &typed); err != nil {
		t.Fatalf("decode into %T: %v", typed, err)
	}
	again, err := json.Marshal(typed)
	if err != nil {
		t.Fatalf("encode %T: %v", typed, err)
	}
	var want, got any
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(again, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%T does not reproduce the output (-ours +SDK's):\n%s", typed, diff)
	}
}

// geminiKeys are the only keys Gemini's `parameters` toolspec.Schema accepts; any
// other is a hard 400.
var geminiKeys = []string{
	"type", "format", "title", "description", "nullable", "enum", "items", "properties",
	"required", "propertyOrdering", "minItems", "maxItems", "minLength", "maxLength",
	"pattern", "minProperties", "maxProperties", "minimum", "maximum", "anyOf", "default", "example",
}

var geminiTypeNames = []string{"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"}

var (
	portableToolName   = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`)
	geminiParamNameStr = `^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`
)

// CheckGeminiParameters walks every `parameters` schema of a gemini export
// and fails on a key outside Gemini's subset, a type it does not know, an
// enum on a type that cannot have one, or a name outside the rules.
func CheckGeminiParameters(t testing.TB, out []byte) {
	t.Helper()
	var tools []struct {
		FunctionDeclarations []map[string]any `json:"functionDeclarations"`
	}
	if err := json.Unmarshal(out, &tools); err != nil {
		t.Fatal(err)
	}
	paramName := regexp.MustCompile(geminiParamNameStr)
	for _, tool := range tools {
		for _, d := range tool.FunctionDeclarations {
			name, _ := d["name"].(string)
			if !portableToolName.MatchString(name) {
				t.Errorf("tool name %q breaks the portable rule %s", name, portableToolName)
			}
			_, hasP := d["parameters"]
			_, hasJ := d["parametersJsonSchema"]
			if hasP && hasJ {
				t.Errorf("%s: parameters and parametersJsonSchema are mutually exclusive", name)
			}
			if p, ok := d["parameters"].(map[string]any); ok {
				if p["type"] != "OBJECT" {
					t.Errorf("%s: parameters type %v, want OBJECT", name, p["type"])
				}
				walkGeminiSchema(t, name+".parameters", p, paramName)
			}
			if j, ok := d["parametersJsonSchema"].(map[string]any); ok && j["type"] != "object" {
				t.Errorf("%s: parametersJsonSchema type %v, want object", name, j["type"])
			}
		}
	}
}

func walkGeminiSchema(t testing.TB, at string, s map[string]any, paramName *regexp.Regexp) {
	t.Helper()
	for k := range s {
		if !slices.Contains(geminiKeys, k) {
			t.Errorf("%s: key %q is not in Gemini's parameters subset", at, k)
		}
	}
	typ, _ := s["type"].(string)
	if !slices.Contains(geminiTypeNames, typ) {
		t.Errorf("%s: type %v is not one of %v", at, s["type"], geminiTypeNames)
	}
	if enum, ok := s["enum"].([]any); ok {
		if typ != "STRING" && typ != "INTEGER" {
			t.Errorf("%s: enum on %s", at, typ)
		}
		for _, v := range enum {
			if _, ok := v.(string); !ok {
				t.Errorf("%s: enum value %v is not a string", at, v)
			}
		}
	}
	if typ == "OBJECT" {
		props, _ := s["properties"].(map[string]any)
		if len(props) == 0 {
			t.Errorf("%s: OBJECT without properties", at)
		}
		for name, p := range props {
			if !paramName.MatchString(name) {
				t.Errorf("%s: property name %q breaks Gemini's rule %s", at, name, paramName)
			}
			ps, ok := p.(map[string]any)
			if !ok {
				t.Errorf("%s.%s: not a schema", at, name)
				continue
			}
			walkGeminiSchema(t, at+"."+name, ps, paramName)
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		walkGeminiSchema(t, at+"[]", items, paramName)
	} else if typ == "ARRAY" {
		t.Errorf("%s: ARRAY without items", at)
	}
	if anyOf, ok := s["anyOf"].([]any); ok {
		for i, sub := range anyOf {
			if m, ok := sub.(map[string]any); ok {
				walkGeminiSchema(t, fmt.Sprintf("%s.anyOf[%d]", at, i), m, paramName)
			}
		}
	}
}

// CheckClaudeTools checks the shape of the claude format: each tool
// has a name, and an input_schema of type object with properties.
func CheckClaudeTools(t testing.TB, out []byte) {
	t.Helper()
	var tools []map[string]any
	if err := json.Unmarshal(out, &tools); err != nil {
		t.Fatal(err)
	}
	for i, tool := range tools {
		name, _ := tool["name"].(string)
		if !portableToolName.MatchString(name) {
			t.Errorf("tool %d: name %q breaks the portable rule", i, name)
		}
		schema, ok := tool["input_schema"].(map[string]any)
		if !ok {
			t.Errorf("%s: no input_schema", name)
			continue
		}
		if schema["type"] != "object" {
			t.Errorf("%s: input_schema type %v, want object", name, schema["type"])
		}
		if _, ok := schema["properties"].(map[string]any); !ok {
			t.Errorf("%s: input_schema has no properties object", name)
		}
		for k := range tool {
			if !slices.Contains([]string{"name", "description", "input_schema"}, k) {
				t.Errorf("%s: unexpected key %q", name, k)
			}
		}
	}
}

// recordingTB keeps the errors a check reports, so that the checks
// themselves can be shown to fail.
type recordingTB struct {
	testing.TB
	errs []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestChecksCatch makes sure the Gemini and Claude checks can fail.
func TestChecksCatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		check func(testing.TB, []byte)
		out   string
		want  []string
	}{
		{"gemini map", CheckGeminiParameters,
			`[{"functionDeclarations":[{"name":"x","parameters":{"type":"OBJECT","properties":{"m":{"type":"OBJECT","additionalProperties":{"type":"STRING"}}}}}]}]`,
			[]string{`x.parameters.m: key "additionalProperties" is not in Gemini's parameters subset`, `x.parameters.m: OBJECT without properties`}},
		{"gemini lower-case type and bad name", CheckGeminiParameters,
			`[{"functionDeclarations":[{"name":"x","parameters":{"type":"OBJECT","properties":{"a.b":{"type":"string"}}}}]}]`,
			[]string{`x.parameters: property name "a.b" breaks Gemini's rule ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`, `x.parameters.a.b: type string is not one of [STRING NUMBER INTEGER BOOLEAN ARRAY OBJECT]`}},
		{"gemini const and enum on number", CheckGeminiParameters,
			`[{"functionDeclarations":[{"name":"9x","parameters":{"type":"OBJECT","properties":{"n":{"type":"NUMBER","enum":["1"],"const":1}}}}]}]`,
			[]string{`tool name "9x" breaks the portable rule ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$`, `9x.parameters.n: key "const" is not in Gemini's parameters subset`, `9x.parameters.n: enum on NUMBER`}},
		{"claude without input_schema", CheckClaudeTools, `[{"name":"x","inputSchema":{}}]`,
			[]string{`x: no input_schema`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := &recordingTB{TB: t}
			tt.check(r, []byte(tt.out))
			slices.Sort(r.errs)
			slices.Sort(tt.want)
			if diff := cmp.Diff(tt.want, r.errs); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnescapeHTML(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`"a \u003cb\u003e \u0026 c"`, `"a <b> & c"`},
		{`"\\u003c stays"`, `"\\u003c stays"`},
		{`"\\\u003c"`, `"\\<"`},
		{`"\u00e9 \n \" \u003C"`, `"\u00e9 \n \" \u003C"`},
		{`"end\`, `"end\`},
	}
	for _, tt := range tests {
		if got := string(unescapeHTML([]byte(tt.in))); got != tt.want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// FuzzUnescapeHTML checks that unescaping never changes what a JSON string
// means.
func FuzzUnescapeHTML(f *testing.F) {
	for _, s := range []string{"<a> & b", `\u003c`, `\\u003c`, "é\x00\"\\", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc, err := json.Marshal(s)
		if err != nil {
			t.Skip()
		}
		var got string
		if err := json.Unmarshal(unescapeHTML(enc), &got); err != nil {
			t.Fatalf("unescaped %s is not JSON: %v", enc, err)
		}
		var want string
		if err := json.Unmarshal(enc, &want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("unescaping %s changed %q to %q", enc, want, got)
		}
	})
}

package toolspec

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Types for typed tools: as a user's package would declare them.
type (
	point struct {
		X float64 `json:"x" description:"Across."`
		Y float64 `json:"y,omitempty"`
	}
	base struct {
		Trace bool `json:"trace,omitempty" description:"Asks for a trace."`
	}
	query struct {
		base
		Text   string            `json:"text" description:"What to look for."`
		Mode   mode              `json:"mode" enum:"exact, prefix"`
		Limit  *int              `json:"limit" description:"At most this many."`
		Langs  []string          `json:"langs,omitempty" enum:"en,de"`
		Near   *point            `json:"near,omitempty"`
		Boost  map[string]int8   `json:"boost,omitempty"`
		Grid   [2]uint16         `json:"grid,omitzero"`
		Labels map[mode][]string `json:"labels,omitempty"`
		Skip   string            `json:"-"`
		hidden int
		Plain  float32
	}
	selfish struct {
		Next *selfish `json:"next"`
	}
	stamp time.Time
	twice struct {
		A int `json:"B"`
		B int
	}
	quotedArg struct {
		N int `json:"n,string"`
	}
	ptrPtr struct {
		P **int `json:"p"`
	}
	embeddedPtr struct {
		*point
	}
	badEnum struct {
		N int `json:"n" enum:"1,2"`
	}
	emptyEnum struct {
		S string `json:"s" enum:" , "`
	}
)

func (s *stamp) UnmarshalJSON([]byte) error { return nil }

func does[In, Out any](context.Context, *ToolContext, In) (Out, error) {
	var out Out
	return out, nil
}

// TestAddParams checks what the parameters of a typed tool say, as the
// input schema every format is built from.
func TestAddParams(t *testing.T) {
	t.Parallel()
	r := New()
	if err := Add(r, "search", "Searches. More words.", does[query, map[string]any]); err != nil {
		t.Fatal(err)
	}
	s, _ := r.Lookup("search")
	want := `{"type":"object","properties":{` +
		`"trace":{"type":"boolean","description":"Asks for a trace."},` +
		`"text":{"type":"string","description":"What to look for."},` +
		`"mode":{"type":"string","enum":["exact","prefix"]},` +
		`"limit":{"type":"integer","description":"At most this many."},` +
		`"langs":{"type":"array","items":{"type":"string","enum":["en","de"]}},` +
		`"near":{"type":"object","properties":{"x":{"type":"number","description":"Across."},"y":{"type":"number"}},"required":["x"],"additionalProperties":false},` +
		`"boost":{"type":"object","additionalProperties":{"type":"integer","minimum":-128,"maximum":127}},` +
		`"grid":{"type":"array","items":{"type":"integer","minimum":0,"maximum":65535}},` +
		`"labels":{"type":"object","additionalProperties":{"type":"array","items":{"type":"string"}}},` +
		`"Plain":{"type":"number"}},` +
		`"required":["text","mode","Plain"],"additionalProperties":false}`
	if diff := cmp.Diff(want, string(s.InputSchema())); diff != "" {
		t.Errorf("input schema mismatch (-want +got):\n%s", diff)
	}
	if s.Summary != "Searches." || s.Description != "Searches. More words." {
		t.Errorf("summary %q, description %q", s.Summary, s.Description)
	}
	if !strings.HasPrefix(s.Source, "typed_test.go:") || s.Package != "github.com/kesoku/kesoku/internal/toolspec" {
		t.Errorf("Source %q, Package %q: want this file and package", s.Source, s.Package)
	}
	if s.OutputSchema() == nil {
		t.Error("a map result has no output schema")
	}
}

// TestAddCall decodes a call into In and hands it to the function, and
// says what is wrong with one that does not fit.
func TestAddCall(t *testing.T) {
	t.Parallel()
	r := New()
	var got query
	err := Add(r, "search", "Searches.", func(_ context.Context, _ *ToolContext, q query) (int, error) {
		got = q
		return len(q.Text), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.Lookup("search")
	args := map[string]any{
		"text": "go", "mode": "exact", "trace": true, "limit": 3.0, "langs": []any{"en"},
		"near": map[string]any{"x": 1.5}, "boost": map[string]any{"a": int64(-2)},
		"grid": []any{1.0, 2.0}, "labels": map[string]any{"k": []any{"v"}}, "Plain": json.Number("0.5"),
	}
	if err := s.Validate(args); err != nil {
		t.Fatal(err)
	}
	out, err := s.Call(context.Background(), &ToolContext{}, args)
	if err != nil || out != 2 {
		t.Fatalf("Call = %v, %v", out, err)
	}
	three := 3
	want := query{
		base: base{Trace: true}, Text: "go", Mode: "exact", Limit: &three, Langs: []string{"en"},
		Near: &point{X: 1.5}, Boost: map[string]int8{"a": -2}, Grid: [2]uint16{1, 2},
		Labels: map[mode][]string{"k": {"v"}}, Plain: 0.5,
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(query{}, base{})); diff != "" {
		t.Errorf("In mismatch (-want +got):\n%s", diff)
	}

	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"mode": "exact", "Plain": 1.0}, `args.text: missing required argument`},
		{map[string]any{"text": "x", "mode": "exakt", "Plain": 1.0}, `args.mode: not one of the allowed values: expected one of "exact", "prefix", got string "exakt" (did you mean "exact"?)`},
		{map[string]any{"text": "x", "mode": 1.0}, `args.mode: wrong type: expected string (toolspec.mode), got number 1`},
		{map[string]any{"text": "x", "mode": "exact", "langs": []any{"en", "fr"}, "Plain": 1.0}, `args.langs[1]: not one of the allowed values: expected one of "en", "de", got string "fr"`},
		{map[string]any{"text": "x", "mode": "exact", "near": map[string]any{}, "Plain": 1.0}, `args.near.x: missing required field`},
		{map[string]any{"text": "x", "mode": "exact", "boost": map[string]any{"a b": 300.0}, "Plain": 1.0}, `args.boost["a b"]: out of range: expected integer (int8) from -128 to 127, got number 300`},
		{map[string]any{"text": "x", "mode": "exact", "grid": []any{1.0}, "Plain": 1.0}, `args.grid: wrong length: expected array of 2 items, got array of 1 item`},
		{map[string]any{"text": "x", "mode": "exact", "Plain": 1e39}, `args.Plain: out of range: expected a finite number (float32), got number 1e+39`},
	} {
		_, err := s.Call(context.Background(), &ToolContext{}, tt.args)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Call(%v) = %v, want %s", tt.args, err, tt.want)
		}
		if !IsInvalidArgs(err) {
			t.Errorf("Call(%v): %v does not blame the arguments", tt.args, err)
		}
	}
}

// TestAddPointerIn takes a pointer to a struct as well as a struct.
func TestAddPointerIn(t *testing.T) {
	t.Parallel()
	r := New()
	err := Add(r, "where", "Says where.", func(_ context.Context, _ *ToolContext, p *point) (string, error) {
		if p == nil {
			return "", errors.New("no point")
		}
		return "here", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.Lookup("where")
	out, err := s.Call(context.Background(), &ToolContext{}, map[string]any{"x": 1.0})
	if err != nil || out != "here" {
		t.Errorf("Call = %v, %v", out, err)
	}
}

// TestAddErrors refuses, at registration, what a typed tool cannot be.
func TestAddErrors(t *testing.T) {
	t.Parallel()
	r := New()
	if err := Add(r, "taken", "Is here first.", does[point, int]); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		add  func() error
		want string
	}{
		{"bad name", func() error { return Add(r, "has space", "Does.", does[point, int]) }, `tool name "has space" does not match`},
		{"clash", func() error { return Add(r, "taken", "Again.", does[point, int]) }, `tool "taken" already registered at typed_test.go:`},
		{"no description", func() error { return Add(r, "quiet", " \n", does[point, int]) }, `the description is empty`},
		{"no function", func() error { return Add[point, int](r, "nil", "Does.", nil) }, `no function`},
		{"not a struct", func() error { return Add(r, "scalar", "Does.", does[int, int]) }, `arguments int: not a struct`},
		{"map In", func() error { return Add(r, "m", "Does.", does[map[string]any, int]) }, `not a struct`},
		{"interface field", func() error { return Add(r, "i", "Does.", does[struct{ V any }, int]) }, `field V: unsupported type interface {}: an interface has no schema`},
		{"channel field", func() error { return Add(r, "c", "Does.", does[struct{ C chan int }, int]) }, `a channel cannot come from JSON`},
		{"map key", func() error { return Add(r, "k", "Does.", does[struct{ M map[int]int }, int]) }, `map keys must be strings`},
		{"decodes itself", func() error { return Add(r, "d", "Does.", does[struct{ S stamp }, int]) }, `type toolspec.stamp decodes itself`},
		{"recursive", func() error { return Add(r, "r", "Does.", does[selfish, int]) }, `recursive type toolspec.selfish`},
		{"two names", func() error { return Add(r, "t", "Does.", does[twice, int]) }, `two fields are named "B" in JSON`},
		{"quoted", func() error { return Add(r, "q", "Does.", does[quotedArg, int]) }, `uses the json ",string" option`},
		{"pointer to pointer", func() error { return Add(r, "p", "Does.", does[ptrPtr, int]) }, `a pointer to a pointer`},
		{"embedded pointer", func() error { return Add(r, "e", "Does.", does[embeddedPtr, int]) }, `embedded pointer point`},
		{"enum on a number", func() error { return Add(r, "n", "Does.", does[badEnum, int]) }, `field N: an enum tag is for a string (or a list or map of strings), not int`},
		{"empty enum", func() error { return Add(r, "s", "Does.", does[emptyEnum, int]) }, `field S: the enum tag lists no values`},
		{"result not JSON", func() error { return Add(r, "o", "Does.", does[point, chan int]) }, `result chan int cannot be encoded as JSON`},
		{"result field not JSON", func() error { return Add(r, "f", "Does.", does[point, struct{ F func() }]) }, `field F: func() has no JSON form`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.add()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Add = %v, want an error with %q", err, tt.want)
			}
		})
	}
	if got := r.Names(); !cmp.Equal(got, []string{"taken"}) {
		t.Errorf("registered %v: a refused tool must not be registered", got)
	}
}

type (
	report struct {
		Count  int               `json:"count" description:"How many."`
		Mean   *float64          `json:"mean"`
		Words  []string          `json:"words,omitempty"`
		Raw    []byte            `json:"raw"`
		By     map[string]uint16 `json:"by"`
		When   time.Time         `json:"when"`
		Level  int8              `json:"level,string"`
		Extra  any               `json:"extra,omitempty"`
		Child  *report           `json:"child,omitempty"`
		Points [2]point          `json:"points"`
		*meta
		Skip   int `json:"-"`
		hidden int
	}
	meta struct {
		Source string `json:"source"`
	}
	clashing struct {
		A int `json:"B"`
		B int
	}
	selfWriting struct{}
)

func (selfWriting) MarshalJSON() ([]byte, error) { return []byte(`1`), nil }

// TestResultSchema derives the output schema from Out: an object's, no
// more than encoding/json promises, and none for what is not an object.
func TestResultSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		add  func(*testRegistry) error
		want string
	}{
		{"struct", func(r *testRegistry) error { return Add(r, "t", "Does.", does[point, report]) },
			`{"type":"object","properties":{` +
				`"count":{"type":"integer","description":"How many."},` +
				`"mean":{"type":["number","null"]},` +
				`"words":{"type":["array","null"],"items":{"type":"string"}},` +
				`"raw":{"type":["string","null"]},` +
				`"by":{"type":["object","null"],"additionalProperties":{"type":"integer","minimum":0,"maximum":65535}},` +
				`"when":{},` +
				`"level":{"type":"string"},` +
				`"extra":{},` +
				`"child":{"type":["object","null"]},` +
				`"points":{"type":"array","items":{"type":"object","properties":{"x":{"type":"number","description":"Across."},"y":{"type":"number"}},"required":["x"],"additionalProperties":false}},` +
				`"source":{"type":"string"}},` +
				`"required":["count","mean","raw","by","when","level","points"],"additionalProperties":false}`},
		{"pointer", func(r *testRegistry) error { return Add(r, "t", "Does.", does[point, *point]) },
			`{"type":"object","properties":{"x":{"type":"number","description":"Across."},"y":{"type":"number"}},"required":["x"],"additionalProperties":false}`},
		{"map", func(r *testRegistry) error { return Add(r, "t", "Does.", does[point, map[string][]int]) },
			`{"type":"object","additionalProperties":{"type":["array","null"],"items":{"type":"integer"}}}`},
		{"names clash", func(r *testRegistry) error { return Add(r, "t", "Does.", does[point, clashing]) }, `{"type":"object"}`},
		{"string", func(r *testRegistry) error { return Add(r, "t", "Does.", does[point, string]) }, ``},
		{"slice", func(r *testRegistry) error { return Add(r, "t", "Does.", does[point, []point]) }, ``},
		{"any", func(r *testRegistry) error { return Add(r, "t", "Does.", does[point, any]) }, ``},
		{"writes itself", func(r *testRegistry) error { return Add(r, "t", "Does.", does[point, selfWriting]) }, ``},
		{"time", func(r *testRegistry) error { return Add(r, "t", "Does.", does[point, *time.Time]) }, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := New()
			if err := tt.add(r); err != nil {
				t.Fatal(err)
			}
			s, _ := r.Lookup("t")
			if diff := cmp.Diff(tt.want, string(s.OutputSchema())); diff != "" {
				t.Errorf("output schema mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

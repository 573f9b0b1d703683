package parity

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/registry"
)

// both returns the tool as kesoku gen registered it in registry.Default
// and as registry.Add registers it.
func both(t *testing.T) (generated, typed *toolset.Tool) {
	t.Helper()
	g, ok := registry.Default.Lookup("order")
	if !ok {
		t.Fatal("the generated file registered no tool order")
	}
	r := registry.New()
	if err := AddOrder(r); err != nil {
		t.Fatal(err)
	}
	a, _ := r.Lookup("order")
	return toolset.FromSpec(g), toolset.FromSpec(a)
}

// TestSchemas holds both ways to one input schema, one output schema and
// one text.
func TestSchemas(t *testing.T) {
	t.Parallel()
	g, a := both(t)
	for _, c := range []struct {
		what      string
		gen, typd any
	}{
		{"input schema", json.RawMessage(g.InputSchema()), json.RawMessage(a.InputSchema())},
		{"JSON Schema", json.RawMessage(g.JSONSchema()), json.RawMessage(a.JSONSchema())},
		{"output schema", json.RawMessage(g.OutputSchema()), json.RawMessage(a.OutputSchema())},
		{"summary", g.Summary, a.Summary},
		{"description", g.Description, a.Description},
		{"package", g.Package, a.Package},
	} {
		gen, _ := json.MarshalIndent(c.gen, "", "  ")
		typd, _ := json.MarshalIndent(c.typd, "", "  ")
		if diff := cmp.Diff(string(gen), string(typd)); diff != "" {
			t.Errorf("%s differs (-generated +typed):\n%s", c.what, diff)
		}
	}
	if g.OutputSchema() == nil {
		t.Error("no output schema for a struct result")
	}
}

// call is the arguments of one call, as a JSON decoder gives them.
func call(t *testing.T, args string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCalls holds both ways to one behaviour for every kind of mistake
// in a call: Validate's problems, and what Call says of arguments that
// skipped it (a tool called directly), to the word.
func TestCalls(t *testing.T) {
	t.Parallel()
	g, a := both(t)
	const good = `"name": "ann", "items": [{"name": "pen", "size": "m"}], "urgent": null, "mode": "air",
		"notes": {}, "limit": 3, "weight": 1.5, "grid": [[1], [2, 3]], "when": [null, 4]`
	tests := map[string]string{
		"good":                  `{` + good + `}`,
		"all fields":            `{"name": "ann", "items": [{"name": "pen", "count": 2, "tags": ["a"], "size": "s", "level": -3, "attrs": {"x": 9}, "gift": {"paper": "red"}}], "urgent": true, "mode": "sea", "notes": {"a b": "c"}, "limit": 255, "weight": 2, "grid": [[], []], "when": []}`,
		"missing":               `{"items": []}`,
		"unknown":               `{` + good + `, "nmae": "x"}`,
		"wrong type":            `{"name": 1, "items": {}, "urgent": "yes", "mode": "air", "notes": [], "limit": "3", "weight": "1", "grid": 1, "when": 1}`,
		"enum":                  `{"name": "a", "items": [], "mode": "iar", "notes": {}, "limit": 1, "weight": 1, "grid": [[], []], "when": []}`,
		"range":                 `{"name": "a", "items": [], "mode": "air", "notes": {}, "limit": 256, "weight": 1e39, "grid": [[], []], "when": []}`,
		"fraction":              `{"name": "a", "items": [], "mode": "air", "notes": {}, "limit": 1.5, "weight": 1, "grid": [[], []], "when": []}`,
		"array length":          `{"name": "a", "items": [], "mode": "air", "notes": {}, "limit": 1, "weight": 1, "grid": [[1]], "when": []}`,
		"deep":                  `{"name": "a", "items": [{"name": "x", "size": "m"}, {"name": "y", "size": "xl", "level": 200, "gift": {}, "attrs": {"k": -1}}], "mode": "air", "notes": {}, "limit": 1, "weight": 1, "grid": [[], ["z"]], "when": [1.5]}`,
		"null item":             `{"name": "a", "items": [null], "mode": "air", "notes": {"k": null}, "limit": 1, "weight": 1, "grid": [[], []], "when": []}`,
		"field missing in item": `{"name": "a", "items": [{"size": "m"}], "mode": "air", "notes": {}, "limit": 1, "weight": 1, "grid": [[], []], "when": []}`,
		"level":                 `{"name": "a", "items": [{"name": "y", "size": "l", "level": 200}], "mode": "air", "notes": {}, "limit": 1, "weight": 1, "grid": [[], []], "when": []}`,
		"map value":             `{"name": "a", "items": [{"name": "y", "size": "l", "attrs": {"k": -1}}], "mode": "air", "notes": {}, "limit": 1, "weight": 1, "grid": [[], []], "when": []}`,
		"pointer field":         `{"name": "a", "items": [{"name": "y", "size": "l", "gift": {}}], "mode": "air", "notes": {}, "limit": 1, "weight": 1, "grid": [[], []], "when": []}`,
		"inner array":           `{"name": "a", "items": [], "mode": "air", "notes": {}, "limit": 1, "weight": 1, "grid": [[], ["z"]], "when": []}`,
		"pointer item":          `{"name": "a", "items": [], "mode": "air", "notes": {}, "limit": 1, "weight": 1, "grid": [[], []], "when": [null, 1.5]}`,
		"null map value":        `{"name": "a", "items": [], "mode": "air", "notes": {"k": null}, "limit": 1, "weight": 1, "grid": [[], []], "when": []}`,
		"null required":         `{"name": null, "items": [], "mode": "air", "notes": {}, "limit": 1, "weight": 1, "grid": [[], []], "when": []}`,
		"unknown field":         `{"name": "a", "items": [{"name": "x", "size": "m", "colour": 1}], "mode": "air", "notes": {}, "limit": 1, "weight": 1, "grid": [[], []], "when": []}`,
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// Both get the same arguments, each its own copy.
			gv, av := errText(g.Validate(call(t, args))), errText(a.Validate(call(t, args)))
			if diff := cmp.Diff(gv, av); diff != "" {
				t.Errorf("Validate differs (-generated +typed):\n%s", diff)
			}
			gr, gerr := g.Call(context.Background(), &registry.ToolContext{}, call(t, args))
			ar, aerr := a.Call(context.Background(), &registry.ToolContext{}, call(t, args))
			if diff := cmp.Diff(errText(gerr), errText(aerr)); diff != "" {
				t.Errorf("Call's error differs (-generated +typed):\n%s", diff)
			}
			if toolspec.IsInvalidArgs(gerr) != toolspec.IsInvalidArgs(aerr) {
				t.Errorf("one error blames the arguments and the other not: %v / %v", gerr, aerr)
			}
			gj, _ := json.Marshal(gr)
			aj, _ := json.Marshal(ar)
			if diff := cmp.Diff(string(gj), string(aj)); diff != "" {
				t.Errorf("results differ (-generated +typed):\n%s", diff)
			}
			if name == "good" && (gv != "" || gerr != nil) {
				t.Errorf("a good call failed: %s %v", gv, gerr)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

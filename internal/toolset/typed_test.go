package toolset

import (
	"context"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/registry"
)

// TestTypedTool: a tool registered by registry.Add is, in a set, a tool
// with the schemas of its struct and validation of its arguments.
func TestTypedTool(t *testing.T) {
	t.Parallel()
	type greetArgs struct {
		Name  string `json:"name" description:"Who to greet."`
		Times *int   `json:"times,omitempty" description:"How many times; once when left out."`
		Style string `json:"style,omitempty" enum:"plain,loud" description:"How to say it."`
	}
	type greeting struct {
		Text string `json:"text" description:"The greeting."`
	}
	reg := registry.New()
	err := registry.Add(reg, "greet", "Says hello to someone.", func(_ context.Context, _ *registry.ToolContext, in greetArgs) (greeting, error) {
		return greeting{Text: strings.Repeat("hello "+in.Name, 1)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tool, ok := Of(reg).Lookup("greet")
	if !ok {
		t.Fatal("greet is not in the set")
	}
	for _, c := range []struct{ got, want string }{
		{string(tool.InputSchema()), `{"type":"object","properties":{"name":{"type":"string","description":"Who to greet."},"times":{"type":"integer","description":"How many times; once when left out."},"style":{"type":"string","description":"How to say it.","enum":["plain","loud"]}},"required":["name"],"additionalProperties":false}`},
		{string(tool.OutputSchema()), `{"type":"object","properties":{"text":{"type":"string","description":"The greeting."}},"required":["text"],"additionalProperties":false}`},
		{tool.Validate(map[string]any{"name": "kesoku", "style": "lowd"}).Error(), `tool "greet": args.style: not one of the allowed values: expected one of "plain", "loud", got string "lowd" (did you mean "loud"?)`},
	} {
		if c.got != c.want {
			t.Errorf("got\n%s\nwant\n%s", c.got, c.want)
		}
	}
	if err := tool.Validate(map[string]any{"name": "kesoku", "times": 2.0, "style": "loud"}); err != nil {
		t.Errorf("Validate = %v", err)
	}
	if !strings.HasPrefix(tool.Source, "typed_test.go:") || tool.Package != "github.com/kesoku/kesoku/internal/toolset" {
		t.Errorf("Source %q, Package %q: want this file and package", tool.Source, tool.Package)
	}
}

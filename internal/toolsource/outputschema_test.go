package toolsource

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/kesoku/kesoku/internal/toolsource/mcptest"
)

// TestOutputSchemaKept: a server's tool that declares an outputSchema
// (fakemcp's add, whose result is {"sum": n}) keeps it, as the server wrote
// it, over standard input and output and over HTTP; a tool without one
// has none.
func TestOutputSchemaKept(t *testing.T) {
	t.Parallel()
	web := httptest.NewServer(mcptest.HTTPHandler("s3cret"))
	t.Cleanup(web.Close)
	for _, tc := range []struct {
		prefix string
		set    *Set
	}{
		{"fake__", fakeServer(t, context.Background(), Options{})},
		{"web__", httpServer(t, Options{}, web.URL)},
	} {
		if err := tc.set.Registry.Load(); err != nil {
			t.Fatal(err)
		}
		add, ok := tc.set.Registry.Lookup(tc.prefix + "add")
		if !ok {
			t.Fatalf("no %sadd", tc.prefix)
		}
		var schema struct {
			Type       string
			Properties map[string]struct{ Type string }
			Required   []string
		}
		out := add.OutputSchema()
		if err := json.Unmarshal(out, &schema); err != nil {
			t.Fatalf("%sadd: output schema %s: %v", tc.prefix, out, err)
		}
		if schema.Type != "object" || schema.Properties["sum"].Type != "integer" || len(schema.Required) != 1 || schema.Required[0] != "sum" {
			t.Errorf("%sadd: output schema %s, want the object {sum: integer} the server declares", tc.prefix, out)
		}
		if !json.Valid(out) || len(out) != len(compactObject(out)) {
			t.Errorf("%sadd: output schema %s is not compact JSON", tc.prefix, out)
		}
		echo, _ := tc.set.Registry.Lookup(tc.prefix + "echo")
		if out := echo.OutputSchema(); out != nil {
			t.Errorf("%secho: output schema %s, want none", tc.prefix, out)
		}
	}
}

func TestCompactObject(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{` { "type" : "object" } `, `{"type":"object"}`},
		{`null`, ``},
		{`true`, ``},
		{`[]`, ``},
		{`{"type":`, ``},
		{``, ``},
	} {
		if got := string(compactObject(json.RawMessage(tc.in))); got != tc.want {
			t.Errorf("compactObject(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

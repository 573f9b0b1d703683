package toolsource

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/toolsource/mcptest"
)

// TestResultHeldToOutputSchema: a tool that declares an outputSchema
// returns structuredContent that validates against it, or its call is
// an error saying what did not match: a value of another shape, or no
// structuredContent at all. Over standard input and output as over HTTP.
func TestResultHeldToOutputSchema(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(mcptest.HTTPHandler("s3cret"))
	t.Cleanup(srv.Close)
	for name, set := range map[string]*Set{
		"fake": fakeServer(t, context.Background(), Options{}),
		"web":  httpServer(t, Options{}, srv.URL+"/mcp"),
	} {
		tool := name + "__shaped"
		if v, err := call(t, set, tool, map[string]any{"sum": 3}); err != nil {
			t.Errorf("%s: a result as declared: %v", tool, err)
		} else if diff := cmp.Diff(map[string]any{"sum": 3.0}, v); diff != "" {
			t.Errorf("%s: a result as declared mismatch (-want +got):\n%s", tool, diff)
		}
		for _, tt := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"sum": "three"}, `tool "shaped": its structuredContent does not match its outputSchema: at /sum: got string, want integer`},
			{map[string]any{"sum": 3.5}, `tool "shaped": its structuredContent does not match its outputSchema: at /sum: got number, want integer`},
			{map[string]any{"sum": 3, "omit": true}, `tool "shaped": it declares an outputSchema, and its result has no structuredContent`},
		} {
			_, err := call(t, set, tool, tt.args)
			if err == nil || !strings.HasPrefix(err.Error(), "mcp server "+name+" (") || !strings.HasSuffix(err.Error(), tt.want) {
				t.Errorf("%s %v: %v, want %q", tool, tt.args, err, tt.want)
			}
		}
	}
}

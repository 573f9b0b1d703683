package mcpserve

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/message"
)

// What the hooks after a call said of its result goes to the client as
// text after the result's; the structured content stays the result.
func TestResultHookFeedback(t *testing.T) {
	t.Parallel()
	rec := &message.Record{Content: json.RawMessage(`{"n":3}`), HookFeedback: "lint: 3 problems"}
	res := result(rec, output{object: true}, false)
	var texts []string
	for _, c := range res.Content {
		texts = append(texts, c.(*mcp.TextContent).Text)
	}
	if diff := cmp.Diff([]string{`{"n":3}`, "hook feedback: lint: 3 problems"}, texts); diff != "" || res.IsError {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if string(res.StructuredContent.(json.RawMessage)) != `{"n":3}` {
		t.Errorf("structured content %v", res.StructuredContent)
	}
}

package claude

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
)

// TestCacheBreakpoints: a session's request marks the tools, the system
// prompt, where the turn before ended and the end of the conversation
// for caching; a question asked once marks nothing.
func TestCacheBreakpoints(t *testing.T) {
	t.Parallel()
	other := &toolset.Tool{Name: "other", Description: "Another tool."}
	history := []llm.Message{
		{Role: message.RoleUser, Parts: []llm.Part{{Text: "sum"}, {Text: "twice"}}},
		{Role: message.RoleAssistant, Parts: []llm.Part{
			{Text: "Adding."},
			{ToolCall: &llm.ToolCall{ID: "toolu_1", Name: "calculate_sum", Args: json.RawMessage(`{"a":1,"b":2}`)}},
		}},
		{Role: message.RoleUser, Parts: []llm.Part{
			{ToolResult: &llm.ToolResult{CallID: "toolu_1", Name: "calculate_sum", Content: json.RawMessage(`3`)}},
		}},
	}
	for _, cacheable := range []bool{true, false} {
		srv := llmtest.NewServer(llmtest.Claude, testKey, llmtest.Reply{Text: "3."})
		defer srv.Close()
		req := &llm.Request{System: "be brief", Tools: []*toolset.Tool{llmtest.SumSpec, other}, Messages: history, Cacheable: cacheable}
		if _, _, err := llmtest.Generate(t, newProvider(t, srv), req, false); err != nil {
			t.Fatal(err)
		}
		var marked []string
		walk(srv.Bodies()[0], "", func(path string) { marked = append(marked, path) })
		var want []string
		if cacheable {
			want = []string{
				"messages.0.content.1", // where the turn before ended
				"messages.2.content.0", // the end of the conversation
				"system.0",
				"tools.1",
			}
		}
		if diff := cmp.Diff(want, marked); diff != "" {
			t.Errorf("cacheable %v: blocks with cache_control (-want +got):\n%s", cacheable, diff)
		}
	}
}

// walk calls f with the path of every object in v that holds
// cache_control, in the order of encoding/json (keys sorted).
func walk(v any, path string, f func(string)) {
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v["cache_control"]; ok {
			f(strings.TrimPrefix(path, "."))
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			walk(v[k], path+"."+k, f)
		}
	case []any:
		for i, e := range v {
			walk(e, path+"."+strconv.Itoa(i), f)
		}
	}
}

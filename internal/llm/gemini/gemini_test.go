package gemini

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
)

const testKey = "test-gemini-key-6d1f"

func newProvider(t *testing.T, srv *llmtest.Server) *Provider {
	t.Helper()
	p, err := New(context.Background(), llm.ClientOptions{
		Model: "gemini-test", APIKey: testKey, BaseURL: srv.URL,
		Retry: llmtest.FastRetry,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGenerateParallelCallsAndSignatures(t *testing.T) {
	t.Parallel()
	llmtest.Modes(t, func(t *testing.T, stream bool) {
		srv := llmtest.NewServer(llmtest.Gemini, testKey, llmtest.Reply{
			Text: "Adding both.",
			Calls: []llmtest.Call{
				{ID: "c1", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}, ThoughtSignature: "AAEC"},
				{Name: "calculate_sum", Args: map[string]any{"a": 3, "b": 4}},
			},
		})
		defer srv.Close()
		p := newProvider(t, srv)
		req := &llm.Request{
			System:   "be brief",
			Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{{Text: "sum twice"}}}},
			Tools:    []*toolset.Tool{llmtest.SumSpec},
		}
		resp, streamed, err := llmtest.Generate(t, p, req, stream)
		if err != nil {
			t.Fatal(err)
		}
		if stream && streamed != "Adding both." {
			t.Errorf("streamed text = %q, want %q", streamed, "Adding both.")
		}
		parts := resp.Message.Parts
		if len(parts) != 3 || parts[0].Text != "Adding both." || parts[1].ToolCall == nil || parts[2].ToolCall == nil {
			t.Fatalf("parts = %+v, want text and two calls", parts)
		}
		if parts[1].ToolCall.ID != "c1" {
			t.Errorf("first call id = %q, want c1", parts[1].ToolCall.ID)
		}
		second := parts[2].ToolCall
		if !strings.HasPrefix(second.ID, "call_") {
			t.Errorf("a call without an id got id %q, want a generated call_ id", second.ID)
		}
		if string(second.Args) != `{"a":3,"b":4}` {
			t.Errorf("args = %s", second.Args)
		}

		// The next turn: the model's content verbatim (signature included,
		// the generated id left out), then all responses in one content in
		// the order of the calls, even when the results come out of order.
		req.Messages = append(req.Messages, resp.Message, llm.Message{Role: message.RoleUser, Parts: []llm.Part{
			{ToolResult: &llm.ToolResult{CallID: second.ID, Name: "calculate_sum", Content: json.RawMessage("7")}},
			{ToolResult: &llm.ToolResult{CallID: "c1", Name: "calculate_sum", Content: json.RawMessage(`"boom"`), IsError: true}},
		}})
		srv.Add(llmtest.Reply{Text: "3 and 7."})
		resp, _, err = llmtest.Generate(t, p, req, stream)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Message.Parts[0].Text; got != "3 and 7." {
			t.Errorf("answer = %q", got)
		}
		bodies := srv.Bodies()
		got := bodies[1]["contents"].([]any)[1:]
		want := llmtest.Decode(t, `[
		  {"role":"model","parts":[
		    {"text":"Adding both."},
		    {"functionCall":{"id":"c1","name":"calculate_sum","args":{"a":1,"b":2}},"thoughtSignature":"AAEC"},
		    {"functionCall":{"name":"calculate_sum","args":{"a":3,"b":4}}}]},
		  {"role":"user","parts":[
		    {"functionResponse":{"id":"c1","name":"calculate_sum","response":{"error":"boom"}}},
		    {"functionResponse":{"name":"calculate_sum","response":{"output":7}}}]}]`)
		if diff := cmp.Diff(want, any(got)); diff != "" {
			t.Errorf("history sent mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(llmtest.Decode(t, `{"parts":[{"text":"be brief"}],"role":"user"}`), bodies[0]["systemInstruction"]); diff != "" {
			t.Errorf("systemInstruction mismatch (-want +got):\n%s", diff)
		}
		decls := bodies[0]["tools"].([]any)[0].(map[string]any)["functionDeclarations"].([]any)
		if len(decls) != 1 || decls[0].(map[string]any)["name"] != "calculate_sum" {
			t.Errorf("tools = %v", bodies[0]["tools"])
		}
		for _, r := range srv.Requests() {
			if r.AuthHeader != "x-goog-api-key" {
				t.Errorf("key sent in %q, want x-goog-api-key", r.AuthHeader)
			}
			if !r.Stream {
				// Shown or not, an answer is streamed: --idle-timeout
				// bounds silence, never the length of an answer.
				t.Errorf("a request not streamed")
			}
		}
	})
}

func TestGenerateTextSignatureStaysWithItsText(t *testing.T) {
	t.Parallel()
	llmtest.Modes(t, func(t *testing.T, stream bool) {
		srv := llmtest.NewServer(llmtest.Gemini, testKey, llmtest.Reply{Text: "one two three four five", ThoughtSignature: "c2ln"})
		defer srv.Close()
		p := newProvider(t, srv)
		resp, _, err := llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{{Text: "count"}}}}}, stream)
		if err != nil {
			t.Fatal(err)
		}
		want := []llm.Part{{Text: "one two three four five", ProviderData: json.RawMessage(`{"thoughtSignature":"c2ln"}`)}}
		if diff := cmp.Diff(want, resp.Message.Parts); diff != "" {
			t.Errorf("parts mismatch (-want +got):\n%s", diff)
		}
	})
}

func TestGenerateErrors(t *testing.T) {
	t.Parallel()
	llmtest.RunErrorCases(t, llmtest.Gemini, testKey, func(t *testing.T, srv *llmtest.Server) llm.Provider { return newProvider(t, srv) }, []llmtest.ErrorCase{
		{
			Name:     "429 retried",
			Replies:  []llmtest.Reply{{Status: 429, Error: "Resource has been exhausted"}, {Status: 503, Error: "overloaded"}, {Text: "fine"}},
			Requests: 3,
		},
		{
			Name:     "429 reported once retries are spent",
			Replies:  []llmtest.Reply{{Status: 429, Error: "quota"}, {Status: 429, Error: "quota"}, {Status: 429, Error: "Resource has been exhausted (e.g. check quota)."}},
			WantErr:  "gemini API error 429 RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).",
			Requests: 3,
		},
		{
			Name:     "400 reported with its message, not retried",
			Replies:  []llmtest.Reply{{Status: 400, Error: "Function call is missing a thought_signature in functionCall parts."}},
			WantErr:  "gemini API error 400 INVALID_ARGUMENT: Function call is missing a thought_signature in functionCall parts.",
			Requests: 1,
		},
		{
			Name:     "a message that echoes the key",
			Replies:  []llmtest.Reply{{Status: 400, Error: "API key not valid: " + testKey + "."}},
			WantErr:  "gemini API error 400 INVALID_ARGUMENT: API key not valid: [redacted].",
			Requests: 1,
		},
		{
			Name:     "wrong key",
			Key:      "another-key",
			WantErr:  "gemini API error 401 UNAUTHENTICATED: fake: API key not valid",
			Requests: 1,
		},
	})
}

func TestGenerateCancelled(t *testing.T) {
	t.Parallel()
	llmtest.RunCancelled(t, llmtest.Gemini, testKey, func(t *testing.T, srv *llmtest.Server) llm.Provider { return newProvider(t, srv) })
}

func TestBlobParts(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(llmtest.Gemini, testKey, llmtest.Reply{Text: "a cat"})
	defer srv.Close()
	p := newProvider(t, srv)
	_, _, err := llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{
		{Text: "describe"},
		{Blob: &llm.Blob{Kind: llm.ImageBlock, MIMEType: "image/png", Data: []byte("hi"), Name: "a.png"}},
		{Blob: &llm.Blob{Kind: llm.MediaBlock, MIMEType: "video/mp4", URI: "https://example.invalid/v1beta/files/abc"}},
	}}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := llmtest.Decode(t, `[{"role":"user","parts":[{"text":"describe"},
	  {"inlineData":{"mimeType":"image/png","data":"aGk="}},
	  {"fileData":{"mimeType":"video/mp4","fileUri":"https://example.invalid/v1beta/files/abc"}}]}]`)
	if diff := cmp.Diff(want, srv.Bodies()[0]["contents"]); diff != "" {
		t.Errorf("contents mismatch (-want +got):\n%s", diff)
	}
}

// TestResponsesFollowTheCalls: the function responses of a turn go back in
// the order of the calls, whatever order the results come in — also when
// some calls came without an id, whose responses Gemini matches by place.
func TestResponsesFollowTheCalls(t *testing.T) {
	t.Parallel()
	generated := json.RawMessage(`{"generatedId":true}`)
	calls := llm.Message{Role: message.RoleAssistant, Parts: []llm.Part{
		{ToolCall: &llm.ToolCall{ID: "call_gen1", Name: "first", Args: json.RawMessage(`{}`)}, ProviderData: generated},
		{ToolCall: &llm.ToolCall{ID: "c2", Name: "second", Args: json.RawMessage(`{}`)}},
		{ToolCall: &llm.ToolCall{ID: "call_gen3", Name: "third", Args: json.RawMessage(`{}`)}, ProviderData: generated},
	}}
	result := func(id, name string) llm.Part {
		return llm.Part{ToolResult: &llm.ToolResult{CallID: id, Name: name, Content: json.RawMessage(`"` + name + `"`)}}
	}
	want := llmtest.Decode(t, `[
	  {"functionResponse":{"name":"first","response":{"output":"first"}}},
	  {"functionResponse":{"id":"c2","name":"second","response":{"output":"second"}}},
	  {"functionResponse":{"name":"third","response":{"output":"third"}}}]`)
	tests := map[string][]llm.Part{
		"in order":        {result("call_gen1", "first"), result("c2", "second"), result("call_gen3", "third")},
		"id first":        {result("c2", "second"), result("call_gen1", "first"), result("call_gen3", "third")},
		"reversed":        {result("call_gen3", "third"), result("c2", "second"), result("call_gen1", "first")},
		"generated swaps": {result("call_gen3", "third"), result("call_gen1", "first"), result("c2", "second")},
	}
	for name, results := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			contents, err := toContents([]llm.Message{calls, {Role: message.RoleUser, Parts: results}})
			if err != nil {
				t.Fatal(err)
			}
			js, err := json.Marshal(contents[1].Parts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, llmtest.Decode(t, string(js))); diff != "" {
				t.Errorf("responses mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestContentsOfOneRoleInARowBecomeOne: after an interrupt or a resume the
// conversation may hold two user messages in a row; they go as one
// content, the function responses first.
func TestContentsOfOneRoleInARowBecomeOne(t *testing.T) {
	t.Parallel()
	contents, err := toContents(llmtest.RolesInARow)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(contents)
	if err != nil {
		t.Fatal(err)
	}
	want := llmtest.Decode(t, `[
	  {"role":"user","parts":[{"text":"think hard"},{"text":"never mind; add 1 and 2"}]},
	  {"role":"model","parts":[{"functionCall":{"id":"t1","name":"calculate_sum","args":{"a":1,"b":2}}}]},
	  {"role":"user","parts":[
	    {"functionResponse":{"id":"t1","name":"calculate_sum","response":{"error":"aborted"}}},
	    {"text":"what happened?"}]}]`)
	if diff := cmp.Diff(want, llmtest.Decode(t, string(js))); diff != "" {
		t.Errorf("contents mismatch (-want +got):\n%s", diff)
	}
}

// TestUsage: what a request cost comes back in kesoku's terms, shown or
// not; Gemini reports what it read from its cache, not what it wrote.
func TestUsage(t *testing.T) {
	t.Parallel()
	llmtest.Modes(t, func(t *testing.T, stream bool) {
		srv := llmtest.NewServer(llmtest.Gemini, testKey, llmtest.Reply{Text: "Cheap.",
			Usage: &message.Usage{InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 1000}})
		defer srv.Close()
		resp, _, err := llmtest.Generate(t, newProvider(t, srv), &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{{Text: "hi"}}}}}, stream)
		if err != nil {
			t.Fatal(err)
		}
		want := &message.Usage{InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 1000}
		if diff := cmp.Diff(want, resp.Usage); diff != "" {
			t.Errorf("usage mismatch (-want +got):\n%s", diff)
		}
	})
}

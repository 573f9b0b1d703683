package claude

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
)

const testKey = "test-claude-key-93ab"

func newProvider(t *testing.T, srv *llmtest.Server) *Provider {
	t.Helper()
	p, err := New(llm.ClientOptions{Model: "claude-test", APIKey: testKey, BaseURL: srv.URL, Retry: llmtest.FastRetry})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestGenerateParallelCalls(t *testing.T) {
	t.Parallel()
	llmtest.Modes(t, func(t *testing.T, stream bool) {
		srv := llmtest.NewServer(llmtest.Claude, testKey, llmtest.Reply{
			Text: "Adding both.",
			Calls: []llmtest.Call{
				{ID: "toolu_01", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
				{ID: "toolu_02", Name: "calculate_sum", Args: map[string]any{"a": 3, "b": 4}},
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
			t.Errorf("streamed text = %q", streamed)
		}
		want := []llm.Part{
			{Text: "Adding both."},
			{ToolCall: &llm.ToolCall{ID: "toolu_01", Name: "calculate_sum", Args: json.RawMessage(`{"a":1,"b":2}`)}},
			{ToolCall: &llm.ToolCall{ID: "toolu_02", Name: "calculate_sum", Args: json.RawMessage(`{"a":3,"b":4}`)}},
		}
		if diff := cmp.Diff(want, resp.Message.Parts); diff != "" {
			t.Errorf("parts mismatch (-want +got):\n%s", diff)
		}
		if resp.StopReason != "tool_use" {
			t.Errorf("stop reason = %q", resp.StopReason)
		}

		// One tool_result per tool_use, all in the next user message, and
		// before any text of that message.
		req.Messages = append(req.Messages, resp.Message, llm.Message{Role: message.RoleUser, Parts: []llm.Part{
			{ToolResult: &llm.ToolResult{CallID: "toolu_01", Name: "calculate_sum", Content: json.RawMessage("3")}},
			{Text: "and be quick"},
			{ToolResult: &llm.ToolResult{CallID: "toolu_02", Name: "calculate_sum", Content: json.RawMessage(`"tool_error: boom"`), IsError: true}},
		}})
		srv.Add(llmtest.Reply{Text: "3, and an error."})
		if _, _, err := llmtest.Generate(t, p, req, stream); err != nil {
			t.Fatal(err)
		}
		bodies := srv.Bodies()
		got := bodies[1]["messages"].([]any)[1:]
		wantMsgs := llmtest.Decode(t, `[
		  {"role":"assistant","content":[
		    {"type":"text","text":"Adding both."},
		    {"type":"tool_use","id":"toolu_01","name":"calculate_sum","input":{"a":1,"b":2}},
		    {"type":"tool_use","id":"toolu_02","name":"calculate_sum","input":{"a":3,"b":4}}]},
		  {"role":"user","content":[
		    {"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"3"}]},
		    {"type":"tool_result","tool_use_id":"toolu_02","is_error":true,"content":[{"type":"text","text":"tool_error: boom"}]},
		    {"type":"text","text":"and be quick"}]}]`)
		if diff := cmp.Diff(wantMsgs, any(got)); diff != "" {
			t.Errorf("history sent mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(llmtest.Decode(t, `[{"type":"text","text":"be brief"}]`), bodies[0]["system"]); diff != "" {
			t.Errorf("system mismatch (-want +got):\n%s", diff)
		}
		tools := bodies[0]["tools"].([]any)
		if len(tools) != 1 || tools[0].(map[string]any)["name"] != "calculate_sum" || tools[0].(map[string]any)["input_schema"] == nil {
			t.Errorf("tools = %v", tools)
		}
		if bodies[0]["max_tokens"] != float64(DefaultMaxTokens) {
			t.Errorf("max_tokens = %v", bodies[0]["max_tokens"])
		}
		for _, r := range srv.Requests() {
			if r.AuthHeader != "authorization" {
				t.Errorf("key sent in %q, want authorization (Bearer)", r.AuthHeader)
			}
			if r.Header.Get("Anthropic-Version") == "" {
				t.Errorf("no anthropic-version header")
			}
			if !r.Stream {
				// Shown or not, an answer is streamed: --idle-timeout
				// bounds silence, never the length of an answer.
				t.Errorf("a request not streamed")
			}
		}
	})
}

func TestUnknownBlocksAreEchoedRaw(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(llmtest.Claude, testKey, llmtest.Reply{Text: "ok"})
	defer srv.Close()
	p := newProvider(t, srv)
	thinking := json.RawMessage(`{"type":"thinking","thinking":"hmm","signature":"c2ln"}`)
	_, _, err := llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{
		{Role: message.RoleUser, Parts: []llm.Part{{Text: "hi"}}},
		{Role: message.RoleAssistant, Parts: []llm.Part{{Thought: true, ProviderData: thinking}, {Text: "hello"}}},
		{Role: message.RoleUser, Parts: []llm.Part{{Text: "again"}}},
	}}, false)
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Bodies()[0]["messages"].([]any)[1]
	want := llmtest.Decode(t, `{"role":"assistant","content":[{"type":"thinking","thinking":"hmm","signature":"c2ln"},{"type":"text","text":"hello"}]}`)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("assistant message mismatch (-want +got):\n%s", diff)
	}
}

func TestGenerateErrors(t *testing.T) {
	t.Parallel()
	fast := map[string]string{"retry-after-ms": "1"}
	llmtest.RunErrorCases(t, llmtest.Claude, testKey, func(t *testing.T, srv *llmtest.Server) llm.Provider { return newProvider(t, srv) }, []llmtest.ErrorCase{
		{
			Name:     "429 and 529 retried",
			Replies:  []llmtest.Reply{{Status: 429, Error: "rate limited", Headers: fast}, {Status: 529, Error: "Overloaded", Headers: fast}, {Text: "fine"}},
			Requests: 3,
		},
		{
			Name:     "429 reported once retries are spent",
			Replies:  []llmtest.Reply{{Status: 429, Error: "slow down", Headers: fast}, {Status: 429, Error: "slow down", Headers: fast}, {Status: 429, Error: "Number of request tokens has exceeded your per-minute rate limit", Headers: fast}},
			WantErr:  "claude API error 429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit",
			Requests: 3,
		},
		{
			Name:     "400 reported with its message, not retried",
			Replies:  []llmtest.Reply{{Status: 400, Error: "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after"}},
			WantErr:  "claude API error 400 invalid_request_error: messages.2: `tool_use` ids were found without `tool_result` blocks immediately after",
			Requests: 1,
		},
		{
			// Streamed, the error comes inside a stream begun with status
			// 200; plain, as a 529.
			Name:     "overloaded retried",
			Replies:  []llmtest.Reply{{StreamError: "overloaded_error", Error: "Overloaded", Headers: fast}, {Text: "fine"}},
			Requests: 2,
		},
		{
			Name: "overloaded reported once retries are spent",
			Replies: []llmtest.Reply{
				{StreamError: "overloaded_error", Error: "Overloaded", Headers: fast},
				{StreamError: "overloaded_error", Error: "Overloaded", Headers: fast},
				{StreamError: "overloaded_error", Error: "Overloaded", Headers: fast},
			},
			WantErr:  "overloaded_error: Overloaded",
			Requests: 3,
		},
		{
			Name:     "an error inside a stream that is not transient",
			Replies:  []llmtest.Reply{{StreamError: "invalid_request_error", Error: "prompt is too long", Headers: fast}, {Text: "never"}},
			WantErr:  "invalid_request_error: prompt is too long",
			Requests: 1,
		},
		{
			Name:     "a message that echoes the key",
			Replies:  []llmtest.Reply{{Status: 400, Error: "API key not valid: " + testKey + "."}},
			WantErr:  "claude API error 400 invalid_request_error: API key not valid: [redacted].",
			Requests: 1,
		},
		{
			Name:     "wrong key",
			Key:      "another-key",
			WantErr:  "claude API error 401 authentication_error",
			Requests: 1,
		},
	})
}

func TestGenerateCancelled(t *testing.T) {
	t.Parallel()
	llmtest.RunCancelled(t, llmtest.Claude, testKey, func(t *testing.T, srv *llmtest.Server) llm.Provider { return newProvider(t, srv) })
}

func TestBlobBlocks(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(llmtest.Claude, testKey, llmtest.Reply{Text: "a cat"})
	defer srv.Close()
	p := newProvider(t, srv)
	_, _, err := llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{
		{Text: "describe"},
		{Blob: &llm.Blob{Kind: llm.ImageBlock, MIMEType: "image/png", Data: []byte("hi")}},
		{Blob: &llm.Blob{Kind: llm.DocumentBlock, MIMEType: "application/pdf", Data: []byte("%PDF-"), Name: "a.pdf"}},
		{Blob: &llm.Blob{Kind: llm.DocumentBlock, MIMEType: "text/plain; charset=utf-8", Data: []byte("notes")}},
	}}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := llmtest.Decode(t, `[{"role":"user","content":[{"type":"text","text":"describe"},
	  {"type":"image","source":{"type":"base64","media_type":"image/png","data":"aGk="}},
	  {"type":"document","title":"a.pdf","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}},
	  {"type":"document","source":{"type":"text","media_type":"text/plain","data":"notes"}}]}]`)
	if diff := cmp.Diff(want, srv.Bodies()[0]["messages"]); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}

	_, _, err = llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{
		{Blob: &llm.Blob{Kind: llm.MediaBlock, MIMEType: "audio/wav", Data: []byte("RIFF"), Name: "a.wav"}},
	}}}}, false)
	if err == nil || !strings.Contains(err.Error(), "audio/wav") {
		t.Errorf("audio for Claude: error = %v, want one naming the type", err)
	}
}

// TestMessagesOfOneRoleInARowBecomeOne: after an interrupt or a resume the
// conversation may hold two user messages in a row; they go as one, with
// the tool results first.
func TestMessagesOfOneRoleInARowBecomeOne(t *testing.T) {
	t.Parallel()
	msgs, err := toMessages(llmtest.RolesInARow)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	want := llmtest.Decode(t, `[
	  {"role":"user","content":[{"type":"text","text":"think hard"},{"type":"text","text":"never mind; add 1 and 2"}]},
	  {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"calculate_sum","input":{"a":1,"b":2}}]},
	  {"role":"user","content":[
	    {"type":"tool_result","tool_use_id":"t1","is_error":true,"content":[{"type":"text","text":"aborted"}]},
	    {"type":"text","text":"what happened?"}]}]`)
	if diff := cmp.Diff(want, llmtest.Decode(t, string(js))); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
}

// TestUsage: what a request cost comes back in kesoku's terms, shown or
// not: Claude's input_tokens with the cache's tokens added back.
func TestUsage(t *testing.T) {
	t.Parallel()
	llmtest.Modes(t, func(t *testing.T, stream bool) {
		want := &message.Usage{InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 1000, CacheWriteTokens: 150}
		srv := llmtest.NewServer(llmtest.Claude, testKey, llmtest.Reply{Text: "Cheap.", Usage: want})
		defer srv.Close()
		resp, _, err := llmtest.Generate(t, newProvider(t, srv), &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{{Text: "hi"}}}}}, stream)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, resp.Usage); diff != "" {
			t.Errorf("usage mismatch (-want +got):\n%s", diff)
		}
	})
}

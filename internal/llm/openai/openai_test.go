package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
)

const testKey = "test-openai-key-5e1f"

func newProvider(t *testing.T, srv *llmtest.Server, key string) *Provider {
	t.Helper()
	p, err := New(llm.ClientOptions{Model: "gpt-test", APIKey: key, BaseURL: srv.BaseURL(),
		Retry: llmtest.FastRetry})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGenerateParallelCalls: parallel calls come back with their ids; the
// results go back as tool messages by tool_call_id, in the order of the
// calls and before the prompt beside them; the request asks for usage and
// nothing a compatible server may not take.
func TestGenerateParallelCalls(t *testing.T) {
	t.Parallel()
	llmtest.Modes(t, func(t *testing.T, stream bool) {
		srv := llmtest.NewServer(llmtest.OpenAI, testKey, llmtest.Reply{
			Text: "Adding both.",
			Calls: []llmtest.Call{
				{ID: "call_01", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
				{ID: "call_02", Name: "calculate_sum", Args: map[string]any{"a": 3, "b": 4}},
			},
		})
		defer srv.Close()
		p := newProvider(t, srv, testKey)
		req := &llm.Request{System: "be brief", Messages: []llm.Message{llmtest.User("sum twice")}, Tools: []*toolset.Tool{llmtest.SumSpec}}
		resp, streamed, err := llmtest.Generate(t, p, req, stream)
		if err != nil {
			t.Fatal(err)
		}
		if stream && streamed != "Adding both." {
			t.Errorf("streamed text = %q", streamed)
		}
		want := []llm.Part{
			{Text: "Adding both."},
			{ToolCall: &llm.ToolCall{ID: "call_01", Name: "calculate_sum", Args: json.RawMessage(`{"a":1,"b":2}`)}},
			{ToolCall: &llm.ToolCall{ID: "call_02", Name: "calculate_sum", Args: json.RawMessage(`{"a":3,"b":4}`)}},
		}
		if diff := cmp.Diff(want, resp.Message.Parts); diff != "" {
			t.Errorf("parts mismatch (-want +got):\n%s", diff)
		}
		if resp.StopReason != "tool_calls" || resp.Cut != "" {
			t.Errorf("stop reason %q, cut %q", resp.StopReason, resp.Cut)
		}
		if resp.Usage == nil || resp.Usage.InputTokens == 0 || resp.Usage.OutputTokens == 0 {
			t.Errorf("usage %+v, want the tokens counted", resp.Usage)
		}

		req.Messages = append(req.Messages, resp.Message, llm.Message{Role: message.RoleUser, Parts: []llm.Part{
			{ToolResult: &llm.ToolResult{CallID: "call_01", Name: "calculate_sum", Content: json.RawMessage("3")}},
			{Text: "and be quick"},
			{ToolResult: &llm.ToolResult{CallID: "call_02", Name: "calculate_sum", Content: json.RawMessage(`"tool_error: boom"`), IsError: true}},
		}})
		srv.Add(llmtest.Reply{Text: "3, and an error."})
		if _, _, err := llmtest.Generate(t, p, req, stream); err != nil {
			t.Fatal(err)
		}
		bodies := srv.Bodies()
		wantMsgs := llmtest.Decode(t, `[
		  {"role":"system","content":"be brief"},
		  {"role":"user","content":"sum twice"},
		  {"role":"assistant","content":"Adding both.","tool_calls":[
		    {"id":"call_01","type":"function","function":{"name":"calculate_sum","arguments":"{\"a\":1,\"b\":2}"}},
		    {"id":"call_02","type":"function","function":{"name":"calculate_sum","arguments":"{\"a\":3,\"b\":4}"}}]},
		  {"role":"tool","tool_call_id":"call_01","content":"3"},
		  {"role":"tool","tool_call_id":"call_02","content":"tool_error: boom"},
		  {"role":"user","content":"and be quick"}]`)
		if diff := cmp.Diff(wantMsgs, bodies[1]["messages"]); diff != "" {
			t.Errorf("second request's messages (-want +got):\n%s", diff)
		}
		for _, b := range bodies {
			if b["stream"] != true || !cmp.Equal(b["stream_options"], map[string]any{"include_usage": true}) {
				t.Errorf("stream %v, stream_options %v: want a stream that ends with its usage", b["stream"], b["stream_options"])
			}
			for _, k := range []string{"tool_choice", "parallel_tool_calls", "max_tokens", "max_completion_tokens"} {
				if _, ok := b[k]; ok {
					t.Errorf("%s sent unasked: %v", k, b[k])
				}
			}
		}
		wantTools := llmtest.Decode(t, `[{"type":"function","function":{"name":"calculate_sum","description":"Add two numbers.",
		  "parameters":{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}}}]`)
		if diff := cmp.Diff(wantTools, bodies[0]["tools"]); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
		for _, r := range srv.Requests() {
			if r.AuthHeader != "authorization" || r.Path != "/v1/chat/completions" {
				t.Errorf("request to %s with the key in %q, want /v1/chat/completions with authorization", r.Path, r.AuthHeader)
			}
		}
	})
}

// TestNoKey: a server of one's own is asked without a key; OpenAI's own
// endpoint needs one.
func TestNoKey(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(llmtest.OpenAI, "", llmtest.Reply{Text: "Local."})
	srv.AllowNoKey()
	defer srv.Close()
	resp, _, err := llmtest.Generate(t, newProvider(t, srv, ""), &llm.Request{Messages: []llm.Message{llmtest.User("hi")}}, false)
	if err != nil || llm.AnswerText(resp.Message) != "Local." {
		t.Fatalf("answer %v, error %v", resp, err)
	}
	if r := srv.Requests()[0]; r.AuthHeader != "" {
		t.Errorf("a key was sent in %s", r.AuthHeader)
	}
	if _, err := New(llm.ClientOptions{Model: "gpt-4o"}); err == nil || !strings.Contains(err.Error(), "no API key (set OPENAI_API_KEY") {
		t.Errorf("no key and no base URL: error %v", err)
	}
}

// TestArgumentsThatAreNotJSON: what a small local model writes for
// arguments is kept, to be answered invalid_args; a call without an id
// gets one; a call without arguments has the empty object.
func TestArgumentsThatAreNotJSON(t *testing.T) {
	t.Parallel()
	llmtest.Modes(t, func(t *testing.T, stream bool) {
		srv := llmtest.NewServer(llmtest.OpenAI, testKey, llmtest.Reply{Calls: []llmtest.Call{
			{ID: "call_1", Name: "calculate_sum", RawArgs: `{"a": 1, "b": 2`},
			{Name: "calculate_sum", RawArgs: `{a: 1}`},
			{ID: "call_3", Name: "current_time", RawArgs: " "},
		}})
		defer srv.Close()
		resp, _, err := llmtest.Generate(t, newProvider(t, srv, testKey), &llm.Request{Messages: []llm.Message{llmtest.User("sum")}}, stream)
		if err != nil {
			t.Fatal(err)
		}
		calls := resp.Message.Parts
		if len(calls) != 3 {
			t.Fatalf("parts %+v, want 3 calls", calls)
		}
		if c := calls[0].ToolCall; c.BadArgs != `{"a": 1, "b": 2` || string(c.Args) != "{}" {
			t.Errorf("first call %+v, want its cut arguments kept", c)
		}
		if c := calls[1].ToolCall; c.BadArgs != `{a: 1}` || !strings.HasPrefix(c.ID, "call_") {
			t.Errorf("second call %+v, want its arguments kept and an id made", c)
		}
		if c := calls[2].ToolCall; c.BadArgs != "" || string(c.Args) != "{}" {
			t.Errorf("third call %+v, want no arguments as {}", c)
		}
	})
}

// TestGenerateCancelled: a request whose context ends is given up, not
// tried again.
func TestGenerateCancelled(t *testing.T) {
	t.Parallel()
	llmtest.RunCancelled(t, llmtest.OpenAI, testKey, func(t *testing.T, srv *llmtest.Server) llm.Provider { return newProvider(t, srv, testKey) })
}

// TestUsage: what a request cost, cached tokens too, shown or not.
func TestUsage(t *testing.T) {
	t.Parallel()
	llmtest.Modes(t, func(t *testing.T, stream bool) {
		want := &message.Usage{InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 1024}
		srv := llmtest.NewServer(llmtest.OpenAI, testKey, llmtest.Reply{Text: "Cheap.", Usage: want})
		defer srv.Close()
		resp, _, err := llmtest.Generate(t, newProvider(t, srv, testKey), &llm.Request{Messages: []llm.Message{llmtest.User("hi")}}, stream)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, resp.Usage); diff != "" {
			t.Errorf("usage mismatch (-want +got):\n%s", diff)
		}
	})
}

// TestCutTurns: a turn that ends on the token limit, a content filter, a
// refusal, or with no finish reason at all is never a whole answer.
func TestCutTurns(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		reply llmtest.Reply
		cut   string
		err   string
	}{
		{"length", llmtest.Reply{Text: "Half an", StopReason: "length"}, "length", ""},
		{"content filter", llmtest.Reply{Text: "Well", StopReason: "content_filter"}, "content_filter", ""},
		{"no finish reason", llmtest.Reply{Text: "And then", NoFinish: true}, "", "the stream ended before the answer did"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.OpenAI, testKey, tt.reply, tt.reply, tt.reply)
			defer srv.Close()
			resp, _, err := llmtest.Generate(t, newProvider(t, srv, testKey), &llm.Request{Messages: []llm.Message{llmtest.User("go")}}, true)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || resp.Cut != tt.cut {
				t.Fatalf("cut %q, error %v; want cut %q", resp.Cut, err, tt.cut)
			}
		})
	}
}

// TestErrors: an error in OpenAI's shape, in a compatible server's, and
// inside a stream already begun, each with the server's own words; a
// server error inside a stream is tried again.
func TestErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		replies []llmtest.Reply
		want    string
	}{
		{"openai", []llmtest.Reply{{Status: 400, Error: "Invalid value for 'model'."}},
			"openai API error 400 invalid_request_error: Invalid value for 'model'."},
		{"vllm", []llmtest.Reply{{Status: 404, Raw: `{"object":"error","message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError","param":null,"code":404}`}},
			"openai API error 404 NotFoundError: The model `x` does not exist."},
		{"fastapi", []llmtest.Reply{{Status: 404, Raw: `{"detail":"Not Found"}`}}, "openai API error 404: Not Found"},
		{"ollama", []llmtest.Reply{{Status: 404, Raw: `{"error":"model \"llama9\" not found, try pulling it first"}`}},
			`openai API error 404: model "llama9" not found, try pulling it first`},
		{"in a stream", []llmtest.Reply{{StreamError: "server_error", Error: "The server had an error."}, {Text: "Fine."}}, ""},
		{"in a stream, not retried", []llmtest.Reply{{StreamError: "invalid_request_error", Error: "Bad."}},
			"openai API error invalid_request_error: Bad."},
		// vLLM before it wrapped them in {"error": …} sent its error
		// events bare.
		{"in a vllm stream", []llmtest.Reply{{Raw: "data: {\"object\":\"error\",\"message\":\"This model's maximum context length is 8192 tokens.\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}\n\n"}},
			"openai API error BadRequestError: This model's maximum context length is 8192 tokens."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.OpenAI, testKey, tt.replies...)
			defer srv.Close()
			resp, _, err := llmtest.Generate(t, newProvider(t, srv, testKey), &llm.Request{Messages: []llm.Message{llmtest.User("go")}}, false)
			if tt.want == "" {
				if err != nil || llm.AnswerText(resp.Message) != "Fine." {
					t.Fatalf("answer %v, error %v: want the retry's", resp, err)
				}
				return
			}
			var api *llm.APIError
			if !errors.As(err, &api) || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestFiles: an image goes as an image_url with a data URL, a PDF as a
// file part; other types are refused before anything is sent.
func TestFiles(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(llmtest.OpenAI, testKey, llmtest.Reply{Text: "A dot."}, llmtest.Reply{Text: "A page."})
	defer srv.Close()
	p := newProvider(t, srv, testKey)
	ask := func(b *llm.Blob) error {
		_, _, err := llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{{Blob: b}, {Text: "what?"}}}}}, false)
		return err
	}
	if err := ask(&llm.Blob{Kind: llm.ImageBlock, MIMEType: "image/png", Data: []byte("png"), Name: "dot.png"}); err != nil {
		t.Fatal(err)
	}
	if err := ask(&llm.Blob{Kind: llm.DocumentBlock, MIMEType: "application/pdf", Data: []byte("%PDF"), Name: "dir/report.pdf"}); err != nil {
		t.Fatal(err)
	}
	err := ask(&llm.Blob{Kind: llm.MediaBlock, MIMEType: "audio/mp3", Data: []byte("ID3"), Name: "talk.mp3"})
	if err == nil || !strings.Contains(err.Error(), "OpenAI takes images and PDF") {
		t.Errorf("audio: error %v", err)
	}
	bodies := srv.Bodies()
	if len(bodies) != 2 {
		t.Fatalf("%d requests, want 2: the audio is refused before sending", len(bodies))
	}
	want := []any{
		llmtest.Decode(t, `[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,cG5n"}},{"type":"text","text":"what?"}]}]`),
		llmtest.Decode(t, `[{"role":"user","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERg==","filename":"report.pdf"}},{"type":"text","text":"what?"}]}]`),
	}
	for i, b := range bodies {
		if diff := cmp.Diff(want[i], b["messages"]); diff != "" {
			t.Errorf("request %d (-want +got):\n%s", i+1, diff)
		}
	}
}

// chunk is one chat.completion.chunk event carrying delta.
func chunk(delta, finish string) string {
	if finish == "" {
		finish = "null"
	} else {
		finish = `"` + finish + `"`
	}
	return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + "}]}\n\n"
}

// TestStreamedCallsSplitOddly: the tool calls of a stream as servers
// really send them. OpenAI sends a call's id and name first and its
// arguments in pieces, by index; Gemini's OpenAI-compatible endpoint (and
// proxies in front of it) sends each of parallel calls whole, every one at
// index 0 and with an id of its own, which must not be joined into one
// call with both names and both arguments; a server may leave out the
// index altogether (and the id too), split a name, or repeat it on
// every delta.
func TestStreamedCallsSplitOddly(t *testing.T) {
	t.Parallel()
	stream := chunk(`{"role":"assistant","content":null}`, "") +
		// Two whole calls at index 0, each with its own id.
		chunk(`{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"calculate_sum","arguments":"{\"a\":1,\"b\":2}"}}]}`, "") +
		chunk(`{"tool_calls":[{"index":0,"id":"c2","type":"function","function":{"name":"calculate_sum","arguments":"{\"a\":3,\"b\":4}"}}]}`, "") +
		// A third without an index: its id, then its name in two pieces,
		// then its arguments byte by byte.
		chunk(`{"tool_calls":[{"id":"c3","type":"function","function":{"name":"","arguments":""}}]}`, "") +
		chunk(`{"tool_calls":[{"function":{"name":"current_"}}]}`, "") +
		chunk(`{"tool_calls":[{"function":{"name":"time"}}]}`, "") +
		chunk(`{"tool_calls":[{"function":{"arguments":"{"}}]}`, "") +
		chunk(`{"tool_calls":[{"function":{"arguments":"}"}}]}`, "") +
		// Two more in one chunk, by index, the second's arguments first.
		chunk(`{"tool_calls":[{"index":1,"id":"c4","type":"function","function":{"name":"calculate_sum","arguments":""}},{"index":2,"id":"c5","type":"function","function":{"name":"calculate_sum","arguments":"{\"a\":"}}]}`, "") +
		chunk(`{"tool_calls":[{"index":2,"function":{"arguments":"5,\"b\":6}"}},{"index":1,"function":{"arguments":"{\"a\":7,"}}]}`, "") +
		// The id and the whole name again, as some servers repeat them on
		// every delta.
		chunk(`{"tool_calls":[{"index":1,"id":"c4","type":"function","function":{"name":"calculate_sum","arguments":"\"b\":8}"}}]}`, "") +
		// Two whole calls with neither an id nor an index.
		chunk(`{"tool_calls":[{"type":"function","function":{"name":"calculate_sum","arguments":"{\"a\":9,\"b\":9}"}}]}`, "") +
		chunk(`{"tool_calls":[{"type":"function","function":{"name":"calculate_sum","arguments":"{\"a\":0,\"b\":0}"}}]}`, "") +
		// The name once more, alone: no call of its own.
		chunk(`{"tool_calls":[{"function":{"name":"calculate_sum"}}]}`, "") +
		chunk(`{}`, "tool_calls") + "data: [DONE]\n\n"
	srv := llmtest.NewServer(llmtest.OpenAI, testKey, llmtest.Reply{Raw: stream})
	defer srv.Close()
	resp, _, err := llmtest.Generate(t, newProvider(t, srv, testKey), &llm.Request{Messages: []llm.Message{llmtest.User("go")}}, true)
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Part{
		{ToolCall: &llm.ToolCall{ID: "c1", Name: "calculate_sum", Args: json.RawMessage(`{"a":1,"b":2}`)}},
		{ToolCall: &llm.ToolCall{ID: "c2", Name: "calculate_sum", Args: json.RawMessage(`{"a":3,"b":4}`)}},
		{ToolCall: &llm.ToolCall{ID: "c3", Name: "current_time", Args: json.RawMessage(`{}`)}},
		{ToolCall: &llm.ToolCall{ID: "c4", Name: "calculate_sum", Args: json.RawMessage(`{"a":7,"b":8}`)}},
		{ToolCall: &llm.ToolCall{ID: "c5", Name: "calculate_sum", Args: json.RawMessage(`{"a":5,"b":6}`)}},
		{ToolCall: &llm.ToolCall{ID: "<made>", Name: "calculate_sum", Args: json.RawMessage(`{"a":9,"b":9}`)}},
		{ToolCall: &llm.ToolCall{ID: "<made>", Name: "calculate_sum", Args: json.RawMessage(`{"a":0,"b":0}`)}},
	}
	for _, p := range resp.Message.Parts {
		if c := p.ToolCall; c != nil && strings.HasPrefix(c.ID, "call_") {
			c.ID = "<made>"
		}
	}
	if diff := cmp.Diff(want, resp.Message.Parts); diff != "" {
		t.Errorf("calls mismatch (-want +got):\n%s", diff)
	}
}

// TestMaxTokens: a bound on the turn goes as the endpoint reads it. A
// compatible server (--base-url) reads max_tokens, and not all of them
// max_completion_tokens; OpenAI's reasoning models refuse max_tokens,
// behind whatever base URL (a proxy, Azure) they are reached.
func TestMaxTokens(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ model, param string }{
		{"llama3.1", "max_tokens"},
		{"qwen3:8b", "max_tokens"},
		{"o3-mini", "max_completion_tokens"},
		{"o4-mini", "max_completion_tokens"},
		{"gpt-5", "max_completion_tokens"},
	} {
		t.Run(tt.model, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.OpenAI, testKey, llmtest.Reply{Text: "Short."})
			defer srv.Close()
			p, err := New(llm.ClientOptions{Model: tt.model, APIKey: testKey, BaseURL: srv.BaseURL(), MaxTokens: 100})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{llmtest.User("hi")}}, false); err != nil {
				t.Fatal(err)
			}
			body := srv.Bodies()[0]
			for _, k := range []string{"max_tokens", "max_completion_tokens"} {
				want := any(nil)
				if k == tt.param {
					want = float64(100)
				}
				if body[k] != want {
					t.Errorf("%s = %v, want %v", k, body[k], want)
				}
			}
		})
	}
}

// TestAnswerNotStreamed: a server that ignores "stream": true and sends
// the whole answer as JSON is read as the answer it is; a body of null is
// a malformed answer, not a stream that ended early.
func TestAnswerNotStreamed(t *testing.T) {
	t.Parallel()
	usage := &message.Usage{InputTokens: 50, OutputTokens: 7}
	srv := llmtest.NewServer(llmtest.OpenAI, testKey,
		llmtest.Reply{Text: "Adding.", Unstreamed: true, Usage: usage, Calls: []llmtest.Call{
			{ID: "c1", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": 2}},
			{ID: "c2", Name: "calculate_sum", Args: map[string]any{"a": 3, "b": 4}},
		}},
		llmtest.Reply{Text: "Half", StopReason: "length", Unstreamed: true},
		llmtest.Reply{Raw: "null", Unstreamed: true})
	defer srv.Close()
	p := newProvider(t, srv, testKey)
	var streamed strings.Builder
	resp, err := p.Generate(context.Background(), &llm.Request{Messages: []llm.Message{llmtest.User("add")}}, func(s string) { streamed.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Part{
		{Text: "Adding."},
		{ToolCall: &llm.ToolCall{ID: "c1", Name: "calculate_sum", Args: json.RawMessage(`{"a":1,"b":2}`)}},
		{ToolCall: &llm.ToolCall{ID: "c2", Name: "calculate_sum", Args: json.RawMessage(`{"a":3,"b":4}`)}},
	}
	if diff := cmp.Diff(want, resp.Message.Parts); diff != "" {
		t.Errorf("parts mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(usage, resp.Usage); diff != "" || streamed.String() != "Adding." {
		t.Errorf("usage (-want +got):\n%s\nstreamed %q", diff, streamed.String())
	}
	resp, _, err = llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{llmtest.User("go")}}, false)
	if err != nil || resp.Cut != "length" {
		t.Errorf("cut %v, error %v; want the answer cut at its length", resp, err)
	}
	_, _, err = llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{llmtest.User("go")}}, false)
	if err == nil || !strings.Contains(err.Error(), "openai: malformed answer from the API") {
		t.Errorf("error %v, want a malformed answer", err)
	}
}

// TestLongDescription: OpenAI refuses a function description over 1024
// characters (an MCP server's tools often have longer ones): it is cut,
// never sent to be refused.
func TestLongDescription(t *testing.T) {
	t.Parallel()
	long := &toolset.Tool{Name: "search", Description: strings.Repeat("Finds things. ", 80) + "ü" + strings.Repeat("x", 200)}
	srv := llmtest.NewServer(llmtest.OpenAI, testKey, llmtest.Reply{Text: "Found."})
	defer srv.Close()
	if _, _, err := llmtest.Generate(t, newProvider(t, srv, testKey), &llm.Request{Messages: []llm.Message{llmtest.User("find")}, Tools: []*toolset.Tool{long, llmtest.SumSpec}}, false); err != nil {
		t.Fatal(err)
	}
	tools := srv.Bodies()[0]["tools"].([]any)
	got := tools[0].(map[string]any)["function"].(map[string]any)["description"].(string)
	if n := len([]rune(got)); n != 1024 || !strings.HasPrefix(long.Description, strings.TrimSuffix(got, "…")) || !strings.HasSuffix(got, "…") {
		t.Errorf("description of %d characters: %q, want the first 1023 and an ellipsis", n, got)
	}
	if d := tools[1].(map[string]any)["function"].(map[string]any)["description"]; d != llmtest.SumSpec.Description {
		t.Errorf("a short description became %q", d)
	}
}

// TestTooManyTools: OpenAI refuses more than 128 functions a request, at
// every turn; kesoku says so before sending. A server of one's own
// (compatible) gets them all: its limits are its own.
func TestTooManyTools(t *testing.T) {
	t.Parallel()
	specs := make([]*toolset.Tool, MaxTools+1)
	for i := range specs {
		specs[i] = &toolset.Tool{Name: fmt.Sprintf("tool_%d", i), Description: "A tool."}
	}
	req := &llm.Request{Messages: []llm.Message{llmtest.User("hi")}, Tools: specs}

	srv := llmtest.NewServer(llmtest.OpenAI, testKey, llmtest.Reply{Text: "Hi."})
	defer srv.Close()
	p := newProvider(t, srv, testKey)
	p.compatible = false // OpenAI's own endpoint, played by the fake
	_, _, err := llmtest.Generate(t, p, req, false)
	var many *TooManyToolsError
	if !errors.As(err, &many) || many.Offered != 129 || !strings.Contains(err.Error(), "at most 128 tools") {
		t.Fatalf("129 tools to OpenAI: %v, want a *TooManyToolsError naming the limit", err)
	}
	if n := len(srv.Bodies()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}

	// The fake refuses them as OpenAI does, so a request that got through
	// would fail the test above.
	compatible := newProvider(t, srv, testKey)
	if _, _, err := llmtest.Generate(t, compatible, req, false); err == nil || !strings.Contains(err.Error(), "array too long") {
		t.Errorf("129 tools to the fake: %v, want OpenAI's refusal", err)
	}
}

// TestCallsByIndex: a stream's calls come back in the order of their
// indexes, whatever order their deltas arrive in: index 1 before index
// 0, indexes with a gap (0 and 2), and deltas of several calls in turn,
// as servers that stream parallel calls at once send them.
func TestCallsByIndex(t *testing.T) {
	t.Parallel()
	at := func(i int) *int { return &i }
	sum := func(id string, index *int, a int) llmtest.Call {
		return llmtest.Call{ID: id, Name: "calculate_sum", Args: map[string]any{"a": a, "b": a}, Index: index}
	}
	for _, tt := range []struct {
		name       string
		calls      []llmtest.Call
		interleave bool
		want       []string
	}{
		{"1 before 0", []llmtest.Call{sum("c1", at(1), 1), sum("c0", at(0), 0)}, false, []string{"c0", "c1"}},
		{"0 and 2", []llmtest.Call{sum("c0", at(0), 0), sum("c2", at(2), 2)}, false, []string{"c0", "c2"}},
		{"2, 0 and 1 in turn", []llmtest.Call{sum("c2", at(2), 2), sum("c0", at(0), 0), sum("c1", at(1), 1)}, true, []string{"c0", "c1", "c2"}},
		{"5 and 3 in turn", []llmtest.Call{sum("c5", at(5), 5), sum("c3", at(3), 3)}, true, []string{"c3", "c5"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(llmtest.OpenAI, testKey, llmtest.Reply{Calls: tt.calls, InterleaveCalls: tt.interleave})
			defer srv.Close()
			resp, _, err := llmtest.Generate(t, newProvider(t, srv, testKey), &llm.Request{Messages: []llm.Message{llmtest.User("go")}, Tools: []*toolset.Tool{llmtest.SumSpec}}, true)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range resp.Message.Parts {
				c := p.ToolCall
				if c == nil {
					t.Fatalf("a part that is no call: %+v", p)
				}
				n := strings.TrimPrefix(c.ID, "c")
				if want := fmt.Sprintf(`{"a":%s,"b":%s}`, n, n); string(c.Args) != want || c.Name != "calculate_sum" {
					t.Errorf("call %s: %s %s, want its own arguments %s", c.ID, c.Name, c.Args, want)
				}
				got = append(got, c.ID)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

package llmtest

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestCheckClaude(t *testing.T) {
	t.Parallel()
	user := func(content string) string { return `{"role":"user","content":` + content + `}` }
	assistant := func(content string) string { return `{"role":"assistant","content":` + content + `}` }
	body := func(msgs ...string) string {
		return `{"model":"m","max_tokens":1,"messages":[` + strings.Join(msgs, ",") + `]}`
	}
	call := func(id string) string {
		return `[{"type":"tool_use","id":"` + id + `","name":"f","input":{}}]`
	}
	result := func(ids ...string) string {
		var blocks []string
		for _, id := range ids {
			blocks = append(blocks, `{"type":"tool_result","tool_use_id":"`+id+`","content":[{"type":"text","text":"ok"}]}`)
		}
		return "[" + strings.Join(blocks, ",") + "]"
	}
	pdf := func(pages int) string {
		doc := "%PDF-1.4\n" + strings.Repeat("<< /Type /Page >>\n", pages) + "<< /Type /Pages >>\n"
		return `[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` +
			base64.StdEncoding.EncodeToString([]byte(doc)) + `"}},{"type":"text","text":"read"}]`
	}
	tests := []struct {
		name   string
		body   string
		limit  int
		status int
		msg    string
	}{
		{name: "a valid exchange", body: body(user(`"hi"`), assistant(call("toolu_1")), user(result("toolu_1")))},
		{name: "no messages", body: body(), status: 400, msg: "at least one message"},
		{name: "whitespace text", body: body(user(`"hi"`), assistant(`[{"type":"text","text":"\n\n"}]`), user(`"go"`)),
			status: 400, msg: "text content blocks must contain non-whitespace text"},
		{name: "empty text", body: body(user(`[{"type":"text","text":""}]`)), status: 400, msg: "text content blocks must be non-empty"},
		{name: "an id out of the pattern", body: body(user(`"hi"`), assistant(call("call.1")), user(result("call.1"))),
			status: 400, msg: "String should match pattern '^[a-zA-Z0-9_-]+$'"},
		{name: "a duplicate id", body: body(user(`"hi"`), assistant(call("a")), user(result("a")), assistant(call("a")), user(result("a"))),
			status: 400, msg: "`tool_use` ids must be unique"},
		{name: "an unanswered call", body: body(user(`"hi"`), assistant(call("a")), user(`"go on"`)),
			status: 400, msg: "`tool_use` ids were found without `tool_result` blocks immediately after: a"},
		{name: "a result of no call", body: body(user(`"hi"`), assistant(call("a")), user(result("a", "b"))),
			status: 400, msg: "unexpected `tool_use_id` found in `tool_result` blocks: b"},
		{name: "calls at the end", body: body(user(`"hi"`), assistant(call("a"))), status: 400, msg: "without `tool_result` blocks"},
		{name: "an input that is no object", body: body(user(`"hi"`), assistant(`[{"type":"tool_use","id":"a","name":"f","input":[1]}]`), user(result("a"))),
			status: 400, msg: "Input should be a valid dictionary"},
		{name: "empty content", body: body(user(`[]`), assistant(`"x"`)), status: 400, msg: "all messages must have non-empty content"},
		{name: "four cache breakpoints", body: body(user(`[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]`),
			assistant(`[{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]`),
			user(`[{"type":"text","text":"c","cache_control":{"type":"ephemeral"}},{"type":"text","text":"d","cache_control":{"type":"ephemeral"}}]`))},
		{name: "five cache breakpoints", body: `{"model":"m","max_tokens":1,"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"messages":[` +
			user(`[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}}]`) + "," +
			assistant(`[{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]`) + "," +
			user(`[{"type":"text","text":"c","cache_control":{"type":"ephemeral"}},{"type":"text","text":"d","cache_control":{"type":"ephemeral"}}]`) + `]}`,
			status: 400, msg: "A maximum of 4 blocks with cache_control may be provided. Found 5."},
		{name: "100 PDF pages", body: body(user(pdf(100)))},
		{name: "101 PDF pages", body: body(user(pdf(101))), status: 400, msg: "A maximum of 100 PDF pages may be provided."},
		{name: "too large", body: body(user(`"` + strings.Repeat("a", 100) + `"`)), limit: 100,
			status: http.StatusRequestEntityTooLarge, msg: "Request exceeds the maximum allowed number of bytes."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ref := claudeWire{}.check([]byte(tt.body), tt.limit)
			checkRefusal(t, ref, tt.status, tt.msg)
		})
	}
}

func TestCheckGemini(t *testing.T) {
	t.Parallel()
	user := `{"role":"user","parts":[{"text":"hi"}]}`
	calls := func(n int) string {
		var parts []string
		for i := range n {
			parts = append(parts, fmt.Sprintf(`{"functionCall":{"name":"f%d","args":{}}}`, i))
		}
		return `{"role":"model","parts":[` + strings.Join(parts, ",") + `]}`
	}
	responses := func(n int) string {
		var parts []string
		for i := range n {
			parts = append(parts, fmt.Sprintf(`{"functionResponse":{"name":"f%d","response":{"output":1}}}`, i))
		}
		return `{"role":"user","parts":[` + strings.Join(parts, ",") + `]}`
	}
	body := func(contents ...string) string { return `{"contents":[` + strings.Join(contents, ",") + `]}` }
	tests := []struct {
		name   string
		body   string
		limit  int
		status int
		msg    string
	}{
		{name: "a valid exchange", body: body(user, calls(2), responses(2))},
		{name: "no contents", body: body(), status: 400, msg: "contents is not specified"},
		{name: "no parts", body: body(`{"role":"user","parts":[]}`), status: 400, msg: "contents.parts must not be empty"},
		{name: "a part without data", body: body(`{"role":"user","parts":[{"thoughtSignature":"AA=="}]}`), status: 400, msg: "required oneof field 'data'"},
		{name: "too few responses", body: body(user, calls(2), responses(1)), status: 400, msg: "the number of function response parts is equal to the number of function call parts"},
		{name: "no responses", body: body(user, calls(1), user), status: 400, msg: "the number of function response parts is equal"},
		{name: "calls after the model", body: body(user, `{"role":"model","parts":[{"text":"x"}]}`, calls(1), responses(1)),
			status: 400, msg: "function call turn comes immediately after a user turn or after a function response turn"},
		{name: "args that are an array", body: body(user, `{"role":"model","parts":[{"functionCall":{"name":"f","args":[1]}}]}`, responses(1)),
			status: 400, msg: "Proto field is not repeating"},
		{name: "too large", body: body(`{"role":"user","parts":[{"text":"` + strings.Repeat("a", 100) + `"}]}`), limit: 100,
			status: 400, msg: "Request payload size exceeds the limit: 100 bytes."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ref := geminiWire{}.check([]byte(tt.body), tt.limit)
			checkRefusal(t, ref, tt.status, tt.msg)
		})
	}
}

func TestCheckOpenAI(t *testing.T) {
	t.Parallel()
	user := `{"role":"user","content":"hi"}`
	calls := func(ids ...string) string {
		var cs []string
		for _, id := range ids {
			cs = append(cs, `{"id":"`+id+`","type":"function","function":{"name":"f","arguments":"{}"}}`)
		}
		return `{"role":"assistant","content":null,"tool_calls":[` + strings.Join(cs, ",") + `]}`
	}
	result := func(id string) string { return `{"role":"tool","tool_call_id":"` + id + `","content":"ok"}` }
	body := func(msgs ...string) string { return `{"model":"m","messages":[` + strings.Join(msgs, ",") + `]}` }
	tests := []struct {
		name   string
		body   string
		limit  int
		status int
		msg    string
	}{
		{name: "a valid exchange", body: body(user, calls("a", "b"), result("a"), result("b"), user)},
		{name: "no messages", body: body(), status: 400, msg: "Invalid 'messages': empty array"},
		{name: "an unanswered call", body: body(user, calls("a", "b"), result("a"), user), status: 400,
			msg: "The following tool_call_ids did not have response messages: b"},
		{name: "calls at the end", body: body(user, calls("a")), status: 400, msg: "did not have response messages: a"},
		{name: "a result of no call", body: body(user, calls("a"), result("a"), result("z")), status: 400,
			msg: "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'"},
		{name: "a call answered twice", body: body(user, calls("a", "b"), result("a"), result("a"), result("b")), status: 400,
			msg: "Duplicate value for 'tool_call_id' of 'a', in messages[2] and messages[3]"},
		{name: "two calls with one id", body: body(user, calls("a", "a"), result("a"), result("a")), status: 400,
			msg: "Duplicate value for 'tool_call_id' of 'a'"},
		{name: "max_tokens to a reasoning model", body: `{"model":"o3-mini","max_tokens":100,"messages":[` + user + `]}`, status: 400,
			msg: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."},
		{name: "max_tokens to another model", body: `{"model":"llama3.1","max_tokens":100,"messages":[` + user + `]}`},
		{name: "an id too long", body: body(user, calls(strings.Repeat("x", 41)), result(strings.Repeat("x", 41))), status: 400,
			msg: "Expected a string with maximum length 40"},
		{name: "arguments that are an object", body: body(user, `{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":{}}}]}`, result("a")),
			status: 400, msg: "expected a string, but got an object instead"},
		{name: "an assistant with nothing", body: body(user, `{"role":"assistant","content":null}`), status: 400, msg: "expected a string, got null"},
		{name: "an image from the system", body: body(`{"role":"system","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}`, user),
			status: 400, msg: "Image URLs are only allowed for messages with role 'user'"},
		{name: "stream options without a stream", body: `{"model":"m","stream_options":{"include_usage":true},"messages":[` + user + `]}`,
			status: 400, msg: "'stream_options' parameter is only allowed when 'stream' is enabled"},
		{name: "a tool name with a dot", body: `{"model":"m","tools":[{"type":"function","function":{"name":"a.b"}}],"messages":[` + user + `]}`,
			status: 400, msg: "string does not match pattern"},
		{name: "a description too long", body: `{"model":"m","tools":[{"type":"function","function":{"name":"f","description":"` + strings.Repeat("é", 1025) + `"}}],"messages":[` + user + `]}`,
			status: 400, msg: "Invalid 'tools[0].function.description': string too long. Expected a string with maximum length 1024, but got a string with length 1025 instead."},
		{name: "a description just short enough", body: `{"model":"m","tools":[{"type":"function","function":{"name":"f","description":"` + strings.Repeat("é", 1024) + `"}}],"messages":[` + user + `]}`},
		{name: "too large", body: body(`{"role":"user","content":"` + strings.Repeat("a", 100) + `"}`), limit: 100,
			status: http.StatusRequestEntityTooLarge, msg: "Maximum content size limit exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ref := openAIWire{}.check([]byte(tt.body), tt.limit)
			checkRefusal(t, ref, tt.status, tt.msg)
		})
	}
}

func checkRefusal(t *testing.T, ref *refusal, status int, msg string) {
	t.Helper()
	switch {
	case status == 0 && ref != nil:
		t.Errorf("refused with %d %q, want accepted", ref.status, ref.msg)
	case status != 0 && ref == nil:
		t.Errorf("accepted, want %d %q", status, msg)
	case status != 0 && (ref.status != status || !strings.Contains(ref.msg, msg)):
		t.Errorf("refused with %d %q, want %d %q", ref.status, ref.msg, status, msg)
	}
}

package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kesoku/kesoku/message"
)

// claudeWire is the Anthropic Messages API's REST format: POST
// /v1/messages, with "stream": true in the body for a text/event-stream of
// named events (message_start, content_block_start/delta/stop,
// message_delta, message_stop).
type claudeWire struct{}

func (claudeWire) parse(r *http.Request, body []byte) (string, bool, error) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
		return "", false, fmt.Errorf("fake claude: no such endpoint %s %s", r.Method, r.URL.Path)
	}
	var head struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	json.Unmarshal(body, &head)
	return head.Model, head.Stream, nil
}

func (t *turn) claudeStop() string {
	switch {
	case t.StopReason != "":
		return t.StopReason
	case len(t.Calls) > 0:
		return "tool_use"
	}
	return "end_turn"
}

func (t *turn) claudeCallID(i int) string {
	if id := t.Calls[i].ID; id != "" {
		return id
	}
	return fmt.Sprintf("toolu_fake_%d_%d", t.n, i+1)
}

func (t *turn) claudeBlocks() []any {
	var blocks []any
	if t.Text != "" {
		blocks = append(blocks, map[string]any{"type": "text", "text": t.Text})
	}
	for i, c := range t.Calls {
		var input any = c.Args
		switch {
		case c.RawArgs != "":
			input = json.RawMessage(c.RawArgs)
		case c.Args == nil:
			input = map[string]any{}
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": t.claudeCallID(i), "name": c.Name, "input": input})
	}
	return blocks
}

func (t *turn) claudeMessage(content []any, stop any) map[string]any {
	if content == nil {
		content = []any{}
	}
	return map[string]any{
		"id": fmt.Sprintf("msg_fake_%d", t.n), "type": "message", "role": "assistant", "model": t.model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": t.claudeUsage(t.usage.OutputTokens),
	}
}

// claudeUsage is the usage of a message as Claude reports it: its
// input_tokens are those after the last cache breakpoint.
func (t *turn) claudeUsage(output int64) map[string]any {
	u := t.usage
	return map[string]any{
		"input_tokens":                u.InputTokens - u.CacheReadTokens - u.CacheWriteTokens,
		"cache_read_input_tokens":     u.CacheReadTokens,
		"cache_creation_input_tokens": u.CacheWriteTokens,
		"output_tokens":               output,
	}
}

func (claudeWire) usage(s *Server, body []byte, reply Reply) message.Usage {
	u := message.Usage{OutputTokens: reply.outputTokens()}
	u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens = s.cache.use(body)
	return u
}

func (claudeWire) message(t *turn) []byte {
	return mustJSON(t.claudeMessage(t.claudeBlocks(), t.claudeStop()))
}

func (claudeWire) events(t *turn) [][]byte {
	var out [][]byte
	add := func(name string, data map[string]any) {
		data["type"] = name
		out = append(out, []byte("event: "+name+"\ndata: "+string(mustJSON(data))+"\n\n"))
	}
	start := t.claudeMessage(nil, nil)
	start["usage"] = t.claudeUsage(1)
	add("message_start", map[string]any{"message": start})
	out = append(out, []byte("event: ping\ndata: {\"type\": \"ping\"}\n\n"))
	if t.StreamError != "" {
		add("error", map[string]any{"error": map[string]any{"type": t.StreamError, "message": t.Error}})
		return out
	}
	index := 0
	text := func() {
		add("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		for _, c := range chunks(t.Text) {
			add("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": c}})
		}
		add("content_block_stop", map[string]any{"index": 0})
	}
	if t.Text != "" {
		text()
		index++
	}
	if t.DoubleStart {
		// A proxy that replays the stream from its start.
		add("message_start", map[string]any{"message": start})
		if t.Text != "" {
			text()
		}
	}
	for i, c := range t.Calls {
		add("content_block_start", map[string]any{"index": index, "content_block": map[string]any{
			"type": "tool_use", "id": t.claudeCallID(i), "name": c.Name, "input": map[string]any{}}})
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		js := string(mustJSON(args))
		if c.RawArgs != "" {
			js = c.RawArgs
		}
		// Input arrives as pieces of JSON text that only parse once joined.
		half := len(js) / 2
		for _, piece := range []string{js[:half], js[half:]} {
			add("content_block_delta", map[string]any{"index": index, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
		}
		add("content_block_stop", map[string]any{"index": index})
		index++
	}
	add("message_delta", map[string]any{
		"delta": map[string]any{"stop_reason": t.claudeStop(), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": t.usage.OutputTokens},
	})
	add("message_stop", map[string]any{})
	return out
}

var claudeErrorType = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
	413: "request_too_large", 429: "rate_limit_error", 500: "api_error", 529: "overloaded_error",
}

// statusOf is the HTTP status of a Claude error type; 529 (overloaded) for
// one it does not know.
func statusOf(errorType string) int {
	for status, typ := range claudeErrorType {
		if typ == errorType {
			return status
		}
	}
	return 529
}

func (claudeWire) writeError(w http.ResponseWriter, status int, msg string) {
	typ, ok := claudeErrorType[status]
	if !ok {
		typ = "api_error"
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_fake")
	w.WriteHeader(status)
	w.Write(mustJSON(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}, "request_id": "req_fake"}))
}

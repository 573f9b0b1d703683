package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/kesoku/kesoku/message"
)

// openAIWire is the Chat Completions API's REST format, as OpenAI and the
// servers that speak it (Ollama, vLLM, LM Studio, llama.cpp) serve it:
// POST /v1/chat/completions, with "stream": true in the body for a
// text/event-stream of chat.completion.chunk objects as data lines, ended
// by "data: [DONE]". Its clients' base URL ends in /v1 (Server.BaseURL).
type openAIWire struct{}

// openAICreated is the "created" time of every answer: a fixed Unix time.
const openAICreated = 1764460800

func (openAIWire) parse(r *http.Request, body []byte) (string, bool, error) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		return "", false, fmt.Errorf("fake openai: no such endpoint %s %s", r.Method, r.URL.Path)
	}
	var head struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	json.Unmarshal(body, &head)
	return head.Model, head.Stream, nil
}

func (t *turn) openAIFinish() string {
	switch {
	case t.StopReason != "":
		return t.StopReason
	case len(t.Calls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (t *turn) openAICallID(i int) string {
	return t.Calls[i].ID // a server may send none: the client makes one
}

func (t *turn) openAIArgs(i int) string {
	c := t.Calls[i]
	switch {
	case c.RawArgs != "":
		return c.RawArgs
	case c.Args == nil:
		return "{}"
	}
	return string(mustJSON(c.Args))
}

func (t *turn) openAIUsage() map[string]any {
	u := t.usage
	out := map[string]any{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.InputTokens + u.OutputTokens}
	if u.CacheReadTokens > 0 || u.CacheWriteTokens > 0 {
		details := map[string]any{"cached_tokens": u.CacheReadTokens}
		if u.CacheWriteTokens > 0 {
			details["cache_write_tokens"] = u.CacheWriteTokens
		}
		out["prompt_tokens_details"] = details
	}
	return out
}

func (t *turn) openAIHead(object string) map[string]any {
	return map[string]any{"id": fmt.Sprintf("chatcmpl-fake-%d", t.n), "object": object, "created": openAICreated, "model": t.model}
}

func (openAIWire) message(t *turn) []byte {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if t.Text != "" {
		msg["content"] = t.Text
	}
	if len(t.Calls) > 0 {
		var calls []any
		for i, c := range t.Calls {
			calls = append(calls, map[string]any{"id": t.openAICallID(i), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": t.openAIArgs(i)}})
		}
		msg["tool_calls"] = calls
	}
	choice := map[string]any{"index": 0, "message": msg, "logprobs": nil, "finish_reason": t.openAIFinish()}
	if t.NoFinish {
		choice["finish_reason"] = nil
	}
	out := t.openAIHead("chat.completion")
	out["choices"] = []any{choice}
	out["usage"] = t.openAIUsage()
	return mustJSON(out)
}

func (openAIWire) events(t *turn) [][]byte {
	var out [][]byte
	add := func(choices []any, extra map[string]any) {
		chunk := t.openAIHead("chat.completion.chunk")
		chunk["choices"] = choices
		for k, v := range extra {
			chunk[k] = v
		}
		out = append(out, []byte("data: "+string(mustJSON(chunk))+"\n\n"))
	}
	delta := func(d map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": d, "logprobs": nil, "finish_reason": finish}}
	}
	add(delta(map[string]any{"role": "assistant", "content": ""}, nil), nil)
	if t.StreamError != "" {
		out = append(out, []byte("data: "+string(mustJSON(map[string]any{"error": map[string]any{
			"message": t.Error, "type": t.StreamError, "param": nil, "code": nil}}))+"\n\n"))
		return out
	}
	for _, c := range chunks(t.Text) {
		add(delta(map[string]any{"content": c}, nil), nil)
	}
	// Each call is three deltas: its id and name, then its arguments in
	// two pieces of JSON text that only parse once joined.
	calls := make([][]map[string]any, len(t.Calls))
	for i, c := range t.Calls {
		index := i
		if c.Index != nil {
			index = *c.Index
		}
		call := map[string]any{"index": index, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}
		if id := t.openAICallID(i); id != "" {
			call["id"] = id
		}
		args := t.openAIArgs(i)
		half := len(args) / 2
		calls[i] = []map[string]any{call,
			{"index": index, "function": map[string]any{"arguments": args[:half]}},
			{"index": index, "function": map[string]any{"arguments": args[half:]}}}
	}
	send := func(d map[string]any) { add(delta(map[string]any{"tool_calls": []any{d}}, nil), nil) }
	if t.InterleaveCalls {
		for step := range 3 {
			for _, c := range calls {
				send(c[step])
			}
		}
	} else {
		for _, c := range calls {
			for _, d := range c {
				send(d)
			}
		}
	}
	if !t.NoFinish {
		add(delta(map[string]any{}, t.openAIFinish()), nil)
	}
	if t.includeUsage && !t.NoUsage {
		add([]any{}, map[string]any{"usage": t.openAIUsage()})
	}
	if !t.NoFinish {
		out = append(out, []byte("data: [DONE]\n\n"))
	}
	return out
}

var openAIErrorType = map[int][2]string{
	400: {"invalid_request_error", ""}, 401: {"invalid_request_error", "invalid_api_key"},
	403: {"invalid_request_error", "unsupported_country_region_territory"}, 404: {"invalid_request_error", "model_not_found"},
	429: {"requests", "rate_limit_exceeded"}, 500: {"server_error", ""}, 503: {"server_error", ""},
}

func (openAIWire) writeError(w http.ResponseWriter, status int, msg string) {
	typ, ok := openAIErrorType[status]
	if !ok {
		typ = [2]string{"server_error", ""}
	}
	var code any
	if typ[1] != "" {
		code = typ[1]
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(mustJSON(map[string]any{"error": map[string]any{"message": msg, "type": typ[0], "param": nil, "code": code}}))
}

func (openAIWire) usage(_ *Server, body []byte, reply Reply) message.Usage {
	return message.Usage{InputTokens: tokens(len(body)), OutputTokens: reply.outputTokens()}
}

package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/kesoku/kesoku/message"
)

// geminiWire is the Gemini API's REST format: POST
// /v1beta/models/{model}:generateContent, or :streamGenerateContent?alt=sse
// for a stream of GenerateContentResponse chunks as SSE data lines.
type geminiWire struct{}

func (geminiWire) parse(r *http.Request, _ []byte) (string, bool, error) {
	if r.Method != http.MethodPost {
		return "", false, fmt.Errorf("fake gemini: %s %s: method not allowed", r.Method, r.URL.Path)
	}
	_, rest, ok := strings.Cut(r.URL.Path, "/models/")
	if !ok {
		return "", false, fmt.Errorf("fake gemini: no such endpoint %s", r.URL.Path)
	}
	model, method, _ := strings.Cut(rest, ":")
	switch method {
	case "generateContent":
		return model, false, nil
	case "streamGenerateContent":
		if r.URL.Query().Get("alt") != "sse" {
			return "", false, fmt.Errorf("fake gemini: streamGenerateContent without alt=sse")
		}
		return model, true, nil
	}
	return "", false, fmt.Errorf("fake gemini: no such method %q", method)
}

type geminiPart struct {
	Text             *string             `json:"text,omitempty"`
	Thought          bool                `json:"thought,omitempty"`
	FunctionCall     *geminiFunctionCall `json:"functionCall,omitempty"`
	ThoughtSignature string              `json:"thoughtSignature,omitempty"`
}

type geminiFunctionCall struct {
	ID   string `json:"id,omitempty"`
	Name string `json:"name"`
	Args any    `json:"args"`
}

func textPart(s, sig string) geminiPart { return geminiPart{Text: &s, ThoughtSignature: sig} }

func (t *turn) geminiFinish() string {
	if t.NoFinish {
		return ""
	}
	if t.StopReason != "" {
		return t.StopReason
	}
	return "STOP"
}

func geminiChunk(t *turn, parts []geminiPart, finish string) map[string]any {
	cand := map[string]any{"index": 0, "content": map[string]any{"role": "model", "parts": parts}}
	chunk := map[string]any{
		"candidates":   []any{cand},
		"modelVersion": t.model,
		"responseId":   fmt.Sprintf("fake-%d", t.n),
	}
	if finish != "" {
		cand["finishReason"] = finish
		u := t.usage
		meta := map[string]any{"promptTokenCount": u.InputTokens, "candidatesTokenCount": u.OutputTokens, "totalTokenCount": u.InputTokens + u.OutputTokens}
		if u.CacheReadTokens > 0 {
			meta["cachedContentTokenCount"] = u.CacheReadTokens
		}
		chunk["usageMetadata"] = meta
	}
	return chunk
}

func (t *turn) geminiCalls() []geminiPart {
	var parts []geminiPart
	for _, c := range t.Calls {
		var args any = c.Args
		switch {
		case c.RawArgs != "":
			args = json.RawMessage(c.RawArgs)
		case c.Args == nil:
			args = map[string]any{}
		}
		parts = append(parts, geminiPart{
			FunctionCall:     &geminiFunctionCall{ID: c.ID, Name: c.Name, Args: args},
			ThoughtSignature: c.ThoughtSignature,
		})
	}
	return parts
}

func (t *turn) geminiThought() []geminiPart {
	if t.Thought == "" {
		return nil
	}
	text := t.Thought
	return []geminiPart{{Text: &text, Thought: true}}
}

func (geminiWire) message(t *turn) []byte {
	parts := t.geminiThought()
	if t.Text != "" || t.ThoughtSignature != "" {
		parts = append(parts, textPart(t.Text, t.ThoughtSignature))
	}
	parts = append(parts, t.geminiCalls()...)
	return mustJSON(geminiChunk(t, parts, t.geminiFinish()))
}

func (geminiWire) events(t *turn) [][]byte {
	var out [][]byte
	add := func(parts []geminiPart, finish string) {
		out = append(out, []byte("data: "+string(mustJSON(geminiChunk(t, parts, finish)))+"\r\n\r\n"))
	}
	if th := t.geminiThought(); th != nil {
		add(th, "")
	}
	for _, c := range chunks(t.Text) {
		add([]geminiPart{textPart(c, "")}, "")
	}
	var last []geminiPart
	if t.ThoughtSignature != "" {
		last = append(last, textPart("", t.ThoughtSignature))
	}
	last = append(last, t.geminiCalls()...)
	add(last, t.geminiFinish())
	return out
}

var geminiStatus = map[int]string{
	400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
	429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED",
}

func (geminiWire) writeError(w http.ResponseWriter, status int, msg string) {
	st, ok := geminiStatus[status]
	if !ok {
		st = "UNKNOWN"
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(status)
	w.Write(mustJSON(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": st}}))
}

func (geminiWire) usage(_ *Server, body []byte, reply Reply) message.Usage {
	return message.Usage{InputTokens: tokens(len(body)), OutputTokens: reply.outputTokens()}
}

package openai

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/message"
)

// toMessages translates the conversation. Chat Completions wants every
// tool result as a message of its own (role "tool", by tool_call_id),
// right after the assistant message whose calls they answer, in the
// order of the calls: a user message that holds results and a prompt
// (after an interrupt or a resume) becomes the tool messages, then the
// prompt. Thoughts (another provider's) and provider data are left out.
func toMessages(system string, msgs []llm.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	var out []openai.ChatCompletionMessageParamUnion
	if system != "" {
		out = append(out, openai.SystemMessage(system))
	}
	for i, m := range msgs {
		var err error
		if m.Role == message.RoleAssistant {
			out, err = appendAssistant(out, m)
		} else {
			out, err = appendUser(out, m)
		}
		if err != nil {
			return nil, fmt.Errorf("openai: message %d: %w", i+1, err)
		}
	}
	return out, nil
}

func appendAssistant(out []openai.ChatCompletionMessageParamUnion, m llm.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	var text strings.Builder
	var calls []openai.ChatCompletionMessageToolCallUnionParam
	for _, p := range m.Parts {
		switch {
		case p.ToolCall != nil:
			calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
				ID: p.ToolCall.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
					Name: p.ToolCall.Name, Arguments: string(objectOf(p.ToolCall.Args)),
				},
			}})
		case p.Thought, p.Blob != nil, p.ToolResult != nil:
		default:
			text.WriteString(p.Text)
		}
	}
	if len(calls) == 0 && strings.TrimSpace(text.String()) == "" {
		// Only thoughts: nothing the API takes as an assistant message.
		return out, nil
	}
	a := openai.ChatCompletionAssistantMessageParam{ToolCalls: calls}
	if strings.TrimSpace(text.String()) != "" {
		a.Content.OfString = openai.String(text.String())
	}
	return append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a}), nil
}

func appendUser(out []openai.ChatCompletionMessageParamUnion, m llm.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	var parts []openai.ChatCompletionContentPartUnionParam
	for j, p := range m.Parts {
		switch {
		case p.ToolResult != nil:
			out = append(out, openai.ToolMessage(resultText(p.ToolResult.Content), p.ToolResult.CallID))
		case p.Blob != nil:
			part, err := blobPart(p.Blob)
			if err != nil {
				return nil, fmt.Errorf("part %d: %w", j+1, err)
			}
			parts = append(parts, part)
		case p.Thought || p.ToolCall != nil:
		case strings.TrimSpace(p.Text) != "":
			parts = append(parts, openai.TextContentPart(p.Text))
		}
	}
	switch {
	case len(parts) == 0:
		return out, nil
	case len(parts) == 1 && parts[0].OfText != nil:
		return append(out, openai.UserMessage(parts[0].OfText.Text)), nil
	}
	return append(out, openai.UserMessage(parts)), nil
}

// objectOf is a call's arguments as they go back: a JSON object, {} for
// none.
func objectOf(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}

// resultText is a tool's result as the text the model reads: a string as
// itself, any other value as its JSON, null for none.
func resultText(content json.RawMessage) string {
	content = bytes.TrimSpace(content)
	if len(content) == 0 {
		return "null"
	}
	var s string
	if content[0] == '"' && json.Unmarshal(content, &s) == nil {
		return s
	}
	return string(content)
}

// blobPart is a file as Chat Completions takes it: an image as an
// image_url (a data URL, or the URL it lives at), a PDF as a file part
// with its data URL and name.
func blobPart(b *llm.Blob) (openai.ChatCompletionContentPartUnionParam, error) {
	mime := b.BareMIME()
	web := strings.HasPrefix(b.URI, "https://") || strings.HasPrefix(b.URI, "http://")
	switch {
	case strings.HasPrefix(mime, "image/") && web:
		return openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: b.URI}), nil
	case strings.HasPrefix(mime, "image/") && len(b.Data) > 0:
		return openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(mime, b.Data)}), nil
	case mime == "application/pdf" && len(b.Data) > 0:
		name := filepath.Base(b.Name)
		if name == "." || name == "/" || name == "" {
			name = "document.pdf"
		}
		return openai.FileContentPart(openai.ChatCompletionContentPartFileFileParam{
			FileData: openai.String(dataURL(mime, b.Data)), Filename: openai.String(name),
		}), nil
	}
	return openai.ChatCompletionContentPartUnionParam{}, fmt.Errorf("%s %s: OpenAI takes images and PDF, inline, not %s", b.Kind, b.Name, mime)
}

func dataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// accumulator builds one model turn from the chunks of a stream. It is
// kesoku's own rather than the SDK's ChatCompletionAccumulator, which
// sums the usage of every chunk (a server that reports the whole so far
// on each would be counted many times) and leaves a call without an id
// (some local servers send none) to the caller anyway.
type accumulator struct {
	text    strings.Builder
	refusal strings.Builder
	calls   []*callBuilder
	// byIndex is where the call a delta's index names is in calls.
	byIndex  map[int64]int
	finish   string
	finished bool
	usage    *message.Usage
}

type callBuilder struct {
	id, name string
	args     strings.Builder
	// order is where the call goes among the turn's calls: its index, or,
	// for a call that came without one, that of the call before it.
	order int64
}

// endsAt reports whether the delta tc, at the index of b, begins a call
// of its own: it has an id, and b another; or it names a function and
// brings arguments while b is named and its arguments are whole. A name that comes in pieces, or
// again with every delta, comes before the arguments are whole.
func (b *callBuilder) endsAt(tc openai.ChatCompletionChunkChoiceDeltaToolCall) bool {
	if tc.ID != "" && b.id != "" {
		return tc.ID != b.id
	}
	if tc.Function.Name == "" || tc.Function.Arguments == "" || b.name == "" {
		// A name alone, repeated after the arguments, is no call.
		return false
	}
	// Only arguments that end in } can be whole: a server that repeats
	// the name with every piece of a long argument costs no scan of it.
	args := strings.TrimRight(b.args.String(), " \t\r\n")
	return strings.HasSuffix(args, "}") && isObject(json.RawMessage(args))
}

// add takes one chunk and returns the text it brings, to be shown.
func (a *accumulator) add(chunk *openai.ChatCompletionChunk) (string, error) {
	// The SDK reads anything: a chunk of null, or one whose choices are no
	// list, would pass for an empty one and the stream for cut.
	if raw := strings.TrimSpace(chunk.RawJSON()); !strings.HasPrefix(raw, "{") {
		return "", &llm.MalformedError{Provider: Name, Problem: "a chunk of the stream is not an object"}
	}
	if f := chunk.JSON.Choices; !f.Valid() && f.Raw() != "" && f.Raw() != "null" {
		return "", &llm.MalformedError{Provider: Name, Problem: "the choices of a chunk are no list"}
	}
	if len(chunk.Choices) == 0 && strings.Contains(chunk.RawJSON(), `"error"`) {
		// An error event as vLLM sent it before it wrapped its errors in
		// {"error": …} (the SDK looks for that key only): {"object":
		// "error", "message": …}.
		var e struct{ Object, Message, Type string }
		if json.Unmarshal([]byte(chunk.RawJSON()), &e) == nil && e.Object == "error" {
			return "", &llm.APIError{Provider: Name, Type: e.Type, Message: e.Message}
		}
	}
	if chunk.JSON.Usage.Valid() {
		u := chunk.Usage
		a.usage = &message.Usage{
			InputTokens:      u.PromptTokens,
			OutputTokens:     u.CompletionTokens,
			CacheReadTokens:  u.PromptTokensDetails.CachedTokens,
			CacheWriteTokens: u.PromptTokensDetails.CacheWriteTokens,
		}
	}
	var text strings.Builder
	for _, c := range chunk.Choices {
		if c.Index != 0 {
			continue // kesoku asks for one choice
		}
		d := c.Delta
		a.text.WriteString(d.Content)
		text.WriteString(d.Content)
		a.refusal.WriteString(d.Refusal)
		for _, tc := range d.ToolCalls {
			if tc.Index < 0 {
				return "", &llm.MalformedError{Provider: Name, Problem: fmt.Sprintf("a tool call at index %d", tc.Index)}
			}
			// The index says which call a delta belongs to, and where the
			// call goes, whatever order the deltas come in: a server that
			// streams parallel calls at once may begin index 1 before
			// index 0, or leave an index out (vLLM, some proxies).
			at, ok := a.byIndex[tc.Index]
			if !ok || a.calls[at].endsAt(tc) {
				// A new index, or a new call at an index already used:
				// Gemini's OpenAI-compatible endpoint sends each of parallel
				// calls whole at index 0 (and a server that sends no index at
				// all does too, in the SDK's eyes); joined, they would make
				// one call of both names and both arguments.
				if a.byIndex == nil {
					a.byIndex = make(map[int64]int)
				}
				at = len(a.calls)
				a.byIndex[tc.Index] = at
				b := &callBuilder{order: tc.Index}
				if !tc.JSON.Index.Valid() && at > 0 {
					b.order = a.calls[at-1].order
				}
				a.calls = append(a.calls, b)
			}
			b := a.calls[at]
			if tc.ID != "" {
				b.id = tc.ID
			}
			if b.name != tc.Function.Name {
				// Some servers repeat the whole name on every delta of a
				// call; others split it.
				b.name += tc.Function.Name
			}
			b.args.WriteString(tc.Function.Arguments)
		}
		if c.FinishReason != "" {
			a.finish, a.finished = c.FinishReason, true
		}
	}
	return text.String(), nil
}

// response is the turn the chunks made.
func (a *accumulator) response() *llm.Response {
	var parts []llm.Part
	text := a.text.String()
	if a.refusal.Len() > 0 && text == "" {
		text = a.refusal.String()
	}
	if text != "" {
		parts = append(parts, llm.Part{Text: text})
	}
	// Calls at one index (each of parallel calls sent whole at index 0)
	// keep the order they came in.
	calls := slices.Clone(a.calls)
	slices.SortStableFunc(calls, func(x, y *callBuilder) int { return cmp.Compare(x.order, y.order) })
	for _, b := range calls {
		call := &llm.ToolCall{ID: b.id, Name: b.name, Args: json.RawMessage(b.args.String())}
		if call.ID == "" {
			call.ID = newCallID()
		}
		switch {
		case strings.TrimSpace(b.args.String()) == "":
			call.Args = json.RawMessage("{}")
		case !isObject(call.Args):
			// Small local models write arguments that are not JSON: the
			// call does not run, and the model is told (invalid_args).
			call.BadArgs, call.Args = b.args.String(), json.RawMessage("{}")
		}
		parts = append(parts, llm.Part{ToolCall: call})
	}
	resp := &llm.Response{
		Message:    llm.Message{Role: message.RoleAssistant, Parts: parts},
		StopReason: a.finish,
		Usage:      a.usage,
	}
	switch {
	case a.refusal.Len() > 0:
		resp.Cut = "refusal"
	case a.finish == "stop", a.finish == "tool_calls", a.finish == "function_call":
	default:
		// length, content_filter, and any reason this code does not know.
		resp.Cut = a.finish
	}
	return resp
}

// isObject reports whether raw is one JSON object and nothing more.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}

// newCallID makes an id for a call a server sent without one, so that
// its result can answer it.
func newCallID() string {
	var b [8]byte
	rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}

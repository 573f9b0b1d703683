package claude

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/message"
)

// The ProviderData of a Claude part is the raw JSON of a content block
// kesoku does not model (thinking, redacted_thinking, server tool blocks):
// it goes back byte for byte on the next turn.

// toMessages translates the conversation. Tool results go in the user
// message that follows the calls, one tool_result per tool_use, before any
// other block of that message. Messages of one role in a row (tool
// results and then a prompt, after an interrupt or a resume; two prompts,
// after an interrupt while the model was thinking) become one message, so
// that roles alternate and the results still come first.
func toMessages(msgs []llm.Message) ([]anthropic.MessageParam, error) {
	out := make([]anthropic.MessageParam, 0, len(msgs))
	var role message.Role
	var results, rest []anthropic.ContentBlockParamUnion
	emit := func() {
		blocks := append(results, rest...)
		results, rest = nil, nil
		switch {
		case len(blocks) == 0:
		case role == message.RoleAssistant:
			out = append(out, anthropic.NewAssistantMessage(blocks...))
		default:
			out = append(out, anthropic.NewUserMessage(blocks...))
		}
	}
	for i, m := range msgs {
		if m.Role != role {
			emit()
			role = m.Role
		}
		for j, p := range m.Parts {
			b, err := toBlock(p)
			if err != nil {
				return nil, fmt.Errorf("claude: message %d part %d: %w", i+1, j+1, err)
			}
			if b == nil {
				continue
			}
			if p.ToolResult != nil {
				results = append(results, *b)
			} else {
				rest = append(rest, *b)
			}
		}
	}
	emit()
	return out, nil
}

func toBlock(p llm.Part) (*anthropic.ContentBlockParamUnion, error) {
	var b anthropic.ContentBlockParamUnion
	switch {
	case p.ToolCall != nil:
		b = anthropic.NewToolUseBlock(p.ToolCall.ID, inputOf(p.ToolCall.Args), p.ToolCall.Name)
	case p.ToolResult != nil:
		r := p.ToolResult
		tr := anthropic.ToolResultBlockParam{ToolUseID: r.CallID}
		if r.IsError {
			tr.IsError = anthropic.Bool(true)
		}
		if text := resultText(r.Content); text != "" {
			tr.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: text}}}
		}
		b = anthropic.ContentBlockParamUnion{OfToolResult: &tr}
	case p.Blob != nil:
		return blobBlock(p.Blob)
	case isBlock(p.ProviderData):
		b = param.Override[anthropic.ContentBlockParamUnion](p.ProviderData)
	case p.Thought:
		// Another provider's reasoning (a Gemini thought summary, from a
		// resumed transcript) is no answer of the model's to show Claude.
		return nil, nil
	case strings.TrimSpace(p.Text) != "":
		// Claude refuses empty and whitespace-only text blocks.
		b = anthropic.NewTextBlock(p.Text)
	default:
		return nil, nil
	}
	return &b, nil
}

// inputOf is a tool_use block's input, both ways: no input, or null, is
// the empty object Claude requires.
func inputOf(raw json.RawMessage) json.RawMessage {
	input := json.RawMessage(bytes.TrimSpace(raw))
	if len(input) == 0 || string(input) == "null" {
		return json.RawMessage("{}")
	}
	return input
}

// isBlock reports whether a part's provider data is a content block of
// Claude's own, to be echoed as it came. Another provider's data — a
// transcript of a Gemini session resumed with Claude carries Gemini's
// thought signatures — is no block: the part goes as its text.
func isBlock(data json.RawMessage) bool {
	var head struct {
		Type string `json:"type"`
	}
	return len(data) > 0 && json.Unmarshal(data, &head) == nil && head.Type != ""
}

// resultText is a tool's result as the text Claude reads: a string as
// itself, any other value as its JSON.
func resultText(content json.RawMessage) string {
	content = bytes.TrimSpace(content)
	if len(content) == 0 || string(content) == "null" {
		return ""
	}
	var s string
	if content[0] == '"' && json.Unmarshal(content, &s) == nil && strings.TrimSpace(s) != "" {
		return s
	}
	// A string of whitespace goes quoted: Claude refuses a text block of
	// whitespace alone.
	return string(content)
}

// blobBlock is a file as Claude takes it: an image block, or a document
// block for PDF and text. Claude takes neither audio nor video.
func blobBlock(b *llm.Blob) (*anthropic.ContentBlockParamUnion, error) {
	mime := b.BareMIME()
	url := strings.HasPrefix(b.URI, "https://") || strings.HasPrefix(b.URI, "http://")
	var block anthropic.ContentBlockParamUnion
	switch {
	case b.Kind == llm.ImageBlock || strings.HasPrefix(mime, "image/"):
		switch {
		case url:
			block = anthropic.NewImageBlock(anthropic.URLImageSourceParam{URL: b.URI})
		case b.URI != "":
			block = anthropic.NewImageBlock(anthropic.FileImageSourceParam{FileID: b.URI})
		default:
			block = anthropic.NewImageBlockBase64(mime, base64.StdEncoding.EncodeToString(b.Data))
		}
	case b.Kind == llm.DocumentBlock:
		switch {
		case url:
			block = anthropic.NewDocumentBlock(anthropic.URLPDFSourceParam{URL: b.URI})
		case b.URI != "":
			block = anthropic.NewDocumentBlock(anthropic.FileDocumentSourceParam{FileID: b.URI})
		case mime == "application/pdf":
			block = anthropic.NewDocumentBlock(anthropic.Base64PDFSourceParam{Data: base64.StdEncoding.EncodeToString(b.Data)})
		case strings.HasPrefix(mime, "text/"):
			block = anthropic.NewDocumentBlock(anthropic.PlainTextSourceParam{Data: string(b.Data)})
		default:
			return nil, fmt.Errorf("document %s: Claude takes PDF and text documents, not %s", b.Name, mime)
		}
		if b.Name != "" {
			block.OfDocument.Title = anthropic.String(b.Name)
		}
	default:
		return nil, fmt.Errorf("%s %s: Claude takes images and documents, not %s", b.Kind, b.Name, mime)
	}
	return &block, nil
}

// fromMessage translates the model's turn: text, tool calls, and every
// other block kept raw to be echoed. inputs holds, by block index, the
// input of a tool_use block as it was streamed, where it was.
func fromMessage(msg *anthropic.Message, inputs map[int]string) (*llm.Response, error) {
	if msg == nil || msg.Type != "message" {
		// A body of null, or of another shape (a proxy's page): the SDK
		// reads anything, so the shape is checked here.
		return nil, malformed("the answer is not a message")
	}
	parts := make([]llm.Part, 0, len(msg.Content))
	for i, block := range msg.Content {
		switch block.Type {
		case "text":
			if block.Text != "" {
				parts = append(parts, llm.Part{Text: block.Text})
			}
		case "tool_use":
			call := &llm.ToolCall{ID: block.ID, Name: block.Name, Args: inputOf(block.Input)}
			if text, ok := inputs[i]; ok && strings.TrimSpace(text) != "" {
				call.Args = json.RawMessage(text)
			}
			if !isObject(call.Args) {
				call.BadArgs, call.Args = string(call.Args), json.RawMessage("{}")
			}
			parts = append(parts, llm.Part{ToolCall: call})
		default:
			raw := block.RawJSON()
			if raw == "" {
				continue
			}
			parts = append(parts, llm.Part{Thought: block.Type == "thinking" || block.Type == "redacted_thinking", ProviderData: json.RawMessage(raw)})
		}
	}
	resp := &llm.Response{
		Message:    llm.Message{Role: message.RoleAssistant, Parts: parts},
		StopReason: string(msg.StopReason),
		Usage:      usageOf(msg.Usage),
	}
	switch msg.StopReason {
	case anthropic.StopReasonEndTurn, anthropic.StopReasonToolUse, anthropic.StopReasonStopSequence:
	case anthropic.StopReasonPauseTurn:
		resp.Paused = true
	case "":
		resp.Cut = llm.CutNoStopReason
	default:
		// max_tokens, refusal, model_context_window_exceeded, and any
		// reason this SDK does not know yet: not a whole turn.
		resp.Cut = string(msg.StopReason)
	}
	return resp, nil
}

// usageOf is Claude's usage as kesoku counts it: Claude's input_tokens
// are those after the last cache breakpoint, and the tokens read from
// and written to the cache come on top.
func usageOf(u anthropic.Usage) *message.Usage {
	if u.JSON.InputTokens.Valid() || u.JSON.OutputTokens.Valid() {
		return &message.Usage{
			InputTokens:      u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
			OutputTokens:     u.OutputTokens,
			CacheReadTokens:  u.CacheReadInputTokens,
			CacheWriteTokens: u.CacheCreationInputTokens,
		}
	}
	return nil
}

// malformed is the error of an answer that is no answer of the API's.
func malformed(what string) error {
	return &llm.MalformedError{Provider: Name, Problem: what}
}

// isObject reports whether raw is one JSON object and nothing more.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{' && json.Valid(raw)
}

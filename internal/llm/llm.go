// Package llm owns the provider-neutral conversation and the agent loop
// that runs a model's tool calls.
//
// It holds messages and their
// parts (text, tool calls, tool results, and image, document and media
// blocks), the interface a provider implements, and the agent loop that
// runs a model's tool calls through the ToolRunner: sessions and their
// transcripts, resuming one, and the redaction of keys from what a model
// sends back. Every provider's requests go through its Transport, which
// bounds what a server can do (stalls, endless bodies, retries) and keeps
// the key to its endpoint's origin. Each provider lives in a sub-package
// that holds only the translation to and from its SDK; what a provider's
// batch API must do (Batcher) is said here too.
package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// BlockKind says how a file travels to a model.
type BlockKind string

// The native blocks analyze_media sends: ImageBlock, DocumentBlock
// (PDF and text) and MediaBlock (audio and video).
const (
	ImageBlock    BlockKind = "image"
	DocumentBlock BlockKind = "document"
	MediaBlock    BlockKind = "media"
)

// Blob is a file attached to a message: inline bytes, or a reference to a
// file the provider already holds (Gemini's Files API).
type Blob struct {
	Kind     BlockKind
	MIMEType string
	// Data is the file's content when it travels inline.
	Data []byte
	// URI references an uploaded file instead of Data.
	URI string
	// Name is the file's name, for display and error messages.
	Name string
}

// BareMIME is the blob's MIME type without its parameters ("text/plain;
// charset=utf-8" is "text/plain"): the type alone is what both providers
// take.
func (b *Blob) BareMIME() string {
	if t, _, ok := strings.Cut(b.MIMEType, ";"); ok {
		return strings.TrimSpace(t)
	}
	return b.MIMEType
}

// ToolCall is a model's request to run a tool.
type ToolCall struct {
	// ID is the provider's call id (Claude's tool_use id, Gemini's function
	// call id), or one generated where the provider gave none.
	ID   string
	Name string
	// Args is the arguments: a JSON object, or {} when the model sent
	// something else (then in BadArgs).
	Args json.RawMessage
	// BadArgs is what the model sent as arguments when it was no JSON
	// object ({"a":2}{"b":3}, JSON cut off, an array): the call is not run,
	// the model is told, and the transcript keeps the text.
	BadArgs string
}

// ToolResult answers one ToolCall. When IsError is set, Content is a JSON
// string saying what went wrong ("invalid_args: ...").
type ToolResult struct {
	CallID  string
	Name    string
	Content json.RawMessage
	IsError bool
}

// Part is one piece of a message; exactly one of its fields is set, except
// ProviderData, which rides along with any part.
type Part struct {
	Text       string
	ToolCall   *ToolCall
	ToolResult *ToolResult
	Blob       *Blob
	// Thought marks text that is the model's reasoning rather than its
	// answer (a Gemini thought summary): it is kept in the history but not
	// shown as the answer.
	Thought bool
	// ProviderData is opaque provider state that must be echoed verbatim on
	// the next turn (Gemini's thoughtSignature).
	ProviderData json.RawMessage
}

// Message is one turn of the conversation.
type Message struct {
	// Role is message.RoleUser or message.RoleAssistant, the record's own
	// roles: a conversation has only these two, and tool results travel
	// in user messages, as both providers expect.
	Role  message.Role
	Parts []Part
}

// Request is what the agent loop asks of a model.
type Request struct {
	System   string
	Messages []Message
	Tools    []*registry.Spec
	// Cacheable says the conversation will be sent again, longer (a
	// session's turns): a provider with an explicit prompt cache (Claude)
	// then marks it for caching, which costs more once and far less on
	// every later turn. A question asked once (analyze) is not worth it.
	Cacheable bool
}

// Response is a model's turn.
type Response struct {
	Message Message
	// StopReason is the provider's own word for why the turn ended.
	StopReason string
	// Cut, when set, says the turn was cut short and why, in the
	// provider's own word (max_tokens, MAX_TOKENS, SAFETY, refusal…) or
	// CutNoStopReason: its text is partial and its tool calls may be
	// incomplete, so they must not run.
	Cut string
	// Paused says the provider paused a long turn (Claude's pause_turn):
	// the turn goes on when the conversation is sent again as it is.
	Paused bool
	// Usage is what the request cost, as the provider reported it; nil
	// when it reported nothing.
	Usage *message.Usage
}

// CutNoStopReason is the Cut of a turn whose stream ended without the
// provider saying why: it may have been cut anywhere.
const CutNoStopReason = "no_stop_reason"

// CutError says the model's answer was cut short: Answer holds the
// partial text, which the transcript records with its cut reason.
type CutError struct {
	// Reason is the provider's word for the cut (Response.Cut).
	Reason string
	// Answer is the partial text.
	Answer string
}

func (e *CutError) Error() string {
	return "the answer was cut short: " + DescribeCut(e.Reason)
}

// CutByTokenLimit reports whether a turn cut for reason (Response.Cut)
// reached the output token limit.
func CutByTokenLimit(reason string) bool {
	r := strings.ToLower(reason)
	return r == "max_tokens" || r == "length"
}

// DescribeCut says in words why a turn was cut, naming the provider's
// reason.
func DescribeCut(reason string) string {
	if CutByTokenLimit(reason) {
		return fmt.Sprintf("it reached the output token limit (%s); raise the limit", reason)
	}
	switch strings.ToLower(reason) {
	case "model_context_window_exceeded":
		return fmt.Sprintf("the conversation filled the model's context window (%s)", reason)
	case "refusal":
		return fmt.Sprintf("the model refused to go on (%s)", reason)
	case "safety", "content_filter", "prohibited_content", "blocklist", "spii", "image_safety":
		return fmt.Sprintf("the provider stopped it for safety (%s)", reason)
	case "recitation":
		return fmt.Sprintf("the provider stopped it for reciting its training data (%s)", reason)
	case "malformed_function_call":
		return fmt.Sprintf("the model wrote a tool call the provider could not read (%s)", reason)
	case CutNoStopReason:
		return "the answer ended without the provider saying why (no stop reason): it may be cut anywhere"
	}
	return fmt.Sprintf("the provider stopped it (%s)", reason)
}

// Provider is a model behind an API. Implementations translate Request and
// Response to and from their SDK and nothing else.
type Provider interface {
	// Name is the provider's name: "gemini", "claude" or "openai".
	Name() string
	// ModelName is the model's name as the user gave it.
	ModelName() string
	// Generate sends the conversation and returns the model's turn. The
	// answer is streamed from the API, always: an idle timeout then bounds
	// a silence, not a long answer. When onText is not nil it receives the
	// text as it arrives; text it was given cannot be taken back, so a
	// stream that breaks after it is an error rather than asked for again.
	Generate(ctx context.Context, req *Request, onText func(string)) (*Response, error)
}

// RequestLimiter is a provider whose API refuses a request body over a
// size (Claude's 32 MB): the session keeps a turn's tool results within
// it, so that the conversation can always be sent again.
type RequestLimiter interface {
	// MaxRequestBytes is the largest request body the API takes.
	MaxRequestBytes() int64
}

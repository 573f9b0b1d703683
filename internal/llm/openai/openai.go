// Package openai is kesoku's OpenAI provider: package llm's conversation
// translated to and from the Chat Completions API.
//
// It goes through github.com/openai/openai-go/v3, for OpenAI itself and for
// the servers that speak its API (Ollama, vLLM, LM Studio, llama.cpp),
// and the construction of its client. It holds no logic of the agent
// loop.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/kesoku/kesoku/internal/llm"
)

// Name is the provider's name.
const Name = "openai"

// KeyVars are the environment variables the key is read from.
var KeyVars = []string{"OPENAI_API_KEY"}

// BaseURLVar is the environment variable a base URL is read from when
// none is given (--base-url), as OpenAI's own SDKs read it.
const BaseURLVar = "OPENAI_BASE_URL"

// DefaultBaseURL is OpenAI's own endpoint, used when no base URL is given.
const DefaultBaseURL = "https://api.openai.com/v1/"

// MaxRequest is the largest request body kesoku sends: OpenAI refuses a
// body over 25 MiB with 413 ("Maximum content size limit exceeded ...
// 26214400 bytes"); the servers that speak its API take as much or more.
const MaxRequest = 26_214_400

// Provider is a model behind a Chat Completions API: OpenAI's, or a
// compatible server's.
type Provider struct {
	model string
	// maxTokens bounds a turn; 0 sends no bound (the server's own).
	maxTokens int64
	// compatible says the endpoint is not OpenAI's own (--base-url): a
	// server that speaks its API, which reads a bound as max_tokens.
	compatible bool
	chat       openai.ChatCompletionService
	// redact hides the key in errors, should the API or a proxy echo it.
	redact *llm.Redactor
	// transport carries every request, and says how a stream that fails
	// before any text is tried again.
	transport *llm.Transport
	// maxRequest is the largest request body the API takes.
	maxRequest int64
}

var _ llm.Provider = (*Provider)(nil)

// TooManyToolsError says a request offers more tools than OpenAI takes
// (MaxTools): refused at every turn, so said before anything is sent.
type TooManyToolsError struct {
	Offered int
}

func (e *TooManyToolsError) Error() string {
	return fmt.Sprintf("openai takes at most %d tools in a request, and %d are offered: offer fewer (MCP servers' tools count too)", MaxTools, e.Offered)
}

// New builds a client for opts.Model. It sends nothing. A key is needed
// for OpenAI's own endpoint; a server of one's own at opts.BaseURL
// (Ollama, vLLM, LM Studio, llama.cpp) usually needs none, and gets none
// when none is given.
func New(opts llm.ClientOptions) (*Provider, error) {
	if opts.Model == "" {
		return nil, errors.New("openai: no model")
	}
	if opts.APIKey == "" && opts.BaseURL == "" {
		return nil, fmt.Errorf("openai: no API key (set %s; a server of your own, at a base URL, needs none)", KeyVars[0])
	}
	// The client is built from the chat service alone: openai.NewClient
	// reads OPENAI_BASE_URL, OPENAI_ORG_ID and more from the environment
	// behind the caller's back. Retries are the Transport's, which bounds
	// every wait and tells of each.
	t := llm.NewTransport(Name, DefaultBaseURL, opts)
	o := []option.RequestOption{
		// The endpoint the Transport keeps the key to.
		option.WithBaseURL(t.Endpoint),
		option.WithHTTPClient(t.Client()),
		option.WithMaxRetries(0),
		option.WithMiddleware(errorBody, wholeAnswer),
	}
	if opts.APIKey != "" {
		o = append(o, option.WithAPIKey(opts.APIKey))
	}
	maxRequest := opts.MaxRequest
	if maxRequest <= 0 {
		maxRequest = MaxRequest
	}
	return &Provider{
		maxRequest: maxRequest,
		model:      opts.Model,
		maxTokens:  int64(opts.MaxTokens),
		compatible: opts.BaseURL != "",
		chat:       openai.NewChatCompletionService(o...),
		redact:     llm.NewRedactor(opts.APIKey),
		transport:  t,
	}, nil
}

// MaxRequestBytes is the largest request body the API takes.
func (p *Provider) MaxRequestBytes() int64 { return p.maxRequest }

// Name is "openai".
func (p *Provider) Name() string { return Name }

// ModelName is the model's name as the user gave it.
func (p *Provider) ModelName() string { return p.model }

// Generate sends the conversation and returns the model's turn. The
// answer is always streamed (server-sent events), so that a long answer
// is never mistaken for a silent server (--idle-timeout bounds the
// silence, not the answer); onText, when set, receives the text as it
// comes.
//
// Nothing is sent that the user did not ask for and a compatible server
// may not take: no tool_choice (Ollama does not support it; vLLM refuses
// it unless started for it), no parallel_tool_calls. Usage is asked for
// (stream_options.include_usage), as every one of them reports it.
func (p *Provider) Generate(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	msgs, err := toMessages(req.System, req.Messages)
	if err != nil {
		return nil, err
	}
	params := openai.ChatCompletionNewParams{
		Model:         p.model,
		Messages:      msgs,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if len(req.Tools) > MaxTools && !p.compatible {
		// Refused by OpenAI at every turn, retried by nobody: say so once,
		// before anything is sent.
		return nil, &TooManyToolsError{Offered: len(req.Tools)}
	}
	if len(req.Tools) > 0 {
		params.Tools = Tools(req.Tools)
	}
	if p.maxTokens > 0 {
		// OpenAI's reasoning models refuse max_tokens, behind any base URL
		// (a proxy, Azure); compatible servers read it, and not all of
		// them max_completion_tokens.
		if p.compatible && !reasoningModel(p.model) {
			params.MaxTokens = openai.Int(p.maxTokens)
		} else {
			params.MaxCompletionTokens = openai.Int(p.maxTokens)
		}
	}
	// The Transport retries a request that fails at once (429, 5xx); a
	// stream that goes quiet, drops, or reports a server error before any
	// text was handed on is retried here.
	return llm.RetryStream(ctx, p.transport, transientInStream, func(ctx context.Context) (*llm.Response, bool, error) {
		return p.stream(ctx, params, onText)
	})
}

// reasoningModel reports whether model names one of OpenAI's reasoning
// models (o1, o3, o4-mini, gpt-5…), which take max_completion_tokens only.
func reasoningModel(model string) bool {
	m := strings.ToLower(model)
	if len(m) >= 2 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9' {
		return true
	}
	return strings.HasPrefix(m, "gpt-5")
}

// stream makes one streamed request; began says text was handed on to
// onText (nil for none).
func (p *Provider) stream(ctx context.Context, params openai.ChatCompletionNewParams, onText func(string)) (resp *llm.Response, began bool, err error) {
	watched, failures := llm.WatchFailures(ctx)
	stream := p.chat.NewStreaming(watched, params)
	defer stream.Close()
	acc := &accumulator{}
	for stream.Next() {
		chunk := stream.Current()
		text, err := acc.add(&chunk)
		if err != nil {
			return nil, began, p.redact.Error(err)
		}
		if text != "" && onText != nil {
			began = true
			onText(text)
		}
	}
	if err := stream.Err(); err != nil {
		if bound := failures.Err(); bound != nil {
			return nil, began, bound
		}
		return nil, began, p.wrap(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, began, err
	}
	if !acc.finished {
		// A stream that ends without a finish reason was cut: OpenAI and
		// the servers that speak its API always give one.
		return nil, began, fmt.Errorf("openai: %w", llm.ErrStreamCut)
	}
	return acc.response(), began, nil
}

// transientInStream reports whether err is an error event inside a stream
// that is worth trying again: the server failing or overloaded.
func transientInStream(err error) bool {
	var api *llm.APIError
	if !errors.As(err, &api) || api.StatusCode != 0 {
		return false
	}
	switch api.Type {
	case "server_error", "api_error", "overloaded_error", "rate_limit_exceeded", "rate_limit_error":
		return true
	}
	return false
}

// wrap turns the SDK's errors into llm.APIError, which shows the
// provider's own message without the SDK's wording around it.
func (p *Provider) wrap(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if own := llm.OwnError(err); own != nil {
		return p.redact.Error(own)
	}
	var api *openai.Error
	if errors.As(err, &api) {
		msg := api.Message
		if msg == "" {
			msg = api.RawJSON()
		}
		typ := api.Type
		if typ == "" {
			typ = api.Code
		}
		return &llm.APIError{Provider: Name, StatusCode: api.StatusCode, Type: typ, Message: p.redact.String(msg)}
	}
	var inStream *ssestream.StreamError
	if errors.As(err, &inStream) {
		// An error event inside a stream that began well (status 200).
		return p.redact.Error(streamError(inStream.Event.Data))
	}
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typ):
		return &llm.MalformedError{Provider: Name, Problem: fmt.Sprintf("%s is %s, not %s", typ.Field, typ.Value, typ.Type)}
	case errors.As(err, &syntax):
		return &llm.MalformedError{Provider: Name, Problem: "not JSON: " + syntax.Error()}
	}
	return llm.OneLineError("openai: ", p.redact.Error(err))
}

// streamError is the APIError of an error event: {"error": {...}}.
func streamError(data []byte) error {
	var ev struct {
		Error json.RawMessage `json:"error"`
	}
	json.Unmarshal(data, &ev)
	api := &llm.APIError{Provider: Name}
	var body struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(ev.Error, &body) == nil {
		api.Message, api.Type = body.Message, body.Type
		if c, ok := body.Code.(string); ok && api.Type == "" {
			api.Type = c
		}
	} else {
		// {"error": "…"}, as some servers write it.
		var s string
		json.Unmarshal(ev.Error, &s)
		api.Message = s
	}
	if api.Message == "" {
		api.Message = string(bytes.TrimSpace(ev.Error))
	}
	return api
}

// errorBody makes the error body of a compatible server one the SDK
// reads: it reads only OpenAI's {"error": {"message": …}}, and would make
// vLLM's {"object": "error", "message": …}, FastAPI's {"detail": …} or
// {"error": "…"} an error of its own decoding, the server's words lost.
// Bodies that are not JSON never get here: the Transport reports them.
func errorBody(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp.StatusCode < 400 {
		return resp, err
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(openAIError(data)))
	return resp, nil
}

// wholeAnswer makes an answer sent whole as JSON, by a server that
// ignores "stream": true, the stream kesoku asked for: the SDK would read
// it as a stream of no events, and the answer as cut off.
func wholeAnswer(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	resp, err := next(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return resp, nil
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(asEvents(data)))
	resp.Header.Set("Content-Type", "text/event-stream")
	return resp, nil
}

// asEvents is a chat.completion as the one chunk of a stream: each
// choice's message as its delta, each tool call with its index. What is
// no object goes on as it is, for the stream to refuse.
func asEvents(data []byte) []byte {
	var c map[string]json.RawMessage
	if json.Unmarshal(data, &c) != nil || c == nil {
		return fmt.Appendf(nil, "data: %s\n\n", bytes.Join(bytes.Fields(data), []byte(" ")))
	}
	var choices []map[string]json.RawMessage
	if json.Unmarshal(c["choices"], &choices) == nil {
		for _, ch := range choices {
			var msg map[string]json.RawMessage
			if json.Unmarshal(ch["message"], &msg) != nil || msg == nil {
				continue
			}
			var calls []map[string]any
			if json.Unmarshal(msg["tool_calls"], &calls) == nil && calls != nil {
				for i, call := range calls {
					call["index"] = i
				}
				msg["tool_calls"], _ = json.Marshal(calls)
			}
			ch["delta"], _ = json.Marshal(msg)
			delete(ch, "message")
		}
		c["choices"], _ = json.Marshal(choices)
	}
	c["object"] = json.RawMessage(`"chat.completion.chunk"`)
	chunk, _ := json.Marshal(c)
	return fmt.Appendf(nil, "data: %s\n\ndata: [DONE]\n\n", chunk)
}

// openAIError is an error body in OpenAI's shape.
func openAIError(data []byte) []byte {
	var body map[string]json.RawMessage
	if json.Unmarshal(data, &body) != nil {
		return data
	}
	if e := bytes.TrimSpace(body["error"]); len(e) > 0 && e[0] == '{' {
		return data // OpenAI's own
	}
	msg := firstString(body, "error", "message", "detail")
	if msg == "" {
		msg = strings.TrimSpace(string(data))
	}
	out, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": firstString(body, "type")}})
	return out
}

// firstString is the first of keys in body that holds a string, or the
// JSON text of the first that holds anything else.
func firstString(body map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		raw, ok := body[k]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
		return string(raw)
	}
	return ""
}

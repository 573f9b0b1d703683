// Package claude is kesoku's Claude provider: package llm's conversation
// translated to and from the Anthropic Messages API.
//
// It goes through github.com/anthropics/anthropic-sdk-go/v2, and the
// construction of its client. It holds no logic of the agent loop.
package claude

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/kesoku/kesoku/internal/llm"
)

// Name is the provider's name.
const Name = "claude"

// KeyVars are the environment variables the key is read from.
var KeyVars = []string{"ANTHROPIC_API_KEY"}

// DefaultBaseURL is Anthropic's own endpoint, used when no base URL is
// given.
const DefaultBaseURL = "https://api.anthropic.com/"

// DefaultMaxTokens bounds a model turn when ClientOptions.MaxTokens is 0;
// the Messages API requires a bound.
const DefaultMaxTokens = 8192

// MaxRequest is the largest request body the Messages API takes: a larger
// one gets 413 request_too_large.
const MaxRequest = 32_000_000

// Provider is a Claude model behind the Messages API.
type Provider struct {
	model     string
	maxTokens int64
	client    anthropic.Client
	// redact hides the key in errors, should the API or a proxy echo it.
	redact *llm.Redactor
	// transport carries every request, and says how a stream that fails
	// before any text is tried again.
	transport *llm.Transport
	// maxRequest is the largest request body the API takes.
	maxRequest int64
}

var _ llm.Provider = (*Provider)(nil)

// New builds a client for opts.Model. It sends nothing.
func New(opts llm.ClientOptions) (*Provider, error) {
	if opts.APIKey == "" {
		return nil, fmt.Errorf("claude: no API key (set %s)", KeyVars[0])
	}
	if opts.Model == "" {
		return nil, errors.New("claude: no model")
	}
	// The environment was read by the caller; the SDK reads nothing more
	// from it (no ANTHROPIC_BASE_URL or profile behind our back). The SDK
	// sends the key as a Bearer token with its own anthropic-version.
	// Retries are the Transport's, which bounds every wait and tells of
	// each; the SDK's own would wait as long as a retry-after asks.
	t := llm.NewTransport(Name, DefaultBaseURL, opts)
	o := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithAPIKey(opts.APIKey),
		option.WithMaxRetries(0),
		option.WithHTTPClient(t.Client()),
		// The endpoint the Transport keeps the key to.
		option.WithBaseURL(t.Endpoint),
	}
	maxTokens := int64(opts.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	maxRequest := opts.MaxRequest
	if maxRequest <= 0 {
		maxRequest = MaxRequest
	}
	return &Provider{model: opts.Model, maxTokens: maxTokens, client: anthropic.NewClient(o...), redact: llm.NewRedactor(opts.APIKey), transport: t, maxRequest: maxRequest}, nil
}

// MaxRequestBytes is the largest request body the API takes.
func (p *Provider) MaxRequestBytes() int64 { return p.maxRequest }

// Name is "claude".
func (p *Provider) Name() string { return Name }

// ModelName is the model's name as the user gave it.
func (p *Provider) ModelName() string { return p.model }

// Generate sends the conversation and returns the model's turn. The
// answer is always streamed (an SSE event stream), so that a long answer
// is never mistaken for a silent server (--idle-timeout bounds the
// silence, not the answer); onText, when set, receives the text as it
// comes.
func (p *Provider) Generate(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	params, err := p.newParams(req)
	if err != nil {
		return nil, err
	}
	// The Transport retries a request that fails at once (429, 5xx); an
	// error that comes inside a stream already begun (Claude says it is
	// overloaded that way, a proxy drops the connection) is retried here,
	// as long as no text has been handed on, which could not be taken
	// back.
	return llm.RetryStream(ctx, p.transport, transientInStream, func(ctx context.Context) (*llm.Response, bool, error) {
		return p.stream(ctx, params, onText)
	})
}

// newParams is the Messages request of req: what Generate sends, and
// what a batch holds for it (BatchEntry).
func (p *Provider) newParams(req *llm.Request) (anthropic.MessageNewParams, error) {
	msgs, err := toMessages(req.Messages)
	if err != nil {
		return anthropic.MessageNewParams{}, err
	}
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(p.model),
		MaxTokens: p.maxTokens,
		Messages:  msgs,
	}
	if req.System != "" {
		params.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	if len(req.Tools) > 0 {
		params.Tools = Tools(req.Tools)
	}
	if req.Cacheable {
		markCache(&params)
	}
	return params, nil
}

// stream makes one streamed request; began says text was handed on to
// onText (nil for none).
func (p *Provider) stream(ctx context.Context, params anthropic.MessageNewParams, onText func(string)) (resp *llm.Response, began bool, err error) {
	stream := p.client.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	var msg anthropic.Message
	stopped, started := false, false
	// inputs holds the JSON text of each tool_use block as it came: the
	// SDK makes {} of text that does not parse, and the model must be told
	// what was wrong with what it sent.
	inputs := map[int64]*strings.Builder{}
	for stream.Next() {
		ev := stream.Current()
		if ev.Type == "content_block_delta" && ev.Delta.Type == "input_json_delta" {
			b := inputs[ev.Index]
			if b == nil {
				b = &strings.Builder{}
				inputs[ev.Index] = b
			}
			b.WriteString(ev.Delta.PartialJSON)
		}
		if ev.Type == "message_start" {
			if started {
				// A proxy that replays the stream would print the text twice.
				return nil, began, malformed("a second message_start in one stream")
			}
			started = true
		}
		if err := msg.Accumulate(ev); err != nil {
			return nil, began, malformed(err.Error())
		}
		switch ev.Type {
		case "content_block_delta":
			if ev.Delta.Type == "text_delta" && ev.Delta.Text != "" && onText != nil {
				began = true
				onText(ev.Delta.Text)
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := stream.Err(); err != nil {
		return nil, began, p.wrap(ctx, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, began, err
	}
	if !stopped {
		return nil, began, fmt.Errorf("claude: %w", llm.ErrStreamCut)
	}
	raw := make(map[int]string, len(inputs))
	for i, b := range inputs {
		raw[int(i)] = b.String()
	}
	resp, err = fromMessage(&msg, raw)
	return resp, began, err
}

// transientInStream reports whether err is an error event inside a stream
// that is worth trying again: Claude overloaded, rate limited, or failing
// on its side.
func transientInStream(err error) bool {
	var api *llm.APIError
	if !errors.As(err, &api) || api.StatusCode != 0 {
		return false
	}
	switch api.Type {
	case "overloaded_error", "rate_limit_error", "api_error", "timeout_error":
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
	if err := llm.OwnError(err); err != nil {
		return p.redact.Error(err)
	}
	var api *anthropic.Error
	if errors.As(err, &api) {
		msg := api.Message
		if msg == "" {
			msg = api.RawJSON()
		}
		status := api.StatusCode
		if status < 300 {
			// An error event inside a stream that began well: no status
			// says what went wrong, only the error's type.
			status = 0
		}
		return &llm.APIError{Provider: Name, StatusCode: status, Type: string(api.Type()), Message: p.redact.String(msg)}
	}
	return llm.OneLineError("claude: ", p.redact.Error(err))
}

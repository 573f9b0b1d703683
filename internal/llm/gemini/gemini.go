// Package gemini is kesoku's GeminiLLM: the translation between the
// provider-neutral conversation of package llm and the Gemini API through
// google.golang.org/genai, and the construction of its client. It holds no
// logic of the agent loop.
package gemini

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/genai"

	"github.com/kesoku/kesoku/internal/llm"
)

// Name is the provider's name.
const Name = "gemini"

// KeyVars are the environment variables the key is read from, first set
// first.
var KeyVars = []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}

// Provider is a Gemini model behind the Gemini API.
type Provider struct {
	model     string
	maxTokens int32
	client    *genai.Client
	// redact hides the key in errors, should the API or a proxy echo it.
	redact *llm.Redactor
}

var _ llm.Provider = (*Provider)(nil)

// New builds a client for opts.Model. It sends nothing.
func New(ctx context.Context, opts llm.ClientOptions) (*Provider, error) {
	if opts.APIKey == "" {
		return nil, fmt.Errorf("gemini: no API key (set %s)", KeyVars[0])
	}
	if opts.Model == "" {
		return nil, errors.New("gemini: no model")
	}
	initial, maxDelay := opts.Retry.Delays()
	jitter := 1.0
	if opts.Retry.NoJitter {
		jitter = 0
	}
	cc := &genai.ClientConfig{
		APIKey:     opts.APIKey,
		Backend:    genai.BackendGeminiAPI,
		HTTPClient: opts.HTTPClient,
		HTTPOptions: genai.HTTPOptions{
			BaseURL: opts.BaseURL,
			// genai retries nothing unless asked to; the status codes left
			// out are its defaults: 408, 429 and the 5xx.
			RetryOptions: &genai.HTTPRetryOptions{
				Attempts:     genai.Ptr(int32(1 + opts.Retry.Retries())),
				InitialDelay: genai.Ptr(initial.Seconds()),
				MaxDelay:     genai.Ptr(maxDelay.Seconds()),
				Jitter:       genai.Ptr(jitter),
			},
		},
	}
	client, err := genai.NewClient(ctx, cc)
	if err != nil {
		// The SDK's own message prints its whole config, key included.
		return nil, errors.New("gemini: cannot build the client")
	}
	return &Provider{model: opts.Model, maxTokens: int32(opts.MaxTokens), client: client, redact: llm.NewRedactor(opts.APIKey)}, nil
}

// Name is "gemini".
func (p *Provider) Name() string { return Name }

// ModelName is the model's name as the user gave it.
func (p *Provider) ModelName() string { return p.model }

// Generate sends the conversation and returns the model's turn; with onText
// it streams (streamGenerateContent over SSE) and hands text on as it comes.
func (p *Provider) Generate(ctx context.Context, req *llm.Request, onText func(string)) (*llm.Response, error) {
	contents, err := toContents(req.Messages)
	if err != nil {
		return nil, err
	}
	cfg := &genai.GenerateContentConfig{MaxOutputTokens: p.maxTokens}
	if req.System != "" {
		cfg.SystemInstruction = genai.NewContentFromText(req.System, genai.RoleUser)
	}
	if len(req.Tools) > 0 {
		cfg.Tools = Tools(req.Tools)
	}
	if onText == nil {
		resp, err := p.client.Models.GenerateContent(ctx, p.model, contents, cfg)
		if err != nil {
			return nil, p.wrap(err)
		}
		return fromResponse(resp, nil)
	}
	acc := &accumulator{onText: onText}
	for chunk, err := range p.client.Models.GenerateContentStream(ctx, p.model, contents, cfg) {
		if err != nil {
			return nil, p.wrap(err)
		}
		if err := acc.add(chunk); err != nil {
			return nil, err
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return acc.response()
}

// wrap turns the SDK's errors into llm.APIError, which shows the
// provider's own message without the SDK's wording around it.
func (p *Provider) wrap(err error) error {
	var api genai.APIError
	if errors.As(err, &api) {
		return &llm.APIError{Provider: Name, StatusCode: api.Code, Type: api.Status, Message: p.redact.String(api.Message)}
	}
	var papi *genai.APIError
	if errors.As(err, &papi) {
		return &llm.APIError{Provider: Name, StatusCode: papi.Code, Type: papi.Status, Message: p.redact.String(papi.Message)}
	}
	return p.redact.Error(fmt.Errorf("gemini: %w", err))
}

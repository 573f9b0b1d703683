// Package gemini is kesoku's Gemini provider: package llm's conversation
// translated to and from the Gemini API.
//
// It goes through google.golang.org/genai, and builds its client. It holds no
// logic of the agent loop.
package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/genai"

	"github.com/kesoku/kesoku/internal/llm"
)

// Name is the provider's name.
const Name = "gemini"

// KeyVars are the environment variables the key is read from, first set
// first.
var KeyVars = []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"}

// DefaultBaseURL is the Gemini API's own endpoint, which the SDK uses
// when no base URL is given.
const DefaultBaseURL = "https://generativelanguage.googleapis.com/"

// MaxRequest is the largest request body kesoku sends Gemini: the 20 MB
// that bounded a whole request for years; newer
// models take more.
const MaxRequest = 20_000_000

// Provider is a Gemini model behind the Gemini API.
type Provider struct {
	model     string
	maxTokens int32
	client    *genai.Client
	// redact hides the key in errors, should the API or a proxy echo it.
	redact *llm.Redactor
	// transport carries every request, and says how a stream that fails
	// before any text is tried again.
	transport *llm.Transport
	// maxRequest is the largest request body the API takes.
	maxRequest int64
	// uploads maps the URI of each file Upload sent to its name, which
	// Forget deletes it by.
	uploads sync.Map
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
	// Retries are the Transport's, which bounds every wait and tells of
	// each; genai retries nothing when it is not asked to.
	t := llm.NewTransport(Name, DefaultBaseURL, opts)
	cc := &genai.ClientConfig{
		APIKey:      opts.APIKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  t.Client(),
		HTTPOptions: genai.HTTPOptions{BaseURL: opts.BaseURL},
	}
	client, err := genai.NewClient(ctx, cc)
	if err != nil {
		// The SDK's own message prints its whole config, key included.
		return nil, errors.New("gemini: cannot build the client")
	}
	// The endpoint the SDK settled on (it reads GOOGLE_GEMINI_BASE_URL
	// when none is given) is the one the key is written for.
	t.Endpoint = client.ClientConfig().HTTPOptions.BaseURL
	maxRequest := opts.MaxRequest
	if maxRequest <= 0 {
		maxRequest = MaxRequest
	}
	return &Provider{model: opts.Model, maxTokens: int32(opts.MaxTokens), client: client, redact: llm.NewRedactor(opts.APIKey), transport: t, maxRequest: maxRequest}, nil
}

// MaxRequestBytes is the largest request body the API takes.
func (p *Provider) MaxRequestBytes() int64 { return p.maxRequest }

// Name is "gemini".
func (p *Provider) Name() string { return Name }

// ModelName is the model's name as the user gave it.
func (p *Provider) ModelName() string { return p.model }

// Generate sends the conversation and returns the model's turn. The
// answer is always streamed (streamGenerateContent over SSE), so that a
// long answer is never mistaken for a silent server (--idle-timeout
// bounds the silence, not the answer); onText, when set, receives the
// text as it comes.
func (p *Provider) Generate(ctx context.Context, req *llm.Request, onText func(string)) (resp *llm.Response, err error) {
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
	// genai indexes what it decodes without checking it: a body of null
	// panics inside it ("assignment to entry in nil map"). A provider's
	// answer must never crash kesoku.
	defer func() {
		if v := recover(); v != nil {
			resp, err = nil, &llm.MalformedError{Provider: Name, Problem: fmt.Sprintf("the SDK could not read it (%v)", v)}
		}
	}()
	// The Transport retries a request that fails at once (429, 5xx); a
	// stream that goes quiet, drops or ends before anything came is
	// retried here, as long as no text has been handed on.
	return llm.RetryStream(ctx, p.transport, func(error) bool { return false }, func(ctx context.Context) (*llm.Response, bool, error) {
		return p.stream(ctx, contents, cfg, onText)
	})
}

// stream makes one streamed request; began says text was handed on to
// onText (nil for none).
func (p *Provider) stream(ctx context.Context, contents []*genai.Content, cfg *genai.GenerateContentConfig, onText func(string)) (*llm.Response, bool, error) {
	began := false
	acc := &accumulator{}
	if onText != nil {
		acc.onText = func(s string) { began = true; onText(s) }
	}
	// genai reports the half event a broken stream leaves, not why it
	// broke (an event too large, a stream gone quiet): the Transport
	// notes that, to be told instead.
	watched, failures := llm.WatchFailures(ctx)
	for chunk, err := range p.client.Models.GenerateContentStream(watched, p.model, contents, cfg) {
		if err != nil {
			if bound := failures.Err(); bound != nil {
				return nil, began, bound
			}
			return nil, began, p.wrap(err)
		}
		if err := acc.add(chunk); err != nil {
			return nil, began, err
		}
	}
	if ctx.Err() != nil {
		return nil, began, ctx.Err()
	}
	if acc.finish == "" && len(acc.parts) == 0 && acc.block == "" {
		// Nothing came at all: a dropped stream, not an answer.
		return nil, began, fmt.Errorf("gemini: %w", llm.ErrStreamCut)
	}
	resp, err := acc.response()
	return resp, began, err
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
	if own := llm.OwnError(err); own != nil {
		return p.redact.Error(own)
	}
	// genai's decoding errors quote the whole answer, headers and all:
	// what the JSON decoder says is enough.
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typ):
		what := fmt.Sprintf("%s is %s, not %s", typ.Field, typ.Value, typ.Type)
		if typ.Field == "" {
			what = fmt.Sprintf("a %s where %s belongs", typ.Value, typ.Type)
		}
		return &llm.MalformedError{Provider: Name, Problem: what}
	case errors.As(err, &syntax):
		return &llm.MalformedError{Provider: Name, Problem: "not JSON: " + syntax.Error()}
	}
	return llm.OneLineError("gemini: ", p.redact.Error(err))
}

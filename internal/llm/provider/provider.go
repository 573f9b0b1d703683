// Package provider chooses a model's provider and builds its client.
//
// The model's name (or an explicit provider) picks the provider, its key comes
// from the environment, and its SDK client is built only when it is first
// needed. Every provider kesoku knows is one entry of its table, so that
// adding one touches this package and not the commands.
package provider

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/kesoku/kesoku/internal/cassette"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/claude"
	"github.com/kesoku/kesoku/internal/llm/gemini"
	"github.com/kesoku/kesoku/internal/llm/openai"
)

// Config is what the user asked for: the flags --model, --provider,
// --base-url, --max-tokens, --idle-timeout and --api-timeout.
type Config struct {
	// Model is the model's name, e.g. gemini-2.5-flash.
	Model string
	// Provider names the provider; "" means the one the model's name
	// belongs to.
	Provider string
	// BaseURL replaces the provider's endpoint (a proxy, a fake in tests).
	BaseURL string
	// MaxTokens bounds one model turn; 0 means the provider's default.
	MaxTokens int
	// IdleTimeout bounds how long a request or a stream may send nothing
	// before it is abandoned and retried (--idle-timeout); 0 means
	// llm.DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Deadline bounds each request whole, from its sending to the end of
	// its answer (--api-timeout); 0 means llm.DefaultDeadline.
	Deadline time.Duration
	// Notices is told, in a line, of each retry of a provider request
	// (what failed, how long kesoku waits), its secrets hidden; nil
	// tells no one.
	Notices func(msg string)
	// MaxResponse bounds one answer of the API, streamed or not; 0 means
	// llm.DefaultMaxResponse. The results of a batch need more.
	MaxResponse int64
	// SDKLog receives what the SDKs print through the standard logger
	// (warnings, and genai's "Error context canceled" when a stream is
	// interrupted); nil discards it.
	SDKLog io.Writer
	// Cassette, when set, records the model's traffic or replays it
	// (--cassette). Replaying, no key is read and none is needed, the
	// model and provider default to the cassette's, and nothing is sent.
	Cassette *cassette.Cassette
}

// entry is one provider kesoku can talk to.
type entry struct {
	name string
	// prefixes are the beginnings of its models' names, lower case.
	prefixes []string
	// keyVars are the environment variables its key is read from, the
	// first one set winning.
	keyVars []string
	// keyOptional says a key may be left out when the endpoint is not the
	// provider's own (--base-url): a server of one's own needs none.
	keyOptional bool
	// baseURLVar is the environment variable the endpoint is read from
	// when --base-url is not given ("" for none).
	baseURLVar string
	build      func(context.Context, llm.ClientOptions) (llm.Provider, error)
}

// providers is every provider, in the order messages list them.
var providers = []entry{
	{
		name:     gemini.Name,
		prefixes: []string{"gemini-", "gemma-", "learnlm-"},
		keyVars:  gemini.KeyVars,
		build: func(ctx context.Context, o llm.ClientOptions) (llm.Provider, error) {
			return gemini.New(ctx, o)
		},
	},
	{
		name:     claude.Name,
		prefixes: []string{"claude-"},
		keyVars:  claude.KeyVars,
		build: func(_ context.Context, o llm.ClientOptions) (llm.Provider, error) {
			return claude.New(o)
		},
	},
	{
		name: openai.Name,
		// OpenAI's models; a model of a compatible server (llama3.1,
		// qwen3:8b) is chosen with --provider openai.
		prefixes:    []string{"gpt-", "o1", "o3", "o4"},
		keyVars:     openai.KeyVars,
		keyOptional: true,
		// The variable OpenAI's own SDKs and the tools built on them read:
		// who runs Ollama or vLLM for them has it set already.
		baseURLVar: openai.BaseURLVar,
		build: func(_ context.Context, o llm.ClientOptions) (llm.Provider, error) {
			return openai.New(o)
		},
	},
}

// Names are the providers' names: "gemini", "claude", "openai".
func Names() []string {
	names := make([]string, len(providers))
	for i, p := range providers {
		names[i] = p.name
	}
	return names
}

// KeyVars are the environment variables of every provider's key.
func KeyVars() []string {
	var out []string
	for _, p := range providers {
		out = append(out, p.keyVars...)
	}
	return out
}

// Keys are the values of every provider's key variable that is set: the
// secrets kesoku holds whatever model it asks, none of which a program it
// starts gets, and each hidden wherever it shows up.
func Keys() []string {
	var out []string
	for _, v := range KeyVars() {
		if k := os.Getenv(v); k != "" {
			out = append(out, k)
		}
	}
	return out
}

// Of is the provider a model's name belongs to, "" when the name does not
// say.
func Of(model string) string {
	name := strings.ToLower(strings.TrimPrefix(model, "models/"))
	for _, p := range providers {
		for _, prefix := range p.prefixes {
			if strings.HasPrefix(name, prefix) {
				return p.name
			}
		}
	}
	return ""
}

func lookup(name string) (entry, bool) {
	for _, p := range providers {
		if p.name == name {
			return p, true
		}
	}
	return entry{}, false
}

// Model is a model the config chose, ready to be built: its provider and
// the key read from the environment.
type Model struct {
	cfg   Config
	entry entry
	key   string
	// baseURLVar is the environment variable cfg.BaseURL came from, ""
	// when it was given.
	baseURLVar string
	// keyErr is why there is no key, for a model resolved for tools
	// (ResolveForTools): Build returns it, so that only a call that asks
	// the model fails.
	keyErr error
}

// Resolve works out the provider and finds its key, checking everything
// that can be wrong before anything runs. Every error it returns is the
// user's to fix (a missing model, an unknown provider, a missing key), and
// says how.
func Resolve(cfg Config) (*Model, error) {
	m, err := ResolveForTools(cfg)
	if err != nil {
		return nil, err
	}
	if m.keyErr != nil {
		return nil, m.keyErr
	}
	return m, nil
}

// ResolveForTools is Resolve for the model that tools ask (analyze_media
// in kesoku run and mcp serve), where most calls ask none: a missing key is
// no error here, but the error of Build, so that only a call that asks the
// model fails, with the *NoKeyError that says what to set. Every other
// mistake is refused at once, as Resolve refuses it.
func ResolveForTools(cfg Config) (*Model, error) {
	replay := cfg.Cassette.Replaying()
	if replay {
		// The cassette says what it was recorded with: the model, and its
		// provider when the model's name does not say it.
		h := cfg.Cassette.Header()
		if cfg.Model == "" {
			cfg.Model = h.Model
		}
		if cfg.Provider == "" && Of(cfg.Model) == "" {
			cfg.Provider = h.Provider
		}
		if err := cassetteModel(cfg); err != nil {
			return nil, err
		}
	}
	if cfg.Model == "" {
		return nil, ErrNoModel
	}
	if cfg.IdleTimeout < 0 {
		return nil, &NegativeBoundError{Bound: BoundIdle, Value: cfg.IdleTimeout}
	}
	if cfg.Deadline < 0 {
		return nil, &NegativeBoundError{Bound: BoundDeadline, Value: cfg.Deadline}
	}
	name := strings.ToLower(cfg.Provider)
	if name == "" {
		if name = Of(cfg.Model); name == "" {
			return nil, &UnnamedProviderError{Model: cfg.Model, Known: Names()}
		}
	}
	e, ok := lookup(name)
	if !ok {
		return nil, &UnknownProviderError{Name: cfg.Provider, Known: Names()}
	}
	var baseURLVar string
	if cfg.BaseURL == "" && e.baseURLVar != "" {
		cfg.BaseURL, baseURLVar = os.Getenv(e.baseURLVar), e.baseURLVar
	}
	// At once, not when the client is first built: a run whose first
	// requests need no model would otherwise fail halfway through.
	if err := CheckBaseURL(cfg.BaseURL); err != nil {
		return nil, &BaseURLError{URL: cfg.BaseURL, Var: baseURLVar}
	}
	if replay {
		// Nothing is sent: no key is read, so none can leak.
		return &Model{cfg: cfg, entry: e, baseURLVar: baseURLVar}, nil
	}
	m := &Model{cfg: cfg, entry: e, baseURLVar: baseURLVar}
	m.key, m.keyErr = m.lookupKey()
	return m, nil
}

// lookupKey reads the model's key from the environment: a *NoKeyError
// when there is none and the provider needs one.
func (m *Model) lookupKey() (string, error) {
	e := m.entry
	for _, v := range e.keyVars {
		if key := os.Getenv(v); key != "" {
			return key, nil
		}
	}
	if e.keyOptional && m.cfg.BaseURL != "" {
		return "", nil
	}
	return "", &NoKeyError{Provider: e.name, Vars: e.keyVars, KeyOptional: e.keyOptional, BaseURLVar: e.baseURLVar}
}

// CheckBaseURL returns ErrNotEndpoint unless s, a base URL, is one a key
// can be sent to: http or https, with a host. "" (the provider's own
// endpoint) is one.
func CheckBaseURL(s string) error {
	if s == "" {
		return nil
	}
	if u, err := url.Parse(s); err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return ErrNotEndpoint
	}
	return nil
}

// CheckName returns an *UnknownProviderError unless name (in any case) is
// a provider's.
func CheckName(name string) error {
	if _, ok := lookup(strings.ToLower(name)); !ok {
		return &UnknownProviderError{Name: name, Known: Names()}
	}
	return nil
}

// orList is "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Provider is the provider's name: "gemini", "claude", "openai".
func (m *Model) Provider() string { return m.entry.name }

// Name is the model's name as the user gave it.
func (m *Model) Name() string { return m.cfg.Model }

// Redactor hides the model's key in whatever comes back, should a
// provider, a proxy or a tool echo it.
func (m *Model) Redactor() *llm.Redactor { return llm.NewRedactor(m.key) }

// replayKey is the key an SDK is given on replay, where none is needed.
const replayKey = "kesoku-cassette-replay"

// WithCassette is m with its traffic recorded to c or replayed from it
// (each case of an eval its own cassette). A model resolved for replay
// needs no key; one resolved without a cassette must have had one.
func (m *Model) WithCassette(c *cassette.Cassette) *Model {
	cp := *m
	cp.cfg.Cassette = c
	switch {
	case c.Replaying():
		cp.keyErr = nil
	case m.cfg.Cassette.Replaying():
		// Resolved for replay, no key was read; this cassette records,
		// and recording sends: it needs the key as a run without one.
		cp.key, cp.keyErr = cp.lookupKey()
	}
	return &cp
}

// cassetteModel refuses a cassette replayed for another model than the
// one it was recorded with, whose every request would differ from the
// recorded ones.
func cassetteModel(cfg Config) error {
	c := cfg.Cassette
	if !c.Replaying() {
		return nil
	}
	if h := c.Header(); h.Model != "" && cfg.Model != "" && cfg.Model != h.Model {
		return &CassetteModelError{Path: c.Path(), Recorded: h.Model, Asked: cfg.Model}
	}
	return nil
}

// Build makes the provider's client. It sends nothing; the SDKs are
// touched only here, so commands without a model never pay for them.
func (m *Model) Build(ctx context.Context) (llm.Provider, error) {
	if m.keyErr != nil {
		return nil, m.keyErr
	}
	if err := cassetteModel(m.cfg); err != nil {
		return nil, err
	}
	if err := CheckBaseURL(m.cfg.BaseURL); err != nil {
		// The key goes to this URL's origin alone: it must have one.
		return nil, &BaseURLError{URL: m.cfg.BaseURL, Var: m.baseURLVar}
	}
	// The SDKs print through the standard logger, which kesoku uses for
	// nothing else: their noise stays out of the terminal unless asked for.
	if m.cfg.SDKLog != nil {
		log.SetOutput(m.cfg.SDKLog)
	} else {
		log.SetOutput(io.Discard)
	}
	opts := llm.ClientOptions{
		Model:       m.cfg.Model,
		APIKey:      m.key,
		BaseURL:     m.cfg.BaseURL,
		MaxTokens:   m.cfg.MaxTokens,
		IdleTimeout: m.cfg.IdleTimeout,
		Deadline:    m.cfg.Deadline,
		MaxResponse: m.cfg.MaxResponse,
	}
	if c := m.cfg.Cassette; c != nil {
		if c.Replaying() && opts.APIKey == "" {
			// The SDKs want a key; this one goes nowhere, as nothing is sent.
			opts.APIKey = replayKey
		}
		// Recording, the cassette sends what kesoku's client would, over
		// the connections it keeps. It hides the key as the redactor
		// does: a key too short to be a secret (a local server's
		// placeholder, "x") replaced in every word that holds it would
		// mangle the cassette, its own keys too, past reading back.
		opts.HTTPClient = &http.Client{Transport: c.Transport(m.entry.name, m.cfg.Model, llm.DefaultBase(), m.Redactor().Secrets()...)}
	}
	if tell := m.cfg.Notices; tell != nil {
		// A proxy's message may hold the key.
		redact := m.Redactor()
		opts.OnRetry = func(msg string) { tell(redact.String(msg)) }
	}
	return m.entry.build(ctx, opts)
}

package cmd

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/claude"
	"github.com/kesoku/kesoku/internal/llm/gemini"
)

// modelFlags are the flags that choose a model, shared by every command
// that talks to one (session, analyze, run --model).
type modelFlags struct {
	Model     string
	Provider  string
	BaseURL   string
	MaxTokens int

	// SDKLog receives what the SDKs print through the standard logger
	// (warnings, and genai's "Error context canceled" when a stream is
	// interrupted); nil discards it. Commands set it under -v.
	SDKLog io.Writer
}

// register adds --model, --provider, --base-url and --max-tokens to fs.
func (m *modelFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&m.Model, "model", "", "the model, e.g. gemini-2.5-flash or claude-sonnet-4-5")
	fs.StringVar(&m.Provider, "provider", "", "gemini or claude (default: from the model's name)")
	fs.StringVar(&m.BaseURL, "base-url", "", "the provider's API endpoint, for a proxy (default: the provider's own)")
	fs.IntVar(&m.MaxTokens, "max-tokens", 0, "the longest model turn, in tokens (default: 8192 for Claude, the model's own limit for Gemini)")
}

// resolvedModel is a model the flags chose, ready to be built: its
// provider and the key read from the environment. Resolving it checks
// everything that can be wrong before anything runs.
type resolvedModel struct {
	flags    modelFlags
	provider string
	key      string
}

// resolve works out the provider and finds its key. A missing model, an
// unknown provider or a missing key is bad usage (exit 2), and the error
// names the variable to set.
func (m *modelFlags) resolve() (*resolvedModel, error) {
	if m.Model == "" {
		return nil, usageErrf("--model is required (e.g. --model gemini-2.5-flash)")
	}
	provider := strings.ToLower(m.Provider)
	if provider == "" {
		provider = providerOf(m.Model)
		if provider == "" {
			return nil, usageErrf("cannot tell the provider of model %q from its name: add --provider gemini or --provider claude", m.Model)
		}
	}
	var vars []string
	switch provider {
	case gemini.Name:
		vars = gemini.KeyVars
	case claude.Name:
		vars = claude.KeyVars
	default:
		return nil, usageErrf("--provider %q: want gemini or claude", m.Provider)
	}
	for _, v := range vars {
		if key := os.Getenv(v); key != "" {
			return &resolvedModel{flags: *m, provider: provider, key: key}, nil
		}
	}
	msg := fmt.Sprintf("no API key for %s: set %s", provider, vars[0])
	if len(vars) > 1 {
		msg += fmt.Sprintf(" (or %s)", strings.Join(vars[1:], ", "))
	}
	return nil, usageErrf("%s", msg)
}

// providerOf is the provider a model's name belongs to, "" when the name
// does not say.
func providerOf(model string) string {
	name := strings.ToLower(strings.TrimPrefix(model, "models/"))
	switch {
	case strings.HasPrefix(name, "gemini-"), strings.HasPrefix(name, "gemma-"), strings.HasPrefix(name, "learnlm-"):
		return gemini.Name
	case strings.HasPrefix(name, "claude-"):
		return claude.Name
	}
	return ""
}

// build makes the provider's client. It sends nothing; the SDKs are
// touched only here, so commands without a model never pay for them.
func (r *resolvedModel) build(ctx context.Context) (llm.Provider, error) {
	// The SDKs print through the standard logger, which kesoku uses for
	// nothing else: their noise stays out of the terminal unless asked for.
	if r.flags.SDKLog != nil {
		log.SetOutput(r.flags.SDKLog)
	} else {
		log.SetOutput(io.Discard)
	}
	opts := llm.ClientOptions{
		Model:     r.flags.Model,
		APIKey:    r.key,
		BaseURL:   r.flags.BaseURL,
		MaxTokens: r.flags.MaxTokens,
	}
	switch r.provider {
	case gemini.Name:
		return gemini.New(ctx, opts)
	default:
		return claude.New(opts)
	}
}

package cmd

import (
	"errors"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/provider"
)

// registerModelFlags adds --model, --provider, --base-url, --max-tokens,
// --idle-timeout and --api-timeout to fs: the flags of every command that
// talks to a model (session, analyze, run --model).
func registerModelFlags(fs *pflag.FlagSet, m *provider.Config) {
	checkedVar(fs, &m.Model, "model", "", "the model, e.g. gemini-2.5-flash or gpt-4o", checkModelName)
	names := provider.Names()
	checkedVar(fs, &m.Provider, "provider", "", strings.Join(names[:len(names)-1], ", ")+" or "+names[len(names)-1]+" (default: the model's)", checkProvider)
	baseURLVar(fs, &m.BaseURL, "the provider's endpoint: a proxy, or a server that speaks OpenAI's API (default: the provider's own)")
	intVar(fs, &m.MaxTokens, "max-tokens", "", 0, 0, maxTokens, "the longest model turn, in tokens; 0 for the provider's default")
	durationVar(fs, &m.IdleTimeout, "idle-timeout", llm.DefaultIdleTimeout, time.Millisecond, maxIdleTimeout, "abandon and retry a model request or stream silent this long")
	apiTimeoutVar(fs, &m.Deadline)
	// The same on every command that talks to a model: its help names
	// them, kesoku help providers tells them.
	inGroup(fs, "model", "provider", "base-url", "max-tokens", "idle-timeout", "api-timeout")
}

// baseURLVar adds --base-url to fs.
func baseURLVar(fs *pflag.FlagSet, p *string, usage string) {
	checkedVar(fs, p, "base-url", "", usage, provider.CheckBaseURL)
}

// apiTimeoutVar adds --api-timeout to fs.
func apiTimeoutVar(fs *pflag.FlagSet, p *time.Duration) {
	durationVar(fs, p, "api-timeout", llm.DefaultDeadline, time.Millisecond, maxAPITimeout, "abandon a request whose answer has not ended after this long")
}

// registerToolModelFlags adds the flags that choose the model tools ask
// (analyze_media), and how files go to it: kesoku analyze and kesoku run.
func registerToolModelFlags(fs *pflag.FlagSet, m *provider.Config, inlineLimit *sizeValue) {
	registerModelFlags(fs, m)
	sizeVar(fs, inlineLimit, "inline-limit", int64(*inlineLimit), 0, maxInlineLimit, "the largest Gemini request with a file inline, 0 for 20MB; larger files go through the Files API")
	inGroup(fs, "model", "inline-limit")
}

// The bounds of the model flags: no model answers a million tokens in a
// turn (Gemini takes an int32), Gemini takes at most 100 MB inline
// (its documented limit for inline data), and a day of silence is no answer.
const (
	maxTokens      = 1_000_000
	maxInlineLimit = 100_000_000
	maxIdleTimeout = 24 * time.Hour
	// A day, as a batch has to answer in.
	maxAPITimeout = 24 * time.Hour
)

// resolveModel resolves the model the flags chose. What cannot be (no
// model, an unknown provider, no key) is bad usage: exit 2, and the error
// says what to set.
func resolveModel(m provider.Config) (*provider.Model, error) {
	rm, err := provider.Resolve(m)
	if err != nil {
		return nil, usageErr(modelErr(err))
	}
	return rm, nil
}

// modelErr words provider.Resolve's errors with the flags that fix them.
func modelErr(err error) error {
	var (
		bound   *provider.NegativeBoundError
		unknown *provider.UnknownProviderError
		unnamed *provider.UnnamedProviderError
		noKey   *provider.NoKeyError
		baseURL *provider.BaseURLError
		other   *provider.CassetteModelError
	)
	switch {
	case errors.Is(err, provider.ErrNoModel):
		return reword(err, "--model is required (e.g. --model gemini-2.5-flash)")
	case errors.As(err, &bound) && bound.Bound == provider.BoundIdle:
		return reword(err, "--idle-timeout %v: want a duration above zero, e.g. 2m", bound.Value)
	case errors.As(err, &bound):
		return reword(err, "--api-timeout %v: want a duration above zero, e.g. 1h", bound.Value)
	case errors.As(err, &unknown):
		return reword(err, "--provider %q: want %s", unknown.Name, orList(unknown.Known))
	case errors.As(err, &unnamed):
		flags := make([]string, len(unnamed.Known))
		for i, p := range unnamed.Known {
			flags[i] = "--provider " + p
		}
		return reword(err, "cannot tell the provider of model %q from its name: add %s", unnamed.Model, orList(flags))
	case errors.As(err, &noKey):
		return reword(err, "%s", noKey.Words("the --base-url"))
	case errors.As(err, &other):
		return reword(err, "--model %s (or model: in a config file): cassette %s was recorded with the model %s: replay it with no --model, or record it again with --cassette-mode record", other.Asked, other.Path, other.Recorded)
	case errors.As(err, &baseURL) && baseURL.Var == "":
		return reword(err, "--base-url %q: %v", baseURL.URL, provider.ErrNotEndpoint)
	}
	return err
}

// checkToolModel checks the model flags of kesoku run and mcp serve,
// where --model is optional: without it, tools run with no model, and
// analyze_media says it needs one. The other model flags mean nothing
// without it. The model itself is resolved by the environment, where a
// key is needed only by a call that asks the model (a model: in
// kesoku.yaml serves the commands that call one).
func checkToolModel(m provider.Config) error {
	if m.Model == "" && (m.Provider != "" || m.BaseURL != "" || m.MaxTokens != 0 || (m.IdleTimeout != 0 && m.IdleTimeout != llm.DefaultIdleTimeout) ||
		(m.Deadline != 0 && m.Deadline != llm.DefaultDeadline)) {
		return usageErrf("--provider, --base-url, --max-tokens, --idle-timeout and --api-timeout choose how to reach --model: give --model too")
	}
	return nil
}

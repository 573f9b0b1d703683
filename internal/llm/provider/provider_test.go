package provider

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/message"
)

func TestOf(t *testing.T) {
	t.Parallel()
	for model, want := range map[string]string{
		"gemini-2.5-flash": "gemini", "models/gemini-3-pro": "gemini", "gemma-3-27b-it": "gemini", "learnlm-2.0": "gemini",
		"claude-sonnet-4-5": "claude", "Claude-Opus-4-1": "claude", "gpt-4o": "openai", "o1-mini": "openai", "o3": "openai",
		"o4-mini": "openai", "GPT-5": "openai", "llama3.1": "", "qwen3:8b": "", "": "",
	} {
		if got := Of(model); got != want {
			t.Errorf("Of(%q) = %q, want %q", model, got, want)
		}
	}
}

// TestResolve: everything that can be wrong is found before anything is
// built, and the error says what to do.
func TestResolve(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "google-key-1234")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	tests := []struct {
		name     string
		cfg      Config
		provider string
		err      string
	}{
		{name: "no model", cfg: Config{}, err: "no model given (e.g. gemini-2.5-flash)"},
		{name: "a name that says no provider", cfg: Config{Model: "house-model"},
			err: `cannot tell the provider of model "house-model" from its name: name the provider, gemini, claude or openai`},
		{name: "an unknown provider", cfg: Config{Model: "x", Provider: "mistral"}, err: `provider "mistral": want gemini, claude or openai`},
		{name: "no OpenAI key", cfg: Config{Model: "gpt-4o"},
			err: "no API key for openai: set OPENAI_API_KEY, or give the base URL of a server that needs none (or set OPENAI_BASE_URL)"},
		{name: "no key for a server of one's own", cfg: Config{Model: "llama3.1", Provider: "openai", BaseURL: "http://localhost:11434/v1"}, provider: "openai"},
		{name: "a key is still needed for Claude behind a proxy", cfg: Config{Model: "claude-sonnet-4-5", BaseURL: "http://proxy"},
			err: "no API key for claude: set ANTHROPIC_API_KEY"},
		{name: "no key", cfg: Config{Model: "claude-sonnet-4-5"}, err: "no API key for claude: set ANTHROPIC_API_KEY"},
		{name: "a negative idle timeout", cfg: Config{Model: "gemini-2.5-flash", IdleTimeout: -time.Second}, err: "the idle timeout -1s: want a duration above zero, e.g. 2m"},
		{name: "a negative API timeout", cfg: Config{Model: "gemini-2.5-flash", Deadline: -time.Hour}, err: "the API timeout -1h0m0s: want a duration above zero, e.g. 1h"},
		{name: "the second of two key variables", cfg: Config{Model: "gemini-2.5-flash"}, provider: "gemini"},
		{name: "--provider wins over the name", cfg: Config{Model: "house-model", Provider: "Gemini"}, provider: "gemini"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Resolve(tt.cfg)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if m.Provider() != tt.provider || m.Name() != tt.cfg.Model {
				t.Errorf("resolved %s %s, want %s %s", m.Provider(), m.Name(), tt.provider, tt.cfg.Model)
			}
		})
	}
	// OPENAI_BASE_URL stands for --base-url, as OpenAI's SDKs read it.
	t.Setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
	if m, err := Resolve(Config{Model: "llama3.1", Provider: "openai"}); err != nil || m.cfg.BaseURL != "http://localhost:11434/v1" {
		t.Errorf("OPENAI_BASE_URL: error %v, want the server of one's own without a key", err)
	}
	if m, err := Resolve(Config{Model: "llama3.1", Provider: "openai", BaseURL: "http://other/v1"}); err != nil || m.cfg.BaseURL != "http://other/v1" {
		t.Errorf("--base-url and OPENAI_BASE_URL: error %v, want --base-url to win", err)
	}
	if _, err := Resolve(Config{Model: "claude-sonnet-4-5"}); err == nil {
		t.Errorf("OPENAI_BASE_URL made Claude need no key")
	}
	t.Setenv("GOOGLE_API_KEY", "")
	if _, err := Resolve(Config{Model: "gemini-2.5-flash"}); err == nil || err.Error() != "no API key for gemini: set GEMINI_API_KEY (or GOOGLE_API_KEY)" {
		t.Errorf("no gemini key: error %v", err)
	}
	// For tools, a missing key is the error of the first call that asks
	// the model; every other mistake is refused at once.
	m, err := ResolveForTools(Config{Model: "gemini-2.5-flash"})
	if err != nil {
		t.Fatalf("ResolveForTools without a key: %v", err)
	}
	if _, err := m.Build(t.Context()); !errors.As(err, new(*NoKeyError)) {
		t.Errorf("Build without a key: error %v, want a *NoKeyError", err)
	}
	if _, err := ResolveForTools(Config{Model: "no-such-model"}); err == nil {
		t.Errorf("ResolveForTools of a model of no provider: no error")
	}
}

// TestBaseURL: a model is resolved only with a base URL that has an
// origin to keep the key to: http or https, and a host. What is not is
// refused at once, when the model is resolved, before anything is sent: a
// run whose first requests need no model does not fail halfway through.
func TestBaseURL(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "gemini-key-1234")
	t.Setenv("OPENAI_API_KEY", "")
	const want = ": want the http:// or https:// URL of the provider's API, e.g. https://proxy.example.com/v1"
	for _, tt := range []struct {
		cfg Config
		env string
		err string
	}{
		{cfg: Config{Model: "llama3.1", Provider: "openai", BaseURL: "localhost:11434/v1"}, err: `base URL "localhost:11434/v1"` + want},
		{cfg: Config{Model: "gemini-2.5-flash", BaseURL: "https:///v1beta"}, err: `base URL "https:///v1beta"` + want},
		{cfg: Config{Model: "gemini-2.5-flash", BaseURL: "ftp://proxy/"}, err: `base URL "ftp://proxy/"` + want},
		{cfg: Config{Model: "gemini-2.5-flash", BaseURL: "http://127.0.0.1:9/\x1b[2K"}, err: `base URL "http://127.0.0.1:9/\x1b[2K"` + want},
		{cfg: Config{Model: "llama3.1", Provider: "openai"}, env: "localhost:11434", err: `OPENAI_BASE_URL "localhost:11434"` + want},
		{cfg: Config{Model: "gemini-2.5-flash", BaseURL: "HTTPS://Proxy.Example.com/v1beta"}},
	} {
		t.Setenv("OPENAI_BASE_URL", tt.env)
		m, err := Resolve(tt.cfg)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || err.Error() != tt.err) {
			t.Errorf("%+v: error %v, want %q", tt.cfg, err, tt.err)
		}
		if tt.err != "" {
			var be *BaseURLError
			if !errors.Is(err, ErrNotEndpoint) || !errors.As(err, &be) || (tt.env != "") != (be.Var == "OPENAI_BASE_URL") {
				t.Errorf("%+v: error %v is not a BaseURLError of ErrNotEndpoint from the right place", tt.cfg, err)
			}
			continue
		}
		if _, err := m.Build(context.Background()); err != nil {
			t.Errorf("%+v: Build: %v", tt.cfg, err)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, name := range []string{"gemini", "Claude", "openai"} {
		if err := CheckName(name); err != nil {
			t.Errorf("CheckName(%q) = %v", name, err)
		}
	}
	var ue *UnknownProviderError
	if err := CheckName("geminii"); !errors.As(err, &ue) || ue.Name != "geminii" || err.Error() != `provider "geminii": want `+orList(Names()) {
		t.Errorf(`CheckName("geminii") = %v`, err)
	}
}

// TestLazy: the lazy model knows its names without a client, builds the
// client once on first use, and redacts the key from what the model says.
func TestLazy(t *testing.T) {
	const key = "test-lazy-key-93c1"
	t.Setenv("GEMINI_API_KEY", key)
	srv := llmtest.NewServer(llmtest.Gemini, key, llmtest.Reply{Text: "Hello."}, llmtest.Reply{Text: "Your key is " + key + "."})
	defer srv.Close()
	m, err := Resolve(Config{Model: "gemini-test", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	l := m.Lazy()
	if l.Name() != "gemini" || l.ModelName() != "gemini-test" || l.p != nil {
		t.Fatalf("before use: names %q %q, client %v; want gemini, gemini-test and no client", l.Name(), l.ModelName(), l.p)
	}
	req := &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{{Text: "hi"}}}}}
	var answers []string
	for range 2 {
		resp, err := l.Generate(context.Background(), req, nil)
		if err != nil {
			t.Fatal(err)
		}
		answers = append(answers, resp.Message.Parts[0].Text)
	}
	if answers[0] != "Hello." || answers[1] != "Your key is [redacted]." {
		t.Errorf("answers %q, want Hello. and the key redacted", answers)
	}
	if l.p == nil {
		t.Error("no client after use")
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if strings.Contains(strings.Join(answers, ""), key) {
		t.Error("the key got out")
	}
}

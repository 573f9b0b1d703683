package cmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/batch"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/openai"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// TestModelErrWords: the provider package says what is wrong with a
// model's settings in its own terms; the commands say it with the flags
// that fix it, as bad usage, the provider's error kept in the chain.
func TestModelErrWords(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	for _, tt := range []struct {
		cfg  provider.Config
		want string
	}{
		{provider.Config{}, "--model is required (e.g. --model gemini-2.5-flash)"},
		{provider.Config{Model: "gemini-2.5-flash", IdleTimeout: -time.Second}, "--idle-timeout -1s: want a duration above zero, e.g. 2m"},
		{provider.Config{Model: "gemini-2.5-flash", Deadline: -time.Minute}, "--api-timeout -1m0s: want a duration above zero, e.g. 1h"},
		{provider.Config{Model: "x", Provider: "mistral"}, `--provider "mistral": want gemini, claude or openai`},
		{provider.Config{Model: "house-model"}, `cannot tell the provider of model "house-model" from its name: add --provider gemini, --provider claude or --provider openai`},
		{provider.Config{Model: "claude-sonnet-4-5"}, "no API key for claude: set ANTHROPIC_API_KEY"},
		{provider.Config{Model: "gemini-2.5-flash"}, "no API key for gemini: set GEMINI_API_KEY (or GOOGLE_API_KEY)"},
		{provider.Config{Model: "gpt-4o"}, "no API key for openai: set OPENAI_API_KEY, or give the --base-url of a server that needs none (or set OPENAI_BASE_URL)"},
	} {
		_, err := resolveModel(tt.cfg)
		if err == nil || err.Error() != tt.want {
			t.Errorf("resolveModel(%+v): %v, want %q", tt.cfg, err, tt.want)
			continue
		}
		if code, _ := exitCode(err); code != ExitUsage {
			t.Errorf("resolveModel(%+v): exit %d, want %d", tt.cfg, code, ExitUsage)
		}
		var inner error = err
		for errors.Unwrap(inner) != nil {
			inner = errors.Unwrap(inner)
		}
		if _, err := provider.Resolve(tt.cfg); inner.Error() != err.Error() {
			t.Errorf("resolveModel(%+v) does not hold the provider's error %q", tt.cfg, err)
		}
	}
}

// TestConfigErrWords: the config package refuses a key that no config
// file may set, and a file of MCP servers it cannot read, in its own
// terms; the commands name the flags.
func TestConfigErrWords(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	for _, tt := range []struct {
		config string
		args   []string
		want   string
	}{
		{"awd: /\n", nil, "kesoku.yaml:1:1: awd: not a setting: the config file is found through --awd: give it on the command line"},
		{"config: other.yaml\n", nil, "kesoku.yaml:1:1: config: not a setting: the config file is found through --config: give it on the command line"},
		{"jobs: 2\nresume: true\n", nil, "kesoku.yaml:2:1: resume: not a setting: --resume is about one run: give it on the command line"},
		{"help: true\n", nil, "kesoku.yaml:1:1: help: not a setting: --help is not a setting"},
		{"revoke: true\n", nil, "kesoku.yaml:1:1: revoke: not a setting: --revoke chooses what one command does: give it on the command line"},
		{"", []string{"--mcp-config", filepath.Join(dir, "none.json")}, "--mcp-config " + filepath.Join(dir, "none.json") + ": "},
	} {
		awd := t.TempDir()
		writeBytes(t, awd, "kesoku.yaml", []byte(tt.config))
		_, stderr, code := kesoku(t, append([]string{"--awd", awd, "tools", "list"}, tt.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("config %q, %q: exit %d, stderr %q; want exit %d and %q", tt.config, tt.args, code, stderr, ExitUsage, tt.want)
		}
	}
}

// TestErrorTextWords: the model's errors name no flag below cmd; where
// they end a command, wrapped however, the flag that changes the bound
// is named.
func TestErrorTextWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("turn 1: %w", &llm.IdleError{Provider: "gemini", Timeout: 2 * time.Minute}),
			"turn 1: gemini: the API sent nothing for 2m0s (--idle-timeout)"},
		{&llm.DeadlineError{Provider: "claude", Deadline: time.Hour},
			"claude: the API did not finish answering within 1h0m0s (--api-timeout)"},
		{fmt.Errorf("session: %w", &llm.MaxTurnsError{Turns: 1}),
			"session: the model did not answer within 1 turn (--max-turns); it still asked for tools"},
		{&llm.MaxTurnsError{Turns: 20}, "the model did not answer within 20 turns (--max-turns); it still asked for tools"},
		{fmt.Errorf("ask m about a.png: %w", &llm.CutError{Reason: "max_tokens"}),
			"ask m about a.png: the answer was cut short: it reached the output token limit (max_tokens); raise --max-tokens"},
		{&llm.CutError{Reason: "refusal"}, "the answer was cut short: the model refused to go on (refusal)"},
		{&llm.RequestError{Provider: "claude", Method: "POST", URL: "http://127.0.0.1:1/v1/messages", Status: "404 Not Found"},
			"claude: POST http://127.0.0.1:1/v1/messages: 404 Not Found with an empty body (is --base-url the API's address?)"},
		{fmt.Errorf("turn 1: %w", &openai.TooManyToolsError{Offered: 129}),
			"turn 1: openai takes at most 128 tools in a request, and 129 are offered: name fewer with --tools (MCP servers' tools count too)"},
		{fmt.Errorf("submit: %w", &batch.UsageError{Err: &batch.OtherBatchError{Path: "b.state.json", File: "a.yaml", Model: "m"}}),
			"submit: b.state.json is the state of another batch (of a.yaml, to m): give -o a new file, or remove it"},
		{&records.UnfinishedError{Msg: "torn.jsonl:2: its last record is cut short (the run that wrote it was killed mid-write):", Torn: true},
			"torn.jsonl:2: its last record is cut short (the run that wrote it was killed mid-write): run its shard again with --resume, which finishes it"},
		{fmt.Errorf("merge: %w", &records.UnfinishedError{Msg: "a.jsonl holds no record, but shard 2 of 2 has requests (request 2): the shard is unfinished;"}),
			"merge: a.jsonl holds no record, but shard 2 of 2 has requests (request 2): the shard is unfinished; run it again with --resume"},
		{&request.FormatError{Name: "r.txt", Ext: ".txt"}, `r.txt: unknown extension ".txt": want .yaml, .yml, .json, .jsonl or .ndjson, or say --format`},
		{fmt.Errorf("%w\n{\n^", &request.ParseError{Pos: yamlpos.Pos{File: "r.jsonl", Line: 1, Col: 1}, Msg: "this looks like JSON; name the file .json", Format: request.FormatJSON}),
			"r.jsonl:1:1: this looks like JSON; name the file .json, or say --format json\n{\n^"},
		{errors.New("something else"), "something else"},
	} {
		if got := errorText(tt.err); got != tt.want {
			t.Errorf("errorText(%v) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

// cutWrapper is a wrapper that says only the head of its inner error, as
// a one-line summary does.
type cutWrapper struct{ err error }

func (w *cutWrapper) Error() string {
	s := w.err.Error()
	if len(s) > 20 {
		s = s[:20] + "…"
	}
	return "while asking: " + s
}
func (w *cutWrapper) Unwrap() error { return w.err }

// escapeWrapper is a wrapper that escapes its inner error's text.
type escapeWrapper struct{ err error }

func (w *escapeWrapper) Error() string { return "reading: " + termtext.Escape(w.err.Error()) }
func (w *escapeWrapper) Unwrap() error { return w.err }

// TestErrorTextWordsWhateverTheWrapper: the words come from what the
// typed error carries, not from finding its text in the message: a
// wrapper that escapes or cuts its inner error's text, or two errors of
// one type joined, still get the command line's words. (Replacing the
// typed error's text in the whole message found nothing to replace in
// the first two, and only the first of the two joined.)
func TestErrorTextWordsWhateverTheWrapper(t *testing.T) {
	t.Parallel()
	parse := &request.ParseError{Pos: yamlpos.Pos{File: "r\x1b[2J.jsonl", Line: 1, Col: 1}, Msg: "this looks like JSON; name the file .json", Format: request.FormatJSON}
	for _, tt := range []struct {
		err  error
		want string
	}{
		{&cutWrapper{&llm.IdleError{Provider: "gemini", Timeout: 2 * time.Minute}},
			"gemini: the API sent nothing for 2m0s (--idle-timeout)"},
		{&escapeWrapper{parse},
			"r\x1b[2J.jsonl:1:1: this looks like JSON; name the file .json, or say --format json"},
		{fmt.Errorf("turn 2: %w", errors.Join(
			&llm.IdleError{Provider: "gemini", Timeout: time.Minute},
			&llm.IdleError{Provider: "claude", Timeout: time.Second})),
			"turn 2: gemini: the API sent nothing for 1m0s (--idle-timeout)\nclaude: the API sent nothing for 1s (--idle-timeout)"},
		{&cutWrapper{errors.New("something that is long enough to cut")}, "while asking: something that is lo…"},
		{fmt.Errorf("model: %w", reword(&llm.DeadlineError{Provider: "claude", Deadline: time.Hour}, "claude: too slow")), "model: claude: too slow"},
	} {
		if got := errorText(tt.err); got != tt.want {
			t.Errorf("errorText(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
}

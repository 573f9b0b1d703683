package cmd

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/config"
)

func TestParseSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "65536", want: 65536},
		{in: "64KiB", want: 64 << 10},
		{in: "1MiB", want: 1 << 20},
		{in: "1MB", want: 1_000_000},
		{in: "1.5kb", want: 1500},
		{in: "2 GiB", want: 2 << 30},
		{in: "10b", want: 10},
		{in: "1m", want: 1 << 20},
		{in: "", bad: true},
		{in: "-1", bad: true},
		{in: "ten", bad: true},
		{in: "1XB", bad: true},
		{in: "1e30", bad: true},
		{in: "NaN", bad: true},
		{in: "nanKiB", bad: true},
		{in: "inf", bad: true},
	}
	for _, tt := range tests {
		got, err := parseSize(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("parseSize(%q) = %d, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parseSize(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestFormatSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{
		1 << 20:    "1MiB",
		20_000_000: "20MB",
		64 << 10:   "64KiB",
		1000:       "1kB",
		1234:       "1234",
		0:          "0",
	} {
		if got := formatSize(n); got != want {
			t.Errorf("formatSize(%d) = %q, want %q", n, got, want)
		}
		if back, err := parseSize(formatSize(n)); err != nil || back != n {
			t.Errorf("parseSize(formatSize(%d)) = %d, %v", n, back, err)
		}
	}
}

// TestNumericFlagsBounded walks every flag of every command: each one that
// takes a number, a duration or a size is bounded, and its help says the
// bounds (--jobs 4294967296 once ran out of memory).
func TestNumericFlagsBounded(t *testing.T) {
	t.Parallel()
	root := newRootCmd(&globals{IO: &ioStreams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			b, ok := f.Value.(interface{ bounds() string })
			if ok {
				if !strings.Contains(f.Usage, "("+b.bounds()+")") {
					t.Errorf("%s --%s: the help does not state the bounds %s: %q", c.CommandPath(), f.Name, b.bounds(), f.Usage)
				}
				return
			}
			switch f.Value.Type() {
			case "string", "bool", "stringSlice", "stringArray":
			default:
				t.Errorf("%s --%s: a %s flag without bounds: register it with intVar, durationVar or sizeVar", c.CommandPath(), f.Name, f.Value.Type())
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// TestNumericFlagsOutOfBounds sets numeric flags out of their bounds, on
// the command line and in a config file: bad usage, exit 2, before
// anything runs, saying the bounds.
func TestNumericFlagsOutOfBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	req := filepath.Join(dir, "req.yaml")
	must(t, os.WriteFile(req, []byte("{name: calculate_sum, args: {a: 1, b: 2}}\n"), 0o644))
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"run", req, "--jobs", "4294967296"}, `invalid argument "4294967296" for "-j, --jobs" flag: want a whole number from 1 to 10000`},
		{[]string{"run", req, "-j", "9223372036854775807"}, `want a whole number from 1 to 10000`},
		{[]string{"run", req, "-j", "99999999999999999999"}, `want a whole number from 1 to 10000`},
		{[]string{"run", req, "--jobs", "0"}, `"0" for "-j, --jobs" flag: want a whole number from 1 to 10000`},
		{[]string{"run", req, "--timeout", "-1s"}, `"-1s" for "--timeout" flag: want a duration (300ms, 30s, 5m, 1h) from 0 to 168h`},
		{[]string{"run", req, "--grace", "2h"}, `"2h" for "--grace" flag: want a duration (300ms, 30s, 5m, 1h) from 0 to 1h`},
		{[]string{"run", req, "--max-output", "2GiB"}, `"2GiB" for "--max-output" flag: want a size (65536, 64KiB, 1MiB, 1MB) from 0 to 1GiB`},
		{[]string{"run", req, "--inline-limit", "1GB"}, `want a size (65536, 64KiB, 1MiB, 1MB) from 0 to 100MB`},
		{[]string{"run", req, "--max-tokens", "-1"}, `"-1" for "--max-tokens" flag: want a whole number from 0 to 1000000`},
		{[]string{"session", "hi", "--max-turns", "0"}, `"0" for "--max-turns" flag: want a whole number from 1 to 10000`},
		{[]string{"session", "hi", "--jobs", "100000"}, `want a whole number from 1 to 10000`},
		{[]string{"analyze", req, "--max-tokens", "2000000"}, `want a whole number from 0 to 1000000`},
	}
	for _, tt := range tests {
		code, stdout, stderr := runArgs(append([]string{"--awd", dir}, tt.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tt.err) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", tt.args, code, stdout, stderr, tt.err)
		}
	}
	// The same from a config file, at the value's place, saying the
	// bounds: a duration or a size that is one, only too large, is not
	// told it is no duration.
	conf := filepath.Join(dir, "conf.yaml")
	for _, tt := range []struct{ line, want string }{
		{"jobs: 4294967296", `:1:7: jobs: "4294967296": want a whole number from 1 to 10000`},
		{"timeout: 1000h", `:1:10: timeout: "1000h": want a duration (300ms, 30s, 5m, 1h) from 0 to 168h`},
		{"grace: soon", `:1:8: grace: "soon": want a duration (300ms, 30s, 5m, 1h) from 0 to 1h`},
		{"max-output: 2GiB", `:1:13: max-output: "2GiB": want a size (65536, 64KiB, 1MiB, 1MB) from 0 to 1GiB`},
	} {
		must(t, os.WriteFile(conf, []byte(tt.line+"\n"), 0o644))
		code, _, stderr := runArgs("--awd", dir, "--config", conf, "run", req)
		if want := conf + tt.want; code != ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s in a config file: exit %d, stderr %q; want exit 2 saying %q", tt.line, code, stderr, want)
		}
	}
}

// TestStringFlagsChecked sets the string flags that can be wrong to what
// cannot be right, on the command line and in a config file: bad usage,
// exit 2, before anything runs. From a config file, every command refuses
// them, tools list (which has none of these flags) as well.
func TestStringFlagsChecked(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	req := filepath.Join(dir, "req.yaml")
	must(t, os.WriteFile(req, []byte("{name: calculate_sum, args: {a: 1, b: 2}}\n"), 0o644))
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"run", req, "--model", "llama3.1", "--provider", "openai", "--base-url", "localhost:11434/v1"}, `invalid argument "localhost:11434/v1" for "--base-url" flag: want the http:// or https:// URL`},
		{[]string{"session", "hi", "--model", "gemini-2.5-flash", "--base-url", "https:///v1"}, `"--base-url" flag: want the http:// or https:// URL`},
		{[]string{"session", "hi", "--model", "gemini-2.5-flash", "--provider", "clade"}, `"--provider" flag: want gemini, claude or openai (did you mean`},
		{[]string{"session", "hi", "--model", "gemini\t2.5"}, `"--model" flag: want a model's name`},
		{[]string{"run", req, "--format", "toml"}, `"--format" flag: want yaml, json or jsonl`},
		{[]string{"mcp", "serve", "--http", "localhost:http-alt-nope"}, `"--http" flag: has no port`},
		{[]string{"mcp", "serve", "--http", "0", "--token-env", "1TOKEN"}, `"--token-env" flag: want the name of an environment variable`},
		{[]string{"diff", req, req, "--ignore", ".content.a", "--ignore", "content"}, `invalid argument "content" for "--ignore" flag: a path starts with "." or "["`},
	} {
		code, stdout, stderr := runArgs(append([]string{"--awd", dir}, tt.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, tt.err) || stdout != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 saying %q", tt.args, code, stdout, stderr, tt.err)
		}
	}
	conf := filepath.Join(dir, "conf.yaml")
	for _, tt := range []struct{ line, want string }{
		{"base-url: localhost:11434/v1", `:1:11: base-url: "localhost:11434/v1": want the http:// or https:// URL`},
		{"provider: OpenAI", ""},
		{"provider: mistral", `:1:11: provider: "mistral": want gemini, claude or openai` + "\n"},
		{"model: ' '", `:1:8: model: " ": want a model's name`},
		{"model: ''", ""},
		{"format: toml", `:1:9: format: "toml": want yaml, json or jsonl`},
		{"http: 127.0.0.1", `:1:7: http: "127.0.0.1": has no port`},
		{"http: 127.0.0.1:8080", ""},
		{"token-env: KESOKU-TOKEN", `:1:12: token-env: "KESOKU-TOKEN": want the name of an environment variable`},
		{"jobs: eight", `:1:7: jobs: "eight": want a whole number from 1 to 10000`},
		{"max-turns: many", `:1:12: max-turns: "many": want a whole number from 1 to 10000`},
		{"ignore: .modified", `:1:9: ignore: ".modified": a record has no field "modified"`},
		{"ignore: [.content.a, .error.text]", `:1:9: ignore: "[.content.a, .error.text]": ".error.text": an error has a kind and a message`},
		{"ignore: [.content.a, .duration_ms]", ""},
	} {
		must(t, os.WriteFile(conf, []byte(tt.line+"\n"), 0o644))
		code, _, stderr := runArgs("--awd", dir, "--config", conf, "tools", "list")
		if tt.want == "" {
			if code != 0 {
				t.Errorf("%s in a config file: exit %d, stderr %q; want it taken", tt.line, code, stderr)
			}
			continue
		}
		if want := conf + tt.want; code != ExitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s in a config file: exit %d, stderr %q; want exit 2 saying %q", tt.line, code, stderr, want)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestFormatDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "0", 300 * time.Millisecond: "300ms", 5 * time.Second: "5s", time.Minute: "1m",
		90 * time.Minute: "1h30m", 168 * time.Hour: "168h", time.Hour + time.Second: "1h0m1s",
	} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := time.ParseDuration(formatDuration(d)); err != nil || back != d {
			t.Errorf("ParseDuration(formatDuration(%v)) = %v, %v", d, back, err)
		}
	}
}

// TestConfigKeysDecided walks every flag that takes text: a kesoku.yaml
// found in the AWD may set it only if someone decided that a stranger's
// file may. Each either needs approval (a path, a URL, an address, a
// program: what could send data or run code elsewhere), is given on the command line only, or is named here
// with why a stranger's file may set it.
func TestConfigKeysDecided(t *testing.T) {
	t.Parallel()
	harmless := map[string]string{
		"model":    "which model answers: billed to the user's own key, at the provider's own address",
		"provider": "which provider's API the model's name goes to, at its own address",
		"session":  "a session_id written into the records",
		"format":   "how the request files are read",
		"system":   "the system instruction: words to the model, whose tools are read-only unless --tools says more",
		"tools":    "--tools is given on the command line only: the key tools is the section of command tools, which needs approval",
		"shard":    "which share of the requests runs",
		"ignore":   "which fields of the records kesoku diff leaves out",
		"summary":  "whether the closing summary is a sentence or a JSON object",
		"on-ask":   "what a call the rules ask about becomes with no terminal: denied, or the run stopped at it; never run",
	}
	// init reads no config file: its flags are the command line's alone.
	// allow, ask and deny: a file's rules go under permissions:, which
	// needs approval.
	commandLineOnly := map[string]bool{"awd": true, "config": true, "resume": true, "cassette": true, "cassette-mode": true, "help": true, "module": true, "kesoku": true,
		"allow": true, "ask": true, "deny": true}
	root := newRootCmd(&globals{IO: &ioStreams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		visit := func(f *pflag.Flag) {
			switch f.Value.Type() {
			case "bool":
				return
			}
			if _, ok := f.Value.(interface{ bounds() string }); ok {
				return // a number within its bounds
			}
			if config.NeedsApproval(f.Name) || commandLineOnly[f.Name] || harmless[f.Name] != "" {
				return
			}
			t.Errorf("%s --%s: may a kesoku.yaml found in the AWD set it without approval? Add it to config's rules, or say why here", c.CommandPath(), f.Name)
		}
		c.LocalFlags().VisitAll(visit)
		c.PersistentFlags().VisitAll(visit)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

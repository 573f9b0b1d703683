package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// runArgs runs kesoku with args against in-memory streams.
func runArgs(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}}, args)
	return code, out.String(), errOut.String()
}

// TestGlobalFlags checks the flags every command has: the AWD,
// the config file and its defaults, -q and -v, and that their misuse is
// bad usage (exit 2) before anything runs.
func TestGlobalFlags(t *testing.T) {
	t.Parallel()
	awd := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(awd, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	write("kesoku.yaml", "json: true\n")
	other := write("other.yaml", "max-output: 2KiB\n")
	broken := write("broken.yaml", "format: [\n")
	file := write("plain.txt", "not a directory\n")
	nested := filepath.Join(awd, "conf")
	if err := os.Mkdir(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	relStaging := write("conf/staging.yaml", "staging: ../inputs\n")
	setsAWD := write("awd.yaml", "awd: /\n")
	null := write("null.yaml", "format:\nstaging:\n")

	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string // a regexp stdout must match
		stderr   string // a regexp stderr must match
		noStderr bool
	}{
		{name: "kesoku.yaml in the AWD gives defaults",
			args: []string{"--awd", awd, "tools", "list"}, stdout: `^\[\n  \{\n    "name": "analyze_media"`, noStderr: true},
		{name: "a flag on the command line wins over the config",
			args: []string{"--awd", awd, "tools", "list", "--json=false"}, stdout: `^NAME `},
		{name: "--config names another file",
			args: []string{"--awd", awd, "--config", other, "tools", "list"}, stdout: `^NAME `},
		{name: "a config that does not parse",
			args: []string{"--awd", awd, "--config", broken, "tools", "list"}, code: ExitUsage, stderr: `^kesoku: .*broken.yaml:1:9: invalid YAML: `},
		{name: "a config that is not there",
			args: []string{"--awd", awd, "--config", filepath.Join(awd, "nope.yaml"), "tools", "list"}, code: ExitUsage, stderr: `^kesoku: config .*nope.yaml: no such file or directory\n$`},
		{name: "an AWD that is not there",
			args: []string{"--awd", filepath.Join(awd, "nope"), "tools", "list"}, code: ExitUsage, stderr: `^kesoku: --awd: .*no such file or directory\n$`},
		{name: "an AWD that is a file",
			args: []string{"--awd", file, "tools", "list"}, code: ExitUsage, stderr: `^kesoku: --awd .*plain.txt: not a directory\n$`},
		{name: "-q with -v",
			args: []string{"-q", "-v", "tools", "list"}, code: ExitUsage, stderr: `^kesoku: -q \(--quiet\) and -v \(--verbose\) cannot be given together\n$`},
		{name: "-v says where kesoku works",
			args: []string{"--awd", awd, "-v", "tools", "list"}, stdout: `^\[`,
			stderr: `^kesoku: working directory ` + regexp.QuoteMeta(awd) + `, staging ` + regexp.QuoteMeta(filepath.Join(awd, ".kesoku", "staging")) + `, config ` + regexp.QuoteMeta(filepath.Join(awd, "kesoku.yaml")) + `\n` +
				`kesoku: config: json: true \(from ` + regexp.QuoteMeta(filepath.Join(awd, "kesoku.yaml")) + `:1:1\)\n$`},
		{name: "-v with --staging and --config",
			args:   []string{"--awd", awd, "--staging", awd, "--config", other, "-v", "tools", "list"},
			stderr: `staging ` + regexp.QuoteMeta(awd) + `, config ` + regexp.QuoteMeta(other) + `\n`},
		{name: "a relative staging in a config is relative to the file",
			args:   []string{"--awd", awd, "--config", relStaging, "-v", "tools", "list"},
			stderr: `staging ` + regexp.QuoteMeta(filepath.Join(awd, "inputs")) + `, config `},
		{name: "a config cannot move the AWD it is found in",
			args: []string{"--awd", awd, "--config", setsAWD, "tools", "list"}, code: ExitUsage,
			stderr: `^kesoku: .*awd.yaml:1:1: awd: not a setting: the config file is found through --awd: give it on the command line\n$`},
		{name: "a key without a value leaves the default",
			args: []string{"--awd", awd, "--config", null, "-v", "tools", "schema", "calculate_sum"}, stdout: `"\$schema"`,
			stderr: `staging ` + regexp.QuoteMeta(filepath.Join(awd, ".kesoku", "staging")) + `, config `},
		{name: "an unknown shell",
			args: []string{"completion", "tcsh"}, code: ExitUsage, stderr: `unknown command "tcsh" for "kesoku completion"`},
		{name: "a shell",
			args: []string{"completion", "bash"}, stdout: `^# bash completion`, noStderr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runArgs(tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			if !regexp.MustCompile(tt.stdout).MatchString(stdout) {
				t.Errorf("stdout does not match %q:\n%s", tt.stdout, stdout)
			}
			if tt.stderr != "" && !regexp.MustCompile(tt.stderr).MatchString(stderr) {
				t.Errorf("stderr does not match %q:\n%s", tt.stderr, stderr)
			}
			if tt.noStderr && stderr != "" {
				t.Errorf("stderr is not empty:\n%s", stderr)
			}
		})
	}
}

// TestHelpStatesExitStatus checks that every command's help has an EXIT
// STATUS section, and that only the commands that write records speak of
// records there.
func TestHelpStatesExitStatus(t *testing.T) {
	t.Parallel()
	records := map[string]bool{"run": true, "collect": true, "merge": true, "serve": true}
	root := newRootCmd(&globals{IO: &ioStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c == root || c.Name() == "help" || c.Parent().Name() == "completion" || isTopic(c) {
			return
		}
		path := c.CommandPath()
		_, status, ok := strings.Cut(c.Long, "EXIT STATUS\n")
		if !ok {
			t.Errorf("%s: the help has no EXIT STATUS section", path)
			return
		}
		if !strings.Contains(status, "  0 ") {
			t.Errorf("%s: EXIT STATUS does not say what 0 means:\n%s", path, status)
		}
		if got := strings.Contains(status, "record"); got != records[c.Name()] {
			t.Errorf("%s: EXIT STATUS speaks of records: %v, want %v:\n%s", path, got, records[c.Name()], status)
		}
	}
	walk(root)
}

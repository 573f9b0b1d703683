package cmd

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestUsageWords: a wrong command line is told in kesoku's words, naming
// the argument that is missing, and a mistyped flag or subcommand gets
// "did you mean" at every level, not Cobra's "requires at least 1
// arg(s), only received 0".
func TestUsageWords(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"run"}, `^kesoku: run: no request FILE \(give - for standard input\)$`},
		{[]string{"validate"}, `^kesoku: validate: no request FILE \(give - for standard input\)$`},
		{[]string{"run", "a.yaml", ""}, `^kesoku: run: the request FILE name is empty$`},
		{[]string{"merge"}, `^kesoku: merge: no PART \(give the records files of the run's shards, in any order\)$`},
		{[]string{"batch", "submit"}, `^kesoku: batch submit: no request FILE \(give - for standard input\)$`},
		{[]string{"batch", "submit", "a.yaml", "b.yaml"}, `^kesoku: batch submit takes one request FILE, got 2: "a.yaml" "b.yaml"$`},
		{[]string{"batch", "status", ""}, `^kesoku: batch status: the STATE file name is empty$`},
		{[]string{"batch", "collect"}, `^kesoku: batch collect: no STATE file \(the path batch submit printed\)$`},
		{[]string{"session", "what", "is", "2+2"}, `^kesoku: session takes one PROMPT, not 3 words: quote a prompt of several, as in kesoku session "what is 2\+2"$`},
		{[]string{"trust", "a.yaml", "b.yaml"}, `^kesoku: trust takes one FILE, got 2: "a.yaml" "b.yaml"$`},
		{[]string{"tools", "list", "extra"}, `^kesoku: tools list takes no arguments, got "extra"$`},
		{[]string{"version", "now"}, `^kesoku: version takes no arguments, got "now"$`},
		{[]string{"init", "a", "b"}, `^kesoku: init takes one DIR, got 2: "a" "b"$`},

		// Flags, at every level.
		{[]string{"run", "--job", "8", "a.yaml"}, `^kesoku: unknown flag: --job \(did you mean --jobs\?\)$`},
		{[]string{"run", "--job=8", "a.yaml"}, `^kesoku: unknown flag: --job \(did you mean --jobs\?\)$`},
		{[]string{"run", "-J", "8", "a.yaml"}, `^kesoku: unknown shorthand flag: 'J' in -J \(did you mean -j, --jobs\?\)$`},
		{[]string{"run", "-timeout", "5s", "a.yaml"}, `^kesoku: unknown shorthand flag: 't' in -timeout \(did you mean --timeout\?\)$`},
		{[]string{"tools", "list", "--jsn"}, `^kesoku: unknown flag: --jsn \(did you mean --json\?\)$`},
		{[]string{"mcp", "serve", "--tokn-env", "X"}, `^kesoku: unknown flag: --tokn-env \(did you mean --token-env\?\)$`},
		{[]string{"--verbos", "tools", "list"}, `^kesoku: unknown flag: --verbos \(did you mean --verbose\?\)$`},
		{[]string{"tools", "list", "--awdd", "."}, `^kesoku: unknown flag: --awdd \(did you mean --awd\?\)$`},
		{[]string{"run", "--max", "1", "a.yaml"}, `^kesoku: unknown flag: --max$`},
		{[]string{"run", "--nothing-like-it", "a.yaml"}, `^kesoku: unknown flag: --nothing-like-it$`},

		// Subcommands, at every level.
		{[]string{"rn"}, `^kesoku: unknown command "rn" for "kesoku" \(did you mean "run"\?\)$`},
		{[]string{"tools", "lst"}, `^kesoku: unknown command "lst" for "kesoku tools" \(did you mean "list"\?\)$`},
		{[]string{"tools", "sch"}, `^kesoku: unknown command "sch" for "kesoku tools" \(did you mean "schema"\?\)$`},
		{[]string{"mcp", "sreve"}, `^kesoku: unknown command "sreve" for "kesoku mcp" \(did you mean "serve"\?\)$`},
		{[]string{"batch", "stauts", "x.json"}, `^kesoku: unknown command "stauts" for "kesoku batch" \(did you mean "status"\?\)$`},
		{[]string{"completion", "bsh"}, `^kesoku: unknown command "bsh" for "kesoku completion" \(did you mean "bash"\?\)$`},
		{[]string{"tools", "frob"}, `^kesoku: unknown command "frob" for "kesoku tools"$`},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := execKesoku(t, "", tt.args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, ExitUsage, stderr)
			}
			if !regexp.MustCompile(`(?m)`+tt.stderr).MatchString(strings.TrimSuffix(stderr, "\n")) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr does not match %s:\n%s", tt.stderr, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout is not empty:\n%s", stdout)
			}
		})
	}
}

// TestStdinNotice: kesoku run - (and validate -) on a terminal says that
// it reads the requests from it, and how to end them; never with -q, and
// never when standard input is a file or a pipe.
func TestStdinNotice(t *testing.T) {
	t.Parallel()
	const notice = "kesoku: reading requests from standard input; end them with Ctrl-D\n"
	const req = `{"id": "a", "name": "calculate_sum", "args": {"a": 1, "b": 2}}` + "\n"
	for _, tt := range []struct {
		name   string
		tty    bool
		args   []string
		notice bool
	}{
		{"run - on a terminal", true, []string{"run", "-"}, true},
		{"validate - on a terminal", true, []string{"validate", "-"}, true},
		{"run - from a pipe", false, []string{"run", "-"}, false},
		{"run -q - on a terminal", true, []string{"-q", "run", "-"}, false},
		{"validate --json - on a terminal", true, []string{"validate", "--json", "-"}, false},
		{"run of a file on a terminal", true, []string{"run", "x.jsonl"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			awd := t.TempDir()
			file := writeFile(t, awd, "x.jsonl", req)
			args := slices.Clone(tt.args)
			if i := slices.Index(args, "x.jsonl"); i >= 0 {
				args[i] = file
			}
			var out, errOut bytes.Buffer
			g := &globals{IO: &ioStreams{In: strings.NewReader(req), Out: &out, Err: &errOut, InTTY: tt.tty}}
			code := run(context.Background(), g, append([]string{"--awd", awd}, args...))
			if code != ExitOK {
				t.Fatalf("exit %d; stderr:\n%s", code, errOut.String())
			}
			if got := strings.HasPrefix(errOut.String(), notice); got != tt.notice {
				t.Errorf("notice on standard error: %v, want %v:\n%s", got, tt.notice, errOut.String())
			}
			if strings.Count(errOut.String(), "standard input") > 1 {
				t.Errorf("the notice is given more than once:\n%s", errOut.String())
			}
		})
	}
}

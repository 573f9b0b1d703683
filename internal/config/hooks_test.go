package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseHooks(t *testing.T) {
	t.Parallel()
	type hook struct {
		Event, Matcher, Command string
		Timeout                 time.Duration
		Line                    int
	}
	for _, tt := range []struct {
		name, text string
		want       []hook
		err        string // after "/x/kesoku.yaml:"
	}{
		{name: "Claude Code's shape", text: `hooks:
  PreToolUse:
    - matcher: write_file
      hooks:
        - type: command
          command: ./check.sh
          timeout: 30
        - {type: command, command: "echo 1"}
  PostToolUse:
    - hooks: [{type: command, command: log.sh}]
`, want: []hook{
			{Event: "PreToolUse", Matcher: "write_file", Command: "./check.sh", Timeout: 30 * time.Second, Line: 6},
			{Event: "PreToolUse", Matcher: "write_file", Command: "echo 1", Line: 8},
			{Event: "PostToolUse", Command: "log.sh", Line: 10},
		}},
		{name: "as JSON", text: `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x", "timeout": 0.5}]}]}}`,
			want: []hook{{Event: "PreToolUse", Matcher: "Bash", Command: "x", Timeout: 500 * time.Millisecond, Line: 1}}},
		{name: "no event's hooks", text: "hooks:\n  PreToolUse:\n"},

		{name: "an event of Claude Code's only", text: "hooks:\n  Stop: []\n", err: `2:3: hooks: "Stop": kesoku runs hooks at PreToolUse and PostToolUse`},
		{name: "a mistyped event", text: "hooks:\n  PreToolUs: []\n", err: `2:3: hooks: unknown event "PreToolUs" (did you mean "PreToolUse"?)`},
		{name: "a mapping for a list", text: "hooks:\n  PreToolUse: {matcher: x}\n", err: `2:15: hooks.PreToolUse: want a list of {matcher, hooks}, not a mapping`},
		{name: "a group without hooks", text: "hooks:\n  PreToolUse:\n    - matcher: x\n", err: `3:7: hooks.PreToolUse[0]: no hooks`},
		{name: "a mistyped key", text: "hooks:\n  PreToolUse:\n    - matchr: x\n", err: `3:7: hooks.PreToolUse[0]: unknown key "matchr" (did you mean "matcher"?): want matcher and hooks`},
		{name: "a hook of another type", text: "hooks:\n  PreToolUse:\n    - hooks: [{type: http, command: x}]\n", err: `3:22: hooks.PreToolUse[0].hooks[0].type: "http": kesoku runs hooks of type command`},
		{name: "no type", text: "hooks:\n  PreToolUse:\n    - hooks: [{command: x}]\n", err: `3:16: hooks.PreToolUse[0].hooks[0]: no type`},
		{name: "no command", text: "hooks:\n  PreToolUse:\n    - hooks: [{type: command}]\n", err: `3:16: hooks.PreToolUse[0].hooks[0]: no command`},
		{name: "an empty command", text: "hooks:\n  PreToolUse:\n    - hooks: [{type: command, command: ' '}]\n", err: `3:40: hooks.PreToolUse[0].hooks[0].command: empty`},
		{name: "a timeout in words", text: "hooks:\n  PreToolUse:\n    - hooks: [{type: command, command: x, timeout: 1m}]\n", err: `3:52: hooks.PreToolUse[0].hooks[0].timeout: "1m": want a number of seconds`},
		{name: "a timeout of 0", text: "hooks:\n  PreToolUse:\n    - hooks: [{type: command, command: x, timeout: 0}]\n", err: `hooks.PreToolUse[0].hooks[0].timeout: "0": want a number of seconds, more than 0`},
		{name: "a bad expression", text: "hooks:\n  PreToolUse:\n    - {matcher: 'mcp__(', hooks: [{type: command, command: x}]}\n", err: `3:17: hooks.PreToolUse[0].matcher: "mcp__(": not a regular expression`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := Parse("/x/kesoku.yaml", []byte(tt.text), keys)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "/x/kesoku.yaml:") {
					t.Fatalf("err = %v, want /x/kesoku.yaml:…%s…", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []hook
			for _, h := range f.Hooks {
				got = append(got, hook{h.Event, h.Matcher, h.Command, h.Timeout, h.Pos.Line})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("hooks mismatch (-want +got):\n%s", diff)
			}
			if c := f.Consequential(); len(tt.want) > 0 && (len(c) != 1 || !strings.HasPrefix(c[0], "hooks")) {
				t.Errorf("Consequential = %q, want hooks: a stranger's hooks start programs", c)
			}
		})
	}
}

func TestHookMatches(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		matcher  string
		match    []string
		mismatch []string
	}{
		{matcher: "", match: []string{"write_file", "mcp__fs__read"}},
		{matcher: "*", match: []string{"write_file"}},
		{matcher: "write_file", match: []string{"write_file"}, mismatch: []string{"write_file2", "my_write_file"}},
		{matcher: "write_file|edit_file", match: []string{"write_file", "edit_file"}, mismatch: []string{"write_file|edit_file"}},
		// Anything else is an expression that matches anywhere, as in
		// Claude Code.
		{matcher: "mcp__fs__.*", match: []string{"mcp__fs__read", "x_mcp__fs__"}, mismatch: []string{"mcp__git__log"}},
		{matcher: "^write", match: []string{"write_file"}, mismatch: []string{"rewrite"}},
		// kesoku names an MCP server's tools SERVER__TOOL: a matcher of
		// Claude Code's names for them (mcp__SERVER__TOOL) matches them.
		{matcher: "mcp__fs__.*", match: []string{"fs__read"}, mismatch: []string{"git__log", "read_file"}},
		{matcher: "mcp__fs__read|mcp__fs__write", match: []string{"fs__read", "fs__write"}, mismatch: []string{"fs__list", "read"}},
		{matcher: "^mcp__", match: []string{"fs__read"}, mismatch: []string{"read_file"}},
	} {
		f, err := Parse("/x/kesoku.yaml", []byte("hooks:\n  PreToolUse:\n    - matcher: '"+tt.matcher+"'\n      hooks: [{type: command, command: x}]\n"), keys)
		if err != nil {
			t.Fatal(err)
		}
		h := f.Hooks[0]
		for _, n := range tt.match {
			if !h.Matches(n) {
				t.Errorf("matcher %q does not match %q", tt.matcher, n)
			}
		}
		for _, n := range tt.mismatch {
			if h.Matches(n) {
				t.Errorf("matcher %q matches %q", tt.matcher, n)
			}
		}
	}
}

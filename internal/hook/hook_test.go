package hook

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/internal/toolsource"
	"github.com/kesoku/kesoku/registry"
)

// newRunner is a Runner of the hooks a config file's text declares, run
// in a directory of their own through a tool set's launcher, as kesoku
// runs them.
func newRunner(t *testing.T, yaml string, environ ...string) (*Runner, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("hooks run by sh")
	}
	dir := t.TempDir()
	f, err := config.Parse(filepath.Join(dir, "kesoku.yaml"), []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	set, err := toolsource.Build(t.Context(), registry.New(), toolsource.Options{AWD: dir, Grace: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	if environ == nil {
		environ = []string{"PATH=" + os.Getenv("PATH")}
	}
	return New(Options{Hooks: f.Hooks, AWD: dir, Launch: set, Secrets: secret.NewRedactor("sekrit-value"), Environ: environ}), dir
}

// pre declares one PreToolUse hook of every tool running script.
func pre(script string) string {
	return "hooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n          command: " + strconv.Quote(script) + "\n"
}

func call() Call {
	return Call{SessionID: "s1", TranscriptPath: "/t/records.jsonl", ToolName: "write_file", ToolUseID: "call_1", ToolInput: map[string]any{"path": "a.txt", "content": "hi"}}
}

func TestPreDecisions(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, script string
		want         Decision
		reason       string
		updated      map[string]any
		errText      string // of the one hook error, when there is one
	}{
		{name: "exit 0 and nothing said", script: "exit 0"},
		{name: "text on exit 0 decides nothing", script: "echo looks fine"},
		{name: "exit 2 blocks with its standard error", script: "echo 'Blocked: a.txt is protected' >&2; exit 2", want: Deny, reason: "Blocked: a.txt is protected"},
		{name: "exit 2 says nothing", script: "exit 2", want: Deny, reason: "blocked by a hook"},
		{name: "another status is a hook error", script: "echo oops >&2; exit 1", errText: "exited with status 1; standard error: oops"},
		{name: "a signal is a hook error", script: "kill -9 $$", errText: "ended: signal: killed"},
		{name: "deny", script: `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not today"}}'`, want: Deny, reason: "not today"},
		{name: "ask", script: `echo '{"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?"}}'`, want: Ask, reason: "sure?"},
		{name: "defer", script: `echo '{"hookSpecificOutput": {"permissionDecision": "defer"}}'`, want: Defer},
		{name: "allow", script: `echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'`, want: Allow},
		{name: "the older form", script: `echo '{"decision": "block", "reason": "old style"}'`, want: Deny, reason: "old style"},
		{name: "continue false", script: `echo '{"continue": false, "stopReason": "stop here"}'`, want: Deny, reason: "stop here"},
		{name: "updatedInput", script: `echo '{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"path": "b.txt", "content": "hi"}}}'`, want: Allow, updated: map[string]any{"path": "b.txt", "content": "hi"}},
		{name: "an unknown decision", script: `echo '{"hookSpecificOutput": {"permissionDecision": "maybe"}}'`, errText: `printed permissionDecision "maybe": want allow, deny, ask or defer`},
		{name: "updatedInput not an object", script: `echo '{"hookSpecificOutput": {"updatedInput": [1]}}'`, errText: "printed an updatedInput that is no JSON object"},
		{name: "broken JSON", script: `echo '{"hookSpecificOutput": '`, errText: "printed JSON that is no hook output"},
		{name: "a secret in the reason", script: "echo 'it holds sekrit-value' >&2; exit 2", want: Deny, reason: "it holds [redacted]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, _ := newRunner(t, pre(tt.script))
			o, err := r.Pre(t.Context(), call())
			if err != nil {
				t.Fatal(err)
			}
			if o.Decision != tt.want || o.Reason != tt.reason {
				t.Errorf("decision %q (%q), want %q (%q)", o.Decision, o.Reason, tt.want, tt.reason)
			}
			if (o.Decision != None) != (o.By != nil) {
				t.Errorf("By = %v with decision %q", o.By, o.Decision)
			}
			if diff := cmp.Diff(tt.updated, o.UpdatedInput); diff != "" {
				t.Errorf("updatedInput mismatch (-want +got):\n%s", diff)
			}
			switch {
			case tt.errText == "" && len(o.Errors) > 0:
				t.Errorf("hook errors: %v", o.Errors)
			case tt.errText != "" && (len(o.Errors) != 1 || !strings.Contains(o.Errors[0].Error(), tt.errText)):
				t.Errorf("hook errors %v, want one saying %q", o.Errors, tt.errText)
			}
		})
	}
}

// TestInput holds a hook's standard input to Claude Code's: the fields a
// hook written for it reads.
func TestInput(t *testing.T) {
	t.Parallel()
	yaml := "hooks:\n" +
		"  PreToolUse: [{matcher: write_file, hooks: [{type: command, command: 'cat > pre.json'}]}]\n" +
		"  PostToolUse: [{matcher: write_file, hooks: [{type: command, command: 'cat > post.json'}]}]\n"
	r, dir := newRunner(t, yaml)
	c := call()
	if _, err := r.Pre(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	c.ToolResponse = json.RawMessage(`{"bytes":2}`)
	if _, err := r.Post(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"session_id": "s1", "transcript_path": "/t/records.jsonl", "cwd": dir,
		"hook_event_name": "PreToolUse", "tool_name": "write_file", "tool_use_id": "call_1",
		"tool_input": map[string]any{"path": "a.txt", "content": "hi"},
	}
	for _, ev := range []string{"pre", "post"} {
		data, err := os.ReadFile(filepath.Join(dir, ev+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]any
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("%s: %v: %s", ev, err, data)
		}
		if ev == "post" {
			want["hook_event_name"] = "PostToolUse"
			want["tool_response"] = map[string]any{"bytes": 2.0}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s input mismatch (-want +got):\n%s", ev, diff)
		}
	}
}

// TestEnvironment holds a hook to the environment rules of every program
// kesoku starts: no secret of kesoku's, its project directory as Claude
// Code gives it.
func TestEnvironment(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, pre("env > env.txt"), "PATH="+os.Getenv("PATH"), "GEMINI_API_KEY=gk", "MY_TOKEN=sekrit-value", "HOME=/home/x")
	if _, err := r.Pre(t.Context(), call()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "env.txt"))
	if err != nil {
		t.Fatal(err)
	}
	env := string(data)
	for _, bad := range []string{"GEMINI_API_KEY", "MY_TOKEN", "sekrit"} {
		if strings.Contains(env, bad) {
			t.Errorf("the hook's environment holds %s:\n%s", bad, env)
		}
	}
	for _, good := range []string{"HOME=/home/x", "CLAUDE_PROJECT_DIR=" + dir} {
		if !strings.Contains(env, good) {
			t.Errorf("the hook's environment lacks %s:\n%s", good, env)
		}
	}
}

// TestCombined: deny beats defer beats ask beats allow, whatever order
// the hooks end in; the first updatedInput declared wins.
func TestCombined(t *testing.T) {
	t.Parallel()
	dec := func(d string) string {
		return `{type: command, command: 'echo ''{"hookSpecificOutput": {"permissionDecision": "` + d + `", "permissionDecisionReason": "` + d + `!"}}'''}`
	}
	for _, tt := range []struct {
		decisions []string
		want      Decision
	}{
		{[]string{"allow", "deny", "ask"}, Deny},
		{[]string{"ask", "allow"}, Ask},
		{[]string{"allow", "defer", "ask"}, Defer},
		{[]string{"allow"}, Allow},
	} {
		var hooks []string
		for _, d := range tt.decisions {
			hooks = append(hooks, dec(d))
		}
		yaml := "hooks:\n  PreToolUse:\n    - matcher: write_file\n      hooks: [" + strings.Join(hooks, ", ") + "]\n" +
			"    - matcher: other_tool\n      hooks: [{type: command, command: 'exit 2'}]\n"
		r, _ := newRunner(t, yaml)
		o, err := r.Pre(t.Context(), call())
		if err != nil {
			t.Fatal(err)
		}
		if o.Decision != tt.want || o.Reason != string(tt.want)+"!" || !strings.Contains(o.By.Command, `"`+string(tt.want)+`"`) {
			t.Errorf("%v: %q (%q, by %v), want %q", tt.decisions, o.Decision, o.Reason, o.By.Command, tt.want)
		}
	}
	yaml := "hooks:\n  PreToolUse:\n    - hooks:\n" +
		`        - {type: command, command: 'sleep 0.2; echo ''{"hookSpecificOutput": {"updatedInput": {"path": "first"}}}'''}` + "\n" +
		`        - {type: command, command: 'echo ''{"hookSpecificOutput": {"updatedInput": {"path": "second"}}}'''}` + "\n"
	r, _ := newRunner(t, yaml)
	o, err := r.Pre(t.Context(), call())
	if err != nil {
		t.Fatal(err)
	}
	if o.UpdatedInput["path"] != "first" {
		t.Errorf("updatedInput %v, want the first hook's", o.UpdatedInput)
	}
}

func TestPost(t *testing.T) {
	t.Parallel()
	post := func(script string) string {
		return "hooks:\n  PostToolUse:\n    - hooks: [{type: command, command: " + strconv.Quote(script) + "}]\n"
	}
	for _, tt := range []struct {
		name, script string
		blocked      bool
		feedback     []string
	}{
		{name: "exit 0", script: "cat >/dev/null"},
		{name: "exit 2 feeds standard error back", script: "echo 'lint: 3 problems' >&2; exit 2", blocked: true, feedback: []string{"lint: 3 problems"}},
		{name: "decision block", script: `echo '{"decision": "block", "reason": "fix the format"}'`, blocked: true, feedback: []string{"fix the format"}},
		{name: "additionalContext", script: `echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "formatted"}}'`, feedback: []string{"formatted"}},
		// A permission decision after the call is of no use: Claude Code
		// reads none there.
		{name: "no decision after the call", script: `echo '{"hookSpecificOutput": {"permissionDecision": "deny"}}'`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, _ := newRunner(t, post(tt.script))
			c := call()
			c.ToolResponse = json.RawMessage(`"ok"`)
			o, err := r.Post(t.Context(), c)
			if err != nil {
				t.Fatal(err)
			}
			if o.Decision != None || o.Blocked != tt.blocked || len(o.Errors) > 0 {
				t.Errorf("decision %q, blocked %v, errors %v; want blocked %v", o.Decision, o.Blocked, o.Errors, tt.blocked)
			}
			if diff := cmp.Diff(tt.feedback, o.Feedback); diff != "" {
				t.Errorf("feedback mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMatcher: a hook runs for the tools its matcher names, and only
// those; a call no hook matches starts nothing.
func TestMatcher(t *testing.T) {
	t.Parallel()
	yaml := "hooks:\n  PreToolUse:\n    - matcher: 'mcp__fs__.*'\n      hooks: [{type: command, command: 'exit 2'}]\n"
	r, _ := newRunner(t, yaml)
	for tool, want := range map[string]Decision{"mcp__fs__write": Deny, "write_file": None} {
		c := call()
		c.ToolName = tool
		o, err := r.Pre(t.Context(), c)
		if err != nil {
			t.Fatal(err)
		}
		if o.Decision != want || r.Matches(config.PreToolUse, tool) != (want == Deny) {
			t.Errorf("%s: %q, want %q", tool, o.Decision, want)
		}
	}
	if New(Options{}) != nil {
		t.Error("a Runner of no hooks")
	}
	var none *Runner
	if o, err := none.Pre(t.Context(), call()); err != nil || o.Decision != None {
		t.Errorf("no hooks: %v, %v", o, err)
	}
}

// TestInterrupted: a call interrupted while its hooks run is not decided
// by them: the caller learns the context ended.
func TestInterrupted(t *testing.T) {
	t.Parallel()
	r, dir := newRunner(t, pre("touch started; sleep 300"))
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	if _, err := r.Pre(ctx, call()); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestBoundedOutput: a hook that prints without end costs no memory and
// is stopped; one that never reads its input does not hang kesoku.
func TestBoundedOutput(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t, pre("cat /dev/zero"))
	o, err := r.Pre(t.Context(), call())
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Errors) != 1 || !strings.Contains(o.Errors[0].Error(), "printed more than 4 MiB on standard output: stopped") {
		t.Errorf("errors %v, want one that says the hook printed too much", o.Errors)
	}

	// Standard error is the reason of a block: what is kept of it is
	// bounded too.
	r, _ = newRunner(t, pre(`i=0; while [ $i -lt 200 ]; do printf '%01000d\n' 0 >&2; i=$((i+1)); done; exit 2`))
	o, err = r.Pre(t.Context(), call())
	if err != nil {
		t.Fatal(err)
	}
	if o.Decision != Deny || len(o.Reason) > maxStderr+8 || !strings.HasSuffix(o.Reason, "…") {
		t.Errorf("decision %q with a reason of %d bytes, want deny with one cut to %d", o.Decision, len(o.Reason), maxStderr)
	}

	// An input far larger than a pipe holds, which the hook never reads.
	r, _ = newRunner(t, pre("exit 2"))
	c := call()
	c.ToolInput["content"] = strings.Repeat("x", 8<<20)
	if o, err = r.Pre(t.Context(), c); err != nil || o.Decision != Deny {
		t.Errorf("decision %q, err %v; want deny", o.Decision, err)
	}
}

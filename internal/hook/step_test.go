package hook

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/kesoku/kesoku/internal/policy"
)

// The hooks as the policy's step and the runner's step after a call:
// their decisions as the policy's verdicts, named by the hook; hook
// errors and what hooks say to the user go to Warn.
func TestSteps(t *testing.T) {
	t.Parallel()
	yaml := "hooks:\n  PreToolUse:\n" +
		`    - matcher: write_file` + "\n" +
		`      hooks: [{type: command, command: 'echo ''{"systemMessage": "checked", "hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "sure?", "updatedInput": {"path": "b.txt"}}}'''}]` + "\n" +
		`    - matcher: read_file` + "\n" +
		`      hooks: [{type: command, command: 'exit 3'}]` + "\n" +
		"  PostToolUse:\n" +
		`    - hooks: [{type: command, command: 'echo one >&2; exit 2'}, {type: command, command: 'echo ''{"hookSpecificOutput": {"additionalContext": "two"}}'''}]` + "\n"
	r, _ := newRunner(t, yaml)
	var mu sync.Mutex
	var warned []string
	r.opts.Warn = func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		warned = append(warned, msg)
	}
	step := r.Step("/t/out.jsonl")
	d := step.Decide(t.Context(), &policy.Call{ID: "c1", Name: "write_file", Args: map[string]any{"path": "a.txt"}})
	want := policy.Decision{Verdict: policy.Ask, By: `PreToolUse hook "echo '{\"systemMessage\": \"checked\", \"hookSpecificOutput\": {\"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"sure?\", \"updatedInput\": {\"path\": \"b.txt\"}}}'"`, Reason: "sure?", UpdatedArgs: map[string]any{"path": "b.txt"}}
	if d.Verdict != want.Verdict || d.By != want.By || d.Reason != want.Reason || d.UpdatedArgs["path"] != "b.txt" {
		t.Errorf("decision %+v, want %+v", d, want)
	}
	if d := step.Decide(t.Context(), &policy.Call{ID: "c2", Name: "read_file"}); d.Verdict != policy.None || d.By != "" {
		t.Errorf("a hook that failed decided %+v", d)
	}
	if len(warned) != 2 || warned[0] != "a hook says: checked" || !strings.Contains(warned[1], "for read_file: exited with status 3") {
		t.Errorf("warned %q", warned)
	}
	after := r.After("/t/out.jsonl")
	if got := after(t.Context(), &policy.Call{ID: "c3", Name: "read_file"}, json.RawMessage(`"x"`)); got != "one\n\ntwo" {
		t.Errorf("feedback %q, want both hooks' in the order declared", got)
	}
	if New(Options{Hooks: r.opts.Hooks[:1]}).After("") != nil {
		t.Error("a step after the call with no PostToolUse hook")
	}
}

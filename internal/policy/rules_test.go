package policy

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestRuleMatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule string
		tool string
		args map[string]any
		want bool
	}{
		{"write_file", "write_file", nil, true},
		{"write_file", "read_file", nil, false},
		{"*_file", "read_file", nil, true},
		{"fs__*", "fs__write", nil, true},
		{"fs__*", "gh__fs__write", nil, false},
		// Claude Code's names of an MCP server's tools mean the same.
		{"mcp__fs__*", "fs__write", nil, true},
		{"mcp__fs__write", "fs__write", nil, true},
		{"mcp__fs__*", "gh__fs__write", nil, false},
		{"mcp__*", "write_file", nil, false},
		{"mcp__*", "gh__issue", nil, true},
		{"write_file(path=docs/**)", "write_file", map[string]any{"path": "docs/a/b.md"}, true},
		{"write_file(path=docs/**)", "write_file", map[string]any{"path": "src/a.go"}, false},
		{"write_file(path=docs/*)", "write_file", map[string]any{"path": "docs/a/b.md"}, false},
		{"write_file(path=docs/*)", "write_file", map[string]any{"path": "docs/b.md"}, true},
		// A path written another way is the same path.
		{"write_file(path=.git/**)", "write_file", map[string]any{"path": "./.git/config"}, true},
		{"write_file(path=.git/**)", "write_file", map[string]any{"path": "docs/../.git/hooks/pre-commit"}, true},
		{"write_file(path=docs/**)", "write_file", map[string]any{}, false},
		{"run_tests(args=--short*)", "run_tests", map[string]any{"args": "--short -v"}, true},
		{"run_tests(args=--short*)", "run_tests", map[string]any{"args": "-v --short"}, false},
		{"calc(n=4?)", "calc", map[string]any{"n": 42.0}, true},
		{"calc(n=true)", "calc", map[string]any{"n": true}, true},
		{"w(path=docs/**, mode=a*)", "w", map[string]any{"path": "docs/x", "mode": "append"}, true},
		{"w(path=docs/**, mode=a*)", "w", map[string]any{"path": "docs/x", "mode": "truncate"}, false},
		{`w(path=[!.]*)`, "w", map[string]any{"path": ".env"}, false},
		{`w(path=[!.]*)`, "w", map[string]any{"path": "env"}, true},
		{`w(path=a\*)`, "w", map[string]any{"path": "a*"}, true},
		{`w(path=a\*)`, "w", map[string]any{"path": "ab"}, false},
		// A value that holds a line break is matched whole: ** is any
		// run at all, a file name or a command of several lines too.
		{"write_file(path=secrets/**)", "write_file", map[string]any{"path": "secrets/x\ny"}, true},
		{"sh(cmd=**rm -rf**)", "sh", map[string]any{"cmd": "echo hi\nrm -rf /"}, true},
		{"sh(cmd=echo *)", "sh", map[string]any{"cmd": "echo hi\nrm -rf x"}, true},
		{"sh(cmd=echo?hi)", "sh", map[string]any{"cmd": "echo\nhi"}, true},
	} {
		r, err := ParseRule(Deny, tc.rule, "--deny")
		if err != nil {
			t.Errorf("%s: %v", tc.rule, err)
			continue
		}
		if got := r.Matches(tc.tool, tc.args); got != tc.want {
			t.Errorf("%s on %s(%v): %v, want %v", tc.rule, tc.tool, tc.args, got, tc.want)
		}
	}
}

// A long argument is matched in time linear in its length, whatever the
// pattern: a model chooses the value.
func TestRuleLongValue(t *testing.T) {
	t.Parallel()
	r, err := ParseRule(Deny, "w(path=**a**a**a**a**b)", "--deny")
	if err != nil {
		t.Fatal(err)
	}
	if r.Matches("w", map[string]any{"path": strings.Repeat("a", 1<<16)}) {
		t.Error("matched a value without b")
	}
}

func TestRuleMistakes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ rule, msg string }{
		{"", "no tool"},
		{"(path=x)", "no tool"},
		{"write file", "no tool name or glob"},
		{"write_file(path=x", "no closing parenthesis"},
		{"write_file()", "empty parentheses"},
		{"write_file(path)", "no argument pattern"},
		{"write_file(=x)", "no argument pattern"},
		{"write_file(path=[x)", "a [ without its ]"},
		{"write_[file", "no glob"},
		{`w(path=x\)`, `quotes nothing`},
	} {
		_, err := ParseRule(Allow, tc.rule, "kesoku.yaml:3:5")
		var re *RuleError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "kesoku.yaml:3:5: rule ") {
			t.Errorf("%q: %v, want a RuleError saying %q", tc.rule, err, tc.msg)
		}
	}
}

func TestRulesDenyBeatsAskBeatsAllow(t *testing.T) {
	t.Parallel()
	var rs Rules
	for _, r := range []struct {
		v    Verdict
		text string
	}{{Allow, "*"}, {Ask, "write_file"}, {Deny, "write_file(path=.git/**)"}, {Allow, "write_file(path=docs/**)"}} {
		rule, err := ParseRule(r.v, r.text, "--"+r.v.String())
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, rule)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		tool, path string
		want       Verdict
		by         string
	}{
		{"read_file", "x", Allow, `allow rule "*" (--allow)`},
		{"write_file", "docs/a.md", Ask, `ask rule "write_file" (--ask)`},
		{"write_file", ".git/config", Deny, `deny rule "write_file(path=.git/**)" (--deny)`},
	} {
		d := rs.Decide(ctx, &Call{Name: tc.tool, Args: map[string]any{"path": tc.path}})
		if d.Verdict != tc.want || d.By != tc.by {
			t.Errorf("%s(%s): %v by %q, want %v by %q", tc.tool, tc.path, d.Verdict, d.By, tc.want, tc.by)
		}
	}
	if d := (Rules{}).Decide(ctx, &Call{Name: "x"}); d.Verdict != None {
		t.Errorf("no rules: %+v", d)
	}
	for tool, want := range map[string]string{"read_file": "allow", "write_file": "ask; some calls deny", "other": "allow"} {
		if got := rs.ForTool(tool).String(); got != want {
			t.Errorf("ForTool(%s) = %q, want %q", tool, got, want)
		}
	}
}

// An absolute path inside a directory the tools read relative paths in
// is matched as the relative path too; one outside as written.
func TestRuleAbsolutePath(t *testing.T) {
	t.Parallel()
	r, err := ParseRule(Deny, "write_file(path=secrets/**)", "--deny")
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{"/work/awd", "/work/staging/"}
	for p, want := range map[string]bool{
		"/work/awd/secrets/x":           true,
		"/work/awd/./docs/../secrets/x": true,
		"/work/staging/secrets/x":       true,
		"/work/awd2/secrets/x":          false,
		"/elsewhere/secrets/x":          false,
		"/work/awd":                     false,
	} {
		if got := r.Matches("write_file", map[string]any{"path": p}, dirs...); got != want {
			t.Errorf("%s: %v, want %v", p, got, want)
		}
	}
}

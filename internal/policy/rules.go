package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Rule is one rule of permissions: allow, ask or deny the calls it
// matches. A rule is a tool's name or a glob of names (write_file,
// fs__*: an MCP server's tools are named SERVER__TOOL, or mcp__fs__* as
// Claude Code names them), optionally with
// argument patterns that must all match: write_file(path=docs/**),
// run_tests(args=--short*).
type Rule struct {
	// Verdict is Allow, Ask or Deny.
	Verdict Verdict
	// Text is the rule as written.
	Text string
	// Source is where it was written: a config file's place
	// (kesoku.yaml:4:5), or the flag (--deny).
	Source string

	tool string // a glob of tool names
	args []argPattern
}

// argPattern is NAME=PATTERN: the argument named must be given, and its
// value match the glob.
type argPattern struct {
	name, glob string
	re         *regexp.Regexp
}

// RuleError is a rule that cannot be read.
type RuleError struct {
	Text   string
	Source string
	Msg    string
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("%s: rule %q: %s", e.Source, e.Text, e.Msg)
}

// ParseRule reads text, a rule of verdict v written at source.
func ParseRule(v Verdict, text, source string) (Rule, error) {
	r := Rule{Verdict: v, Text: text, Source: source}
	fail := func(format string, a ...any) (Rule, error) {
		return Rule{}, &RuleError{Text: text, Source: source, Msg: fmt.Sprintf(format, a...)}
	}
	s := strings.TrimSpace(text)
	name, rest, hasArgs := strings.Cut(s, "(")
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return fail("no tool: a rule is a tool's name or a glob of names, optionally with argument patterns: write_file(path=docs/**)")
	case strings.ContainsAny(name, " \t)=,"):
		return fail("%q is no tool name or glob: a rule is NAME or NAME(ARG=PATTERN, ...)", name)
	}
	if _, err := path.Match(name, ""); err != nil {
		return fail("%q is no glob: %v", name, err)
	}
	r.tool = name
	if !hasArgs {
		return r, nil
	}
	inner, ok := strings.CutSuffix(strings.TrimSpace(rest), ")")
	if !ok {
		return fail("no closing parenthesis: write NAME(ARG=PATTERN, ...)")
	}
	if strings.TrimSpace(inner) == "" {
		return fail("empty parentheses: name the arguments to match (NAME(ARG=PATTERN)), or leave them out to match every call of the tool")
	}
	for part := range strings.SplitSeq(inner, ",") {
		arg, glob, ok := strings.Cut(part, "=")
		arg = strings.TrimSpace(arg)
		if !ok || arg == "" {
			return fail("%q is no argument pattern: write ARG=PATTERN", strings.TrimSpace(part))
		}
		if strings.ContainsAny(arg, " \t()*?[") {
			return fail("%q is no argument name", arg)
		}
		glob = strings.TrimSpace(glob)
		re, err := compileGlob(glob)
		if err != nil {
			return fail("%s=%s: %v", arg, glob, err)
		}
		r.args = append(r.args, argPattern{name: arg, glob: glob, re: re})
	}
	return r, nil
}

// Tool is the rule's glob of tool names.
func (r *Rule) Tool() string { return r.tool }

// Args are the names of the arguments the rule's patterns name.
func (r *Rule) Args() []string {
	names := make([]string, len(r.args))
	for i, a := range r.args {
		names[i] = a.name
	}
	return names
}

// Literal reports whether the rule names one tool (no glob).
func (r *Rule) Literal() bool { return !strings.ContainsAny(r.tool, "*?[\\") }

// Matches reports whether the rule applies to a call of tool with args,
// dirs being the directories a relative path is read in (Call.Dirs).
func (r *Rule) Matches(tool string, args map[string]any, dirs ...string) bool {
	if !r.matchesName(tool) {
		return false
	}
	for _, a := range r.args {
		v, given := args[a.name]
		if !given || !a.matches(v, dirs) {
			return false
		}
	}
	return true
}

// claudeMCP is how Claude Code begins the names of an MCP server's tools
// (mcp__SERVER__TOOL), which kesoku names SERVER__TOOL.
const claudeMCP = "mcp__"

// ClaudeName is Claude Code's name of tool (mcp__SERVER__TOOL) when tool
// is an MCP server's (SERVER__TOOL), so that what was written for Claude
// Code's settings — a rule, a hook's matcher — names the same tools here;
// ok is false for a tool of no server.
func ClaudeName(tool string) (name string, ok bool) {
	if !strings.Contains(tool, "__") {
		return "", false
	}
	return claudeMCP + tool, true
}

// matchesName reports whether the rule's glob matches tool: an MCP
// server's tool by kesoku's name or by Claude Code's, so that a rule
// copied from Claude Code's settings (mcp__fs__*) denies what it says
// rather than nothing.
func (r *Rule) matchesName(tool string) bool {
	if ok, _ := path.Match(r.tool, tool); ok {
		return true
	}
	alias, isMCP := ClaudeName(tool)
	if !isMCP || !strings.HasPrefix(r.tool, claudeMCP) {
		return false
	}
	ok, _ := path.Match(r.tool, alias)
	return ok
}

// matches reports whether a value matches the pattern: a string as it is,
// and as a path once cleaned (./docs/../x is x: a path written another way
// is the same path), an absolute one inside one of dirs as the path
// relative to it (the tools read it there), anything else by its JSON
// text.
func (a argPattern) matches(v any, dirs []string) bool {
	s, isString := v.(string)
	if !isString {
		b, err := json.Marshal(v)
		if err != nil {
			return false
		}
		s = string(b)
	}
	if a.re.MatchString(s) {
		return true
	}
	if !isString || s == "" {
		return false
	}
	clean := path.Clean(s)
	if clean != s && a.re.MatchString(clean) {
		return true
	}
	if path.IsAbs(clean) {
		for _, d := range dirs {
			if d == "" {
				continue
			}
			if rel, ok := strings.CutPrefix(clean, strings.TrimSuffix(path.Clean(d), "/")+"/"); ok && a.re.MatchString(rel) {
				return true
			}
		}
	}
	return false
}

// compileGlob compiles glob, in which * is any run of characters but /,
// ** any run at all, ? one character but /, [...] a class ([!...] or
// [^...] its complement) and \ quotes the next character: the globs of
// paths as .gitignore writes them. A regular expression, whose matching
// takes time linear in the value: a model's argument may be long. Its
// . matches a line break too (s): a value of several lines is matched
// whole, or a deny would miss a command with a second line.
func compileGlob(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*':
			if i+1 < len(glob) && glob[i+1] == '*' {
				b.WriteString(`.*`)
				i++
			} else {
				b.WriteString(`[^/]*`)
			}
		case '?':
			b.WriteString(`[^/]`)
		case '\\':
			if i+1 == len(glob) {
				return nil, errors.New(`a \ at the end quotes nothing`)
			}
			i++
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		case '[':
			end := strings.IndexByte(glob[i+1:], ']')
			if end < 0 {
				return nil, errors.New("a [ without its ]")
			}
			class := glob[i+1 : i+1+end]
			if class == "" {
				return nil, errors.New("an empty class []")
			}
			if class[0] == '!' {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`$`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("not a glob: %v", err)
	}
	return re, nil
}

// By is what a decision made by r says decided it:
// deny rule "write_file" (--deny).
func (r *Rule) By() string {
	return fmt.Sprintf("%s rule %q (%s)", r.Verdict, r.Text, r.Source)
}

// Rules are the rules of permissions in force, a step of the chain: of
// the rules that match a call, deny beats ask beats allow; a call no rule
// matches gets no verdict from them (and runs, unless a later step says
// otherwise).
type Rules []Rule

// Decide returns the verdict of the strongest rule that matches c.
func (rs Rules) Decide(_ context.Context, c *Call) Decision {
	var best *Rule
	for i := range rs {
		r := &rs[i]
		if (best == nil || r.Verdict > best.Verdict) && r.Matches(c.Name, c.Args, c.Dirs...) {
			best = r
		}
	}
	if best == nil {
		return Decision{}
	}
	return Decision{Verdict: best.Verdict, By: best.By()}
}

// ToolDecision is what the rules decide of a tool's calls: Verdict for a
// call whose arguments no pattern matches, and Some, the strongest
// verdict of the rules that decide some of its calls by their arguments
// when it is stronger (allow, but deny when path=/etc/**).
type ToolDecision struct {
	Verdict, Some Verdict
}

// String is "allow", "deny", or "allow; some calls deny".
func (d ToolDecision) String() string {
	v := d.Verdict
	if v == None {
		v = Allow
	}
	if d.Some > v {
		return fmt.Sprintf("%s; some calls %s", v, d.Some)
	}
	return v.String()
}

// ForTool is what the rules decide of the calls of tool.
func (rs Rules) ForTool(tool string) ToolDecision {
	var d ToolDecision
	for i := range rs {
		r := &rs[i]
		if !r.matchesName(tool) {
			continue
		}
		if len(r.args) == 0 {
			d.Verdict = max(d.Verdict, r.Verdict)
		} else {
			d.Some = max(d.Some, r.Verdict)
		}
	}
	if d.Some <= d.Verdict {
		d.Some = None
	}
	return d
}

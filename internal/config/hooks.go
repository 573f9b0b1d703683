package config

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// HooksKey is the section of hooks, in the shape of Claude Code's
// settings, so that a hooks section copied from there means the same
// here:
//
//	hooks:
//	  PreToolUse:
//	    - matcher: write_file|edit_file
//	      hooks:
//	        - type: command
//	          command: ./check.sh
//	          timeout: 30
//	  PostToolUse: [...]
const HooksKey = "hooks"

// The events a hook runs at.
const (
	// PreToolUse runs before a call, and may decide it.
	PreToolUse = "PreToolUse"
	// PostToolUse runs after a call, with what it returned.
	PostToolUse = "PostToolUse"
)

// HookEvents are the events kesoku runs hooks at, in the order of a call.
var HookEvents = []string{PreToolUse, PostToolUse}

// MaxHookTimeout bounds a hook's timeout: a hook that may take longer
// than a day is a mistake in the file, not a hook.
const MaxHookTimeout = 24 * time.Hour

// hookGroupKeys and hookKeys are the keys of a matcher group and of one
// hook.
var (
	hookGroupKeys = []string{"matcher", "hooks"}
	hookKeys      = []string{"type", "command", "timeout"}
)

// Hook is one hook program of a hooks: section.
type Hook struct {
	// Event is PreToolUse or PostToolUse.
	Event string
	// Matcher is the matcher as written: "" (or "*", or none) matches
	// every tool; names of letters, digits, _ and -, joined by |, match
	// those names exactly; anything else is a regular expression that
	// matches anywhere in the tool's name.
	Matcher string
	// Command is run by sh -c, in the working directory.
	Command string
	// Timeout is how long it may run; 0 is the default.
	Timeout time.Duration
	// Pos is where its command is.
	Pos yamlpos.Pos

	names []string       // exact names, when the matcher is a list of names
	re    *regexp.Regexp // the expression, when it is one
}

// Matches reports whether h runs for a call of the tool named tool.
// An MCP server's tool, which kesoku names SERVER__TOOL, is matched by
// Claude Code's name of it too (mcp__SERVER__TOOL): a guard copied from
// Claude Code's settings runs for the tools it names, rather than never.
func (h *Hook) Matches(tool string) bool {
	if h.matches(tool) {
		return true
	}
	alias, isMCP := policy.ClaudeName(tool)
	return isMCP && (h.re != nil || h.names != nil) && h.matches(alias)
}

func (h *Hook) matches(tool string) bool {
	switch {
	case h.re != nil:
		return h.re.MatchString(tool)
	case h.names != nil:
		return slices.Contains(h.names, tool)
	}
	return true
}

// Names are the tools the matcher names exactly, none when it matches
// every tool or is an expression; Expression says it is one.
func (h *Hook) Names() []string { return h.names }

// Expression reports whether the matcher is a regular expression.
func (h *Hook) Expression() bool { return h.re != nil }

// Hooks are the hooks of the files in use, the user's first, each file's
// in the order written.
func (c *Config) Hooks() []*Hook {
	if c == nil {
		return nil
	}
	var out []*Hook
	for _, f := range c.Files {
		out = append(out, f.Hooks...)
	}
	return out
}

// parseHooks reads a hooks: section into f.Hooks, every value checked
// where it stands.
func (f *File) parseHooks(m *ast.MappingNode) error {
	at := func(n ast.Node, format string, args ...any) error {
		return &Error{Pos: yamlpos.Of(f.Path, n), Msg: fmt.Sprintf(format, args...)}
	}
	for _, mv := range m.Values {
		event, ok := yamlpos.ScalarText(mv.Key)
		if !ok || !slices.Contains(HookEvents, event) {
			msg := fmt.Sprintf("hooks: %s: kesoku runs hooks at %s", quoteKey(event), describe(HookEvents))
			if s := suggest(event, HookEvents); s != "" {
				msg = fmt.Sprintf("hooks: unknown event %s (did you mean %q?): kesoku runs hooks at %s", quoteKey(event), s, describe(HookEvents))
			}
			return at(mv.Key, "%s", msg)
		}
		var groups []ast.Node
		switch v := mv.Value.(type) {
		case nil, *ast.NullNode:
			continue
		case *ast.SequenceNode:
			groups = v.Values
		default:
			return at(mv.Value, "hooks.%s: want a list of {matcher, hooks}, not %s", event, yamlpos.KindOf(mv.Value))
		}
		for i, g := range groups {
			what := fmt.Sprintf("hooks.%s[%d]", event, i)
			hooks, err := f.parseHookGroup(event, what, g, at)
			if err != nil {
				return err
			}
			f.Hooks = append(f.Hooks, hooks...)
		}
	}
	return nil
}

// parseHookGroup reads one {matcher, hooks} of event.
func (f *File) parseHookGroup(event, what string, g ast.Node, at func(ast.Node, string, ...any) error) ([]*Hook, error) {
	gm := yamlpos.Mapping(g)
	if gm == nil {
		return nil, at(g, "%s: want {matcher: NAME, hooks: [...]}, not %s", what, yamlpos.KindOf(g))
	}
	var matcher string
	var names []string
	var re *regexp.Regexp
	var list *ast.SequenceNode
	for _, mv := range gm.Values {
		key, err := f.knownKey(mv.Key, what, hookGroupKeys)
		if err != nil {
			return nil, err
		}
		switch key {
		case "matcher":
			text, ok := yamlpos.ScalarText(mv.Value)
			if !ok {
				return nil, at(mv.Value, "%s.matcher: want a tool's name or a regular expression, not %s", what, yamlpos.KindOf(mv.Value))
			}
			matcher = text
			if names, re, err = compileMatcher(text); err != nil {
				return nil, at(mv.Value, "%s.matcher: %v", what, err)
			}
		case "hooks":
			seq, ok := mv.Value.(*ast.SequenceNode)
			if !ok {
				return nil, at(mv.Value, "%s.hooks: want a list of {type: command, command: CMD}, not %s", what, yamlpos.KindOf(mv.Value))
			}
			list = seq
		}
	}
	if list == nil {
		return nil, at(first(gm, g), "%s: no hooks: want {matcher: NAME, hooks: [{type: command, command: CMD}]}", what)
	}
	var out []*Hook
	for i, item := range list.Values {
		h, err := f.parseHook(fmt.Sprintf("%s.hooks[%d]", what, i), item, at)
		if err != nil {
			return nil, err
		}
		h.Event, h.Matcher, h.names, h.re = event, matcher, names, re
		out = append(out, h)
	}
	return out, nil
}

// parseHook reads one {type: command, command, timeout}.
func (f *File) parseHook(what string, item ast.Node, at func(ast.Node, string, ...any) error) (*Hook, error) {
	hm := yamlpos.Mapping(item)
	if hm == nil {
		return nil, at(item, "%s: want {type: command, command: CMD}, not %s", what, yamlpos.KindOf(item))
	}
	h := &Hook{}
	var typ ast.Node
	for _, mv := range hm.Values {
		key, err := f.knownKey(mv.Key, what, hookKeys)
		if err != nil {
			return nil, err
		}
		text, ok := yamlpos.ScalarText(mv.Value)
		if !ok {
			return nil, at(mv.Value, "%s.%s: want a value, not %s", what, key, yamlpos.KindOf(mv.Value))
		}
		switch key {
		case "type":
			typ = mv.Value
			if text != "command" {
				return nil, at(mv.Value, "%s.type: %s: kesoku runs hooks of type command (a program) only", what, strconv.Quote(text))
			}
		case "command":
			if strings.TrimSpace(text) == "" {
				return nil, at(mv.Value, "%s.command: empty: want the command to run", what)
			}
			if strings.IndexByte(text, 0) >= 0 {
				return nil, at(mv.Value, "%s.command: holds a NUL byte, which no command line can hold", what)
			}
			h.Command, h.Pos = text, yamlpos.Of(f.Path, mv.Value)
		case "timeout":
			secs, err := strconv.ParseFloat(text, 64)
			if err != nil || math.IsNaN(secs) || secs <= 0 || secs > MaxHookTimeout.Seconds() {
				return nil, at(mv.Value, "%s.timeout: %s: want a number of seconds, more than 0 and at most %d", what, strconv.Quote(text), int(MaxHookTimeout.Seconds()))
			}
			h.Timeout = time.Duration(secs * float64(time.Second))
		}
	}
	switch {
	case typ == nil:
		return nil, at(first(hm, item), "%s: no type: want type: command", what)
	case h.Command == "":
		return nil, at(first(hm, item), "%s: no command: want the command to run", what)
	}
	return h, nil
}

// first is where a mapping's first key is, where a mistake about the
// whole mapping is told: n, the mapping's node, when it has none.
func first(m *ast.MappingNode, n ast.Node) ast.Node {
	if len(m.Values) > 0 {
		return m.Values[0].Key
	}
	return n
}

// knownKey is the text of key, which must be one of known.
func (f *File) knownKey(key ast.Node, what string, known []string) (string, error) {
	text, ok := yamlpos.ScalarText(key)
	if ok && slices.Contains(known, text) {
		return text, nil
	}
	msg := fmt.Sprintf("%s: unknown key %s", what, quoteKey(text))
	if s := suggest(text, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return "", &Error{Pos: yamlpos.Of(f.Path, key), Msg: msg + ": want " + describe(known)}
}

// compileMatcher reads a matcher as Claude Code does: "" or "*" matches
// every tool; names of letters, digits, _ and - (joined by |) match
// exactly; anything else is a regular expression that matches anywhere
// in the name.
func compileMatcher(text string) (names []string, re *regexp.Regexp, err error) {
	if text == "" || text == "*" {
		return nil, nil, nil
	}
	if strings.Trim(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-| ") == "" {
		for n := range strings.SplitSeq(text, "|") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			return names, nil, nil
		}
	}
	re, err = regexp.Compile(text)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a regular expression: %v", strconv.Quote(text), strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	return nil, re, nil
}

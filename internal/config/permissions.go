package config

import (
	"fmt"

	"github.com/goccy/go-yaml/ast"

	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// PermissionsKey is the section of the rules of which tool calls run:
//
//	permissions:
//	  allow: [read_file]
//	  ask: [write_file]
//	  deny: ["write_file(path=.git/**)", "fs__*"]
const PermissionsKey = "permissions"

// permissionLists are the lists of the section, in the order a message
// names them, with the verdict of each.
var permissionLists = []struct {
	key     string
	verdict policy.Verdict
}{{"allow", policy.Allow}, {"ask", policy.Ask}, {"deny", policy.Deny}}

// parsePermissions reads a permissions: section into f.Permissions, each
// rule checked where it stands.
func (f *File) parsePermissions(m *ast.MappingNode) error {
	keys := []string{"allow", "ask", "deny"}
	for _, mv := range m.Values {
		key, _ := yamlpos.ScalarText(mv.Key)
		at := f.pos(mv.Key.GetToken())
		var verdict policy.Verdict
		for _, l := range permissionLists {
			if l.key == key {
				verdict = l.verdict
			}
		}
		if verdict == policy.None {
			msg := fmt.Sprintf("%s: unknown key %s", PermissionsKey, quoteKey(key))
			if s := suggest(key, keys); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return &Error{Pos: at, Msg: msg + ": want " + describe(keys) + ", each a list of rules"}
		}
		var items []ast.Node
		switch x := mv.Value.(type) {
		case nil, *ast.NullNode:
			continue
		case *ast.SequenceNode:
			items = x.Values
		default:
			if _, ok := yamlpos.ScalarText(x); !ok {
				return &Error{Pos: f.pos(x.GetToken()), Msg: fmt.Sprintf("%s: %s: want a list of rules, not %s", PermissionsKey, key, yamlpos.KindOf(x))}
			}
			items = []ast.Node{x} // one rule, as a flag gives one
		}
		for _, item := range items {
			text, ok := yamlpos.ScalarText(item)
			pos := f.pos(item.GetToken())
			if !ok {
				return &Error{Pos: pos, Msg: fmt.Sprintf("%s: %s: a rule is a tool's name or glob, with argument patterns in parentheses, not %s", PermissionsKey, key, yamlpos.KindOf(item))}
			}
			r, err := policy.ParseRule(verdict, text, pos.String())
			if err != nil {
				re := err.(*policy.RuleError)
				return &Error{Pos: pos, Msg: fmt.Sprintf("%s: %s: rule %q: %s", PermissionsKey, key, text, re.Msg)}
			}
			f.Permissions = append(f.Permissions, r)
		}
	}
	return nil
}

// Permissions are the rules of every file in use, the user's first:
// all of them apply (deny beats ask beats allow, whoever wrote them).
func (c *Config) Permissions() policy.Rules {
	if c == nil {
		return nil
	}
	var rs policy.Rules
	for _, f := range c.Files {
		rs = append(rs, f.Permissions...)
	}
	return rs
}

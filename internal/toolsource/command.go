package toolsource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/tooldoc"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// commandKeys are the keys of a command tool's declaration.
var commandKeys = []string{"description", "command", "parameters", "env", "positional_only", "timeout", "read_only"}

// commandTool is a command tool as declared.
type commandTool struct {
	name        string
	description string
	// argv is the command, each element split into literal text and
	// placeholders.
	argv [][]segment
	// dir is the directory of the file that declares the tool: a program
	// named by a relative path is found from there.
	dir      string
	schema   *argSchema
	timeout  time.Duration
	readOnly bool
	pos      yamlpos.Pos
	// env is what the declaration's env: sets, ${VAR} expanded when the
	// program starts: on top of the variables every program gets, and
	// all of kesoku's environment it gets.
	env       []entry
	envValues map[string]string
	// positional are the parameters whose values may never begin with -
	// (positional_only): the program would take such a value for an
	// option.
	positional []string
}

// segment is literal text, or a placeholder naming a parameter.
type segment struct {
	text  string
	param bool
}

// emptyParameters is the schema of a tool declared without parameters: it
// takes none.
const emptyParameters = `{"type":"object","properties":{},"additionalProperties":false}`

// parseCommandTool reads the declaration of the command tool name, at
// keyN in file, whose value is v.
func parseCommandTool(file string, name string, keyN, v ast.Node) (*commandTool, error) {
	what := "tools." + name
	if !toolspec.ValidName(name) {
		return nil, errAt(file, keyN, "%s: the name %q does not match %s: every provider refuses it", what, name, toolspec.NamePattern)
	}
	m := yamlpos.Mapping(v)
	if m == nil {
		return nil, errAt(file, v, "%s: want a mapping with command, parameters and description, not %s", what, yamlpos.KindOf(v))
	}
	es, err := entries(file, m, what, commandKeys)
	if err != nil {
		return nil, err
	}
	t := &commandTool{name: name, dir: filepath.Dir(file), pos: yamlpos.Of(file, keyN)}
	var cmdNodes []ast.Node
	var paramsNode ast.Node
	var positionalNodes []ast.Node
	for _, e := range es {
		switch e.key {
		case "description":
			if t.description, err = stringValue(file, e.value, what+".description"); err != nil {
				return nil, err
			}
		case "command":
			var argv []string
			if argv, cmdNodes, err = stringList(file, e.value, what+".command"); err != nil {
				return nil, errAt(file, e.value, "%s.command: want the program and its arguments as a list ([python3, wc.py]), never a shell line, not %s", what, yamlpos.KindOf(e.value))
			}
			for i, a := range argv {
				segs, err := splitPlaceholders(a)
				if err != nil {
					return nil, errAt(file, cmdNodes[i], "%s.command[%d]: %v", what, i, err)
				}
				t.argv = append(t.argv, segs)
			}
		case "parameters":
			paramsNode = e.value
		case "env":
			if t.env, t.envValues, err = stringMap(file, e.value, what+".env"); err != nil {
				return nil, err
			}
		case "positional_only":
			if t.positional, positionalNodes, err = stringList(file, e.value, what+".positional_only"); err != nil {
				return nil, err
			}
		case "timeout":
			if t.timeout, err = durationValue(file, e.value, what+".timeout"); err != nil {
				return nil, err
			}
		case "read_only":
			if t.readOnly, err = boolValue(file, e.value, what+".read_only"); err != nil {
				return nil, err
			}
		}
	}
	if len(t.argv) == 0 || len(t.argv[0]) == 0 {
		return nil, errAt(file, keyN, "%s: no command: want command: [program, args...]", what)
	}
	for _, s := range t.argv[0] {
		if s.param {
			return nil, errAt(file, cmdNodes[0], "%s.command[0]: the program cannot be a placeholder: a model would choose what runs", what)
		}
	}
	raw := []byte(emptyParameters)
	if paramsNode != nil {
		if raw, err = jsonBytes(file, paramsNode); err != nil {
			return nil, fmt.Errorf("%w (in %s.parameters)", err, what)
		}
		raw = closed(raw)
	}
	if t.schema, err = compileArgSchema(name, raw, false); err != nil {
		at := paramsNode
		if se, ok := err.(*schemaError); ok && paramsNode != nil {
			at = nodeAt(paramsNode, se.Pointer)
		}
		if at == nil {
			at = keyN
		}
		return nil, errAt(file, at, "%s.parameters: %v", what, err)
	}
	if se := t.schema.declarationMistake(); se != nil {
		return nil, errAt(file, nodeAt(paramsNode, se.Pointer), "%s.parameters: %s", what, se.Msg)
	}
	declared := t.schema.declaredNames()
	// Each parameter reaches the program as KESOKU_ARG_<NAME>: two names
	// that make one variable would leave the program one of the two
	// values, whichever was set last.
	vars := map[string]string{}
	for _, name := range declared {
		v := "KESOKU_ARG_" + envName(name)
		if prev, ok := vars[v]; ok {
			// Named where the second of the two is declared.
			first, second := nodeAt(paramsNode, []string{"properties", prev}), nodeAt(paramsNode, []string{"properties", name})
			if p, q := yamlpos.Of(file, second), yamlpos.Of(file, first); p.Line < q.Line || p.Line == q.Line && p.Col < q.Col {
				prev, name, second = name, prev, first
			}
			return nil, errAt(file, second,
				"%s.parameters: %q and %q are both %s in the program's environment: give them names that differ in more than case, - and _", what, prev, name, v)
		}
		vars[v] = name
	}
	// A placeholder names a parameter the schema declares: a typo would
	// otherwise run the program with an empty argument.
	for i, segs := range t.argv {
		for _, s := range segs {
			if s.param && !slices.Contains(declared, s.text) {
				msg := fmt.Sprintf("%s.command[%d]: {{%s}} names no parameter", what, i, s.text)
				if sug := english.Suggest(s.text, declared); sug != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", sug)
				}
				if len(declared) == 0 {
					msg += ": the tool declares no parameters"
				} else {
					msg += ": want one of " + strings.Join(declared, ", ")
				}
				return nil, errAt(file, cmdNodes[i], "%s", msg)
			}
		}
	}
	if err := t.checkPositional(file, positionalNodes, declared); err != nil {
		return nil, err
	}
	return t, nil
}

// checkPositional refuses a positional_only entry that protects nothing:
// a name that is no parameter, or a parameter no element of the command
// holds.
func (t *commandTool) checkPositional(file string, items []ast.Node, declared []string) error {
	what := "tools." + t.name + ".positional_only"
	for i, name := range t.positional {
		if !slices.Contains(declared, name) {
			msg := fmt.Sprintf("%s[%d]: %q names no parameter", what, i, name)
			if sug := english.Suggest(name, declared); sug != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", sug)
			}
			return errAt(file, items[i], "%s", msg)
		}
		if !t.inCommand(name) {
			return errAt(file, items[i], "%s[%d]: {{%s}} is in no element of command: only a placeholder's value can be taken for an option", what, i, name)
		}
	}
	return nil
}

// inCommand reports whether a placeholder of the command names param.
func (t *commandTool) inCommand(param string) bool {
	for _, segs := range t.argv {
		for _, s := range segs {
			if s.param && s.text == param {
				return true
			}
		}
	}
	return false
}

// optionLike refuses a value of a positional_only parameter that begins
// with -: in its place in the command, the program would read it as an
// option (git log's --output=FILE writes a file wherever it names).
func (t *commandTool) optionLike(args map[string]any) error {
	var problems []*toolspec.ArgError
	for _, name := range t.positional {
		text := scalarText(args[name])
		if strings.HasPrefix(text, "-") {
			problems = append(problems, &toolspec.ArgError{
				Path:     name,
				Problem:  fmt.Sprintf("begins with -, which the program would take for an option: %q", text),
				Expected: fmt.Sprintf("a value that does not begin with - ({{%s}} is positional only)", name),
			})
		}
	}
	if problems != nil {
		return &toolspec.ArgsError{Tool: t.name, Problems: problems}
	}
	return nil
}

// closed is a parameters schema object that refuses the arguments it does
// not declare, unless it says otherwise: as for a Go tool, a misspelt
// argument is an error with "did you mean", not an argument the program
// never sees. A schema that is not an object is left for the compiler to
// refuse.
func closed(raw []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return raw
	}
	if _, ok := m["additionalProperties"]; ok {
		return raw
	}
	if _, ok := m["type"]; !ok {
		return raw
	}
	body := bytes.TrimSpace(raw)
	if len(m) == 0 {
		return []byte(`{"additionalProperties":false}`)
	}
	return append(append([]byte(nil), body[:len(body)-1]...), `,"additionalProperties":false}`...)
}

// declarationMistake finds what a JSON Schema compiler lets through in
// a command tool's parameters but no call survives: a required argument
// that a closed schema does not declare (every call is refused), a
// default that the parameter's own schema refuses (the program would get
// a value its declaration says it never gets).
func (a *argSchema) declarationMistake() *schemaError {
	props, _ := a.doc["properties"].(map[string]any)
	if a.doc["additionalProperties"] == false {
		req, _ := a.doc["required"].([]any)
		for i, r := range req {
			if name, ok := r.(string); ok && props[name] == nil {
				return &schemaError{Pointer: []string{"required", strconv.Itoa(i)},
					Msg: fmt.Sprintf("required: %q is not among the properties, and the schema allows no other argument: no call could succeed", name)}
			}
		}
	}
	for _, name := range a.declaredNames() {
		p, _ := props[name].(map[string]any)
		d, ok := p["default"]
		if !ok {
			continue
		}
		var ae *toolspec.ArgsError
		if !errors.As(a.check(map[string]any{name: d}), &ae) {
			continue
		}
		for _, pr := range ae.Problems {
			if pr.Path == name || strings.HasPrefix(pr.Path, name+".") || strings.HasPrefix(pr.Path, name+"[") {
				return &schemaError{Pointer: []string{"properties", name, "default"},
					Msg: fmt.Sprintf("properties.%s.default does not fit its own schema: %v", name, pr)}
			}
		}
	}
	return nil
}

// declaredNames are the top-level properties the schema declares, sorted.
func (a *argSchema) declaredNames() []string {
	props, _ := a.doc["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// splitPlaceholders splits an element of a command into text and
// placeholders: "--lang={{lang}}" is "--lang=" then lang. Only {{name}}
// (spaces allowed inside the braces) with a name a parameter can have is
// a placeholder; other text in braces, such as docker's
// --format={{.State.Status}}, is left as it is.
func splitPlaceholders(s string) ([]segment, error) {
	var out []segment
	lit := func(t string) {
		if t == "" {
			return
		}
		if n := len(out); n > 0 && !out[n-1].param {
			out[n-1].text += t
			return
		}
		out = append(out, segment{text: t})
	}
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			lit(s)
			if len(out) == 0 {
				out = append(out, segment{}) // an empty argument is an argument
			}
			return out, nil
		}
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			lit(s)
			return out, nil
		}
		name := strings.TrimSpace(s[i+2 : i+2+j])
		if !placeholderName(name) {
			lit(s[:i+2+j+2])
			s = s[i+2+j+2:]
			continue
		}
		lit(s[:i])
		out = append(out, segment{text: name, param: true})
		s = s[i+2+j+2:]
	}
}

// placeholderName reports whether name can be a placeholder: letters,
// digits, _ and -, not starting with a digit or -.
func placeholderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && (c == '-' || '0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}

// spec is the registry entry of the tool; run runs its calls.
func (t *commandTool) spec(run func(ctx context.Context, t *commandTool, args map[string]any) (any, error)) *toolset.Tool {
	return &toolset.Tool{
		Name:        t.name,
		Summary:     tooldoc.Summary(t.description),
		Description: strings.TrimSpace(t.description),
		Params:      t.schema.params(),
		Writes:      !t.readOnly,
		Source:      t.pos.String(),
		RawSchema:   t.schema.raw,
		Check:       t.check,
		Timeout:     t.timeout,
		Call: func(ctx context.Context, _ *registry.ToolContext, args map[string]any) (any, error) {
			return run(ctx, t, args)
		},
	}
}

// check checks a call's arguments against the parameters, then the
// values of positional_only parameters (with their defaults: what the
// program would get).
func (t *commandTool) check(args map[string]any) error {
	if err := t.schema.check(args); err != nil {
		return err
	}
	return t.optionLike(t.schema.withDefaults(args))
}

// withDefaults returns args with the defaults the schema declares for the
// top-level parameters a call left out: what the program receives, on
// standard input, in the environment and in placeholders.
func (a *argSchema) withDefaults(args map[string]any) map[string]any {
	props, _ := a.doc["properties"].(map[string]any)
	var out map[string]any
	for name, p := range props {
		if _, given := args[name]; given {
			continue
		}
		ps, _ := p.(map[string]any)
		d, ok := ps["default"]
		if !ok {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(args)+1)
			for k, v := range args {
				out[k] = v
			}
		}
		out[name] = d
	}
	if out == nil {
		return args
	}
	return out
}

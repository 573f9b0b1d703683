package toolsource

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// Declarations are read from the YAML nodes of a config file's sections,
// which keep where every value is: each mistake is reported at its line.

// errAt is a mistake at n, in the words of a config file's errors.
func errAt(file string, n ast.Node, format string, args ...any) error {
	return &config.Error{Pos: yamlpos.Of(file, n), Msg: fmt.Sprintf(format, args...)}
}

// entry is one key of a mapping: its text, the key node and the value.
type entry struct {
	key   string
	keyN  ast.Node
	value ast.Node
}

// entries lists a mapping's keys in order. what names the mapping in
// messages ("tools.word_count"); known, when not nil, are the keys it may
// have: any other is an error with "did you mean".
func entries(file string, m *ast.MappingNode, what string, known []string) ([]entry, error) {
	var out []entry
	for _, mv := range m.Values {
		k, ok := yamlpos.ScalarText(mv.Key)
		if !ok {
			return nil, errAt(file, mv.Key, "%s: a key must be a name, not %s", what, yamlpos.KindOf(mv.Key))
		}
		if known != nil && !slices.Contains(known, k) {
			msg := fmt.Sprintf("%s: unknown key %q", what, k)
			if s := english.Suggest(k, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, errAt(file, mv.Key, "%s: want %s", msg, strings.Join(known, ", "))
		}
		out = append(out, entry{key: k, keyN: mv.Key, value: mv.Value})
	}
	return out, nil
}

// stringValue reads a scalar as a string: a string as written, a number
// or boolean as its text.
func stringValue(file string, n ast.Node, what string) (string, error) {
	switch x := n.(type) {
	case *ast.StringNode:
		return x.Value, nil
	case *ast.LiteralNode:
		return x.Value.Value, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return x.GetToken().Value, nil
	}
	return "", errAt(file, n, "%s: want a string, not %s", what, yamlpos.KindOf(n))
}

// stringList reads a list of scalars.
func stringList(file string, n ast.Node, what string) ([]string, []ast.Node, error) {
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, nil, errAt(file, n, "%s: want a list of strings, not %s", what, yamlpos.KindOf(n))
	}
	out := make([]string, 0, len(seq.Values))
	for i, item := range seq.Values {
		s, err := stringValue(file, item, fmt.Sprintf("%s[%d]", what, i))
		if err != nil {
			return nil, nil, err
		}
		out = append(out, s)
	}
	return out, seq.Values, nil
}

// stringMap reads a mapping of names to scalars (env, headers).
func stringMap(file string, n ast.Node, what string) ([]entry, map[string]string, error) {
	m := yamlpos.Mapping(n)
	if m == nil {
		return nil, nil, errAt(file, n, "%s: want a mapping of names to strings, not %s", what, yamlpos.KindOf(n))
	}
	es, err := entries(file, m, what, nil)
	if err != nil {
		return nil, nil, err
	}
	out := make(map[string]string, len(es))
	for _, e := range es {
		s, err := stringValue(file, e.value, what+"."+e.key)
		if err != nil {
			return nil, nil, err
		}
		out[e.key] = s
	}
	return es, out, nil
}

// boolValue reads a boolean.
func boolValue(file string, n ast.Node, what string) (bool, error) {
	if b, ok := n.(*ast.BoolNode); ok {
		return b.Value, nil
	}
	return false, errAt(file, n, "%s: want true or false, not %s", what, yamlpos.KindOf(n))
}

// jsonBytes encodes a node as the JSON document it would be (see
// yamlpos.JSON), its mistakes in the words of a config file's errors.
func jsonBytes(file string, n ast.Node) ([]byte, error) {
	b, err := yamlpos.JSON(file, n)
	var ne *yamlpos.NodeError
	if errors.As(err, &ne) {
		return nil, &config.Error{Pos: ne.Pos, Msg: ne.Msg}
	}
	return b, err
}

// nodeAt follows JSON pointer tokens from n down its mappings and lists,
// and returns the deepest node it reached: where a mistake in a schema
// is, or as near as the pointer goes.
func nodeAt(n ast.Node, ptr []string) ast.Node {
	for _, t := range ptr {
		switch {
		case yamlpos.Mapping(n) != nil:
			var next ast.Node
			for _, mv := range yamlpos.Mapping(n).Values {
				if k, _ := yamlpos.ScalarText(mv.Key); k == t {
					next = mv.Value
					if next == nil || isNull(next) {
						next = mv.Key
					}
					break
				}
			}
			if next == nil {
				return n
			}
			n = next
		default:
			seq, ok := n.(*ast.SequenceNode)
			i, err := strconv.Atoi(t)
			if !ok || err != nil || i < 0 || i >= len(seq.Values) {
				return n
			}
			n = seq.Values[i]
		}
	}
	return n
}

func isNull(n ast.Node) bool {
	_, ok := n.(*ast.NullNode)
	return ok
}

// maxTimeout bounds a declared timeout, as --timeout is bounded.
const maxTimeout = 7 * 24 * time.Hour

// durationValue reads a timeout: a Go duration ("30s", "1m30s"), or a
// number of milliseconds as Gemini CLI's settings write one.
func durationValue(file string, n ast.Node, what string) (time.Duration, error) {
	var d time.Duration
	switch x := n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		ms, err := strconv.ParseFloat(x.GetToken().Value, 64)
		if err != nil || ms > float64(maxTimeout/time.Millisecond) {
			return 0, errAt(file, n, "%s: want a duration above 0 and at most %v", what, maxTimeout)
		}
		d = time.Duration(ms * float64(time.Millisecond))
	default:
		s, err := stringValue(file, n, what)
		if err != nil {
			return 0, errAt(file, n, "%s: want a duration such as 30s or 5m, not %s", what, yamlpos.KindOf(n))
		}
		if d, err = time.ParseDuration(s); err != nil {
			return 0, errAt(file, n, "%s: %q: want a duration such as 30s or 5m", what, s)
		}
	}
	if d <= 0 || d > maxTimeout {
		return 0, errAt(file, n, "%s: want a duration above 0 and at most %v", what, maxTimeout)
	}
	return d, nil
}

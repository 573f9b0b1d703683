package yamlpos

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/goccy/go-yaml/ast"
)

// NodeError is a mistake at a place in a file, found in its YAML tree.
type NodeError struct {
	Pos Pos
	Msg string
}

func (e *NodeError) Error() string { return e.Pos.Prefix(e.Msg) }

// JSON encodes a node of the file named file as the JSON document it
// would be, keys in the order written (a schema's properties keep the
// order they were declared in, which models tend to follow). Anchors,
// aliases, merges and tags are refused with a *NodeError: an alias can
// make a small file a huge value.
func JSON(file string, n ast.Node) ([]byte, error) {
	var b []byte
	fail := func(n ast.Node, format string, args ...any) error {
		return &NodeError{Pos: Of(file, n), Msg: fmt.Sprintf(format, args...)}
	}
	str := func(s string) {
		q, _ := json.Marshal(s)
		b = append(b, q...)
	}
	var enc func(n ast.Node) error
	enc = func(n ast.Node) error {
		switch x := n.(type) {
		case nil, *ast.NullNode:
			b = append(b, "null"...)
		case *ast.StringNode:
			str(x.Value)
		case *ast.LiteralNode:
			str(x.Value.Value)
		case *ast.BoolNode:
			b = strconv.AppendBool(b, x.Value)
		case *ast.IntegerNode:
			b = fmt.Append(b, x.Value)
		case *ast.FloatNode:
			if math.IsInf(x.Value, 0) || math.IsNaN(x.Value) {
				return fail(n, "%s is not a JSON number", x.GetToken().Value)
			}
			b = strconv.AppendFloat(b, x.Value, 'g', -1, 64)
		case *ast.SequenceNode:
			b = append(b, '[')
			for i, item := range x.Values {
				if i > 0 {
					b = append(b, ',')
				}
				if err := enc(item); err != nil {
					return err
				}
			}
			b = append(b, ']')
		case *ast.MappingNode, *ast.MappingValueNode:
			b = append(b, '{')
			for i, mv := range Mapping(n).Values {
				if _, ok := mv.Key.(*ast.MergeKeyNode); ok {
					return fail(mv.Key, "merge keys (<<) are not supported in config files")
				}
				k, ok := ScalarText(mv.Key)
				if !ok {
					return fail(mv.Key, "a key must be a name, not %s", KindOf(mv.Key))
				}
				if i > 0 {
					b = append(b, ',')
				}
				str(k)
				b = append(b, ':')
				if err := enc(mv.Value); err != nil {
					return err
				}
			}
			b = append(b, '}')
		default:
			return fail(n, "want a JSON value, not %s", KindOf(n))
		}
		return nil
	}
	if err := enc(n); err != nil {
		return nil, err
	}
	return b, nil
}

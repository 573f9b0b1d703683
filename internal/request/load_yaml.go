package request

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// maxBlockColumn bounds where a block collection may start: each level of
// block nesting needs a deeper indentation, so this bounds block nesting
// before the parser sees it.
const maxBlockColumn = 1000

// parseYAML parses a whole YAML file: one request, a list of requests, or
// {session_id: ..., requests: [...]}; several documents hold one of these
// each.
func (f *File) parseYAML(data []byte) (err error) {
	defer func() {
		// The YAML library is not ours; whatever input makes it panic is a
		// file that does not parse, not a crash.
		if v := recover(); v != nil {
			err = &ParseError{Pos: Position{File: f.Name}, Msg: fmt.Sprintf("invalid YAML: the parser failed: %v", v)}
		}
	}()
	idx := newLineIndex(data)
	fail := func(tk *token.Token, msg string) error {
		pos := tokenPos(f.Name, tk)
		return &ParseError{Pos: pos, Msg: msg, Source: sourceLine(data, idx, pos.Line)}
	}

	tokens := lexer.Tokenize(string(data))
	// The parser takes time quadratic in the nesting depth: refuse deep
	// nesting before it runs.
	flow := 0
	for _, tk := range tokens {
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			if flow++; flow > maxDepth {
				return fail(tk, fmt.Sprintf("invalid YAML: nesting deeper than %d levels", maxDepth))
			}
		case token.SequenceEndType, token.MappingEndType:
			if flow > 0 {
				flow--
			}
		case token.SequenceEntryType, token.MappingKeyType:
			if flow == 0 && tk.Position != nil && tk.Position.Column > maxBlockColumn {
				return fail(tk, fmt.Sprintf("invalid YAML: nesting deeper than %d columns of indentation", maxBlockColumn))
			}
		}
	}
	doc, perr := parser.Parse(tokens, 0)
	if perr != nil {
		var ye yaml.Error
		if errors.As(perr, &ye) {
			return fail(ye.GetToken(), "invalid YAML: "+ye.GetMessage())
		}
		return fail(nil, "invalid YAML: "+perr.Error())
	}

	c := &yamlConverter{anchors: map[string]*yamlAnchor{}, fail: fail}
	for _, d := range doc.Docs {
		if d == nil || d.Body == nil {
			continue
		}
		if err := f.yamlDocument(c, d.Body); err != nil {
			return err
		}
	}
	return nil
}

// tokenPos is where tk was written in file; the file alone when the
// token or its position is missing.
func tokenPos(file string, tk *token.Token) Position {
	p := Position{File: file}
	if tk != nil && tk.Position != nil {
		p.Line, p.Col = tk.Position.Line, tk.Position.Column
	}
	return p
}

// yamlDocument adds the requests of one document.
func (f *File) yamlDocument(c *yamlConverter, body ast.Node) error {
	body = c.unwrap(body)
	pos := func(n ast.Node) Position { return tokenPos(f.Name, n.GetToken()) }
	request := func(n ast.Node, session string) (*Request, error) {
		n = c.unwrap(n)
		b := newRequestBuilder(pos(n))
		pairs, ok := c.pairs(n)
		if len(pairs) > 0 {
			b.req.Pos = pos(pairs[0].Key)
		}
		if !ok || slices.ContainsFunc(pairs, isMergePair) {
			// An alias (- *base) or a merge (- <<: *base): the request is
			// the value they make, its keys in order of name.
			v, err := c.value(n, 0)
			if err != nil {
				return nil, err
			}
			m, ok := v.(map[string]any)
			if !ok {
				return b.notAnObject(v), nil
			}
			for _, k := range slices.Sorted(maps.Keys(m)) {
				b.set(k, m[k])
			}
			r := b.finish()
			r.SessionID = session
			return r, nil
		}
		for _, kv := range pairs {
			key, err := c.key(kv.Key)
			if err != nil {
				return nil, err
			}
			v, err := c.value(kv.Value, 1)
			if err != nil {
				return nil, err
			}
			b.set(key, v)
		}
		r := b.finish()
		r.SessionID = session
		return r, nil
	}
	list := func(n ast.Node, session string) error {
		seq, ok := c.unwrap(n).(*ast.SequenceNode)
		if !ok {
			return c.fail(n.GetToken(), "requests: expected a list of requests")
		}
		for _, item := range seq.Values {
			r, err := request(item, session)
			if err != nil {
				return err
			}
			f.reqs = append(f.reqs, r)
		}
		return nil
	}

	switch n := body.(type) {
	case *ast.SequenceNode:
		return list(n, "")
	case *ast.MappingNode, *ast.MappingValueNode:
		pairs, _ := c.pairs(n)
		var reqs ast.Node
		session := ""
		for _, kv := range pairs {
			key, err := c.key(kv.Key)
			if err != nil {
				return err
			}
			switch key {
			case "requests":
				reqs = kv.Value
			case "session_id":
				v, err := c.value(kv.Value, 1)
				if err != nil {
					return err
				}
				s, ok := v.(string)
				if !ok {
					return c.fail(kv.Value.GetToken(), "session_id: expected a string, got "+describe(v))
				}
				session = s
			}
		}
		if reqs == nil {
			r, err := request(n, "")
			if err != nil {
				return err
			}
			f.reqs = append(f.reqs, r)
			return nil
		}
		for _, kv := range pairs {
			if key, _ := c.key(kv.Key); key != "requests" && key != "session_id" {
				return c.fail(kv.Key.GetToken(), fmt.Sprintf("unknown key %q: a file of requests has session_id and requests", key))
			}
		}
		if f.SessionID == "" {
			f.SessionID = session
		}
		return list(reqs, session)
	}
	v, err := c.value(body, 0)
	if err != nil {
		return err
	}
	return c.fail(body.GetToken(), "expected a request, a list of requests, or {session_id: ..., requests: [...]}, got "+describe(v))
}

func isMergePair(kv *ast.MappingValueNode) bool { return kv.Key != nil && kv.Key.IsMergeKey() }

// yamlAnchor is a converted anchor: its value, shared by every alias, and
// how many values it stands for, counted against the budget at each use.
type yamlAnchor struct {
	value  any
	size   int
	height int
	done   bool
}

// yamlConverter turns YAML nodes into the values of a JSON decoder, with
// integers as int64 (or uint64), so that YAML and JSON requests look
// alike to validation. It counts every value, and an alias as many values
// as its anchor holds, so that alias expansion stays bounded.
type yamlConverter struct {
	anchors map[string]*yamlAnchor
	nodes   int
	fail    func(*token.Token, string) error
}

// unwrap looks through comments to the node that holds a value.
func (c *yamlConverter) unwrap(n ast.Node) ast.Node {
	for {
		switch x := n.(type) {
		case *ast.CommentGroupNode:
			return nil
		case *ast.DocumentNode:
			n = x.Body
		default:
			return n
		}
	}
}

// pairs returns the key/value pairs of a mapping node.
func (c *yamlConverter) pairs(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch x := n.(type) {
	case *ast.MappingNode:
		return x.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{x}, true
	}
	return nil, false
}

// key converts a mapping key to a string, as JSON object keys are.
func (c *yamlConverter) key(n ast.MapKeyNode) (string, error) {
	var k ast.Node = n
	if mk, ok := n.(*ast.MappingKeyNode); ok {
		k = mk.Value
	}
	v, err := c.value(k, 0)
	if err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case nil:
		return "null", nil
	case map[string]any, []any:
		return "", c.fail(n.GetToken(), "a mapping key must be a scalar")
	}
	return fmt.Sprint(v), nil
}

// value converts node at nesting depth.
func (c *yamlConverter) value(n ast.Node, depth int) (any, error) {
	if n == nil {
		return nil, nil
	}
	if c.nodes++; c.nodes > maxYAMLNodes {
		return nil, c.fail(n.GetToken(), fmt.Sprintf("invalid YAML: more than %d values (aliases count each time they are used)", maxYAMLNodes))
	}
	switch x := n.(type) {
	case *ast.NullNode:
		return nil, nil
	case *ast.BoolNode:
		return x.Value, nil
	case *ast.IntegerNode:
		// As from JSON: an int64 wherever it fits.
		if u, ok := x.Value.(uint64); ok && u <= math.MaxInt64 {
			return int64(u), nil
		}
		return x.Value, nil
	case *ast.FloatNode:
		return x.Value, nil
	case *ast.InfinityNode:
		return x.Value, nil
	case *ast.NanNode:
		return math.NaN(), nil
	case *ast.StringNode:
		return x.Value, nil
	case *ast.LiteralNode:
		if x.Value == nil {
			return "", nil
		}
		return x.Value.Value, nil
	case *ast.TagNode:
		v, err := c.value(x.Value, depth)
		if err != nil {
			return nil, err
		}
		if x.Start != nil && token.ReservedTagKeyword(x.Start.Value) == token.StringTag {
			if v == nil {
				return "", nil
			}
			if s, ok := v.(string); ok {
				return s, nil
			}
			if tk := x.Value.GetToken(); tk != nil {
				return tk.Value, nil
			}
		}
		return v, nil
	case *ast.AnchorNode:
		name := x.Name.GetToken().Value
		a := &yamlAnchor{}
		c.anchors[name] = a
		before := c.nodes
		v, err := c.value(x.Value, depth)
		if err != nil {
			return nil, err
		}
		a.value, a.size, a.height, a.done = v, c.nodes-before, heightOf(v), true
		return v, nil
	case *ast.AliasNode:
		name := x.Value.GetToken().Value
		a, ok := c.anchors[name]
		if !ok {
			return nil, c.fail(x.GetToken(), fmt.Sprintf("invalid YAML: alias %q names no anchor before it", name))
		}
		if !a.done {
			return nil, c.fail(x.GetToken(), fmt.Sprintf("invalid YAML: alias %q is used inside its own anchor", name))
		}
		if c.nodes += a.size; c.nodes > maxYAMLNodes {
			return nil, c.fail(x.GetToken(), fmt.Sprintf("invalid YAML: more than %d values (aliases count each time they are used)", maxYAMLNodes))
		}
		if depth+a.height > maxDepth {
			return nil, c.fail(x.GetToken(), fmt.Sprintf("invalid YAML: nesting deeper than %d levels", maxDepth))
		}
		return a.value, nil
	case *ast.MappingNode, *ast.MappingValueNode:
		if depth++; depth > maxDepth {
			return nil, c.fail(n.GetToken(), fmt.Sprintf("invalid YAML: nesting deeper than %d levels", maxDepth))
		}
		pairs, _ := c.pairs(n)
		m := make(map[string]any, len(pairs))
		for _, kv := range pairs {
			if kv.Key != nil && kv.Key.IsMergeKey() {
				if err := c.merge(m, kv.Value, depth); err != nil {
					return nil, err
				}
				continue
			}
			k, err := c.key(kv.Key)
			if err != nil {
				return nil, err
			}
			v, err := c.value(kv.Value, depth)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		return m, nil
	case *ast.SequenceNode:
		if depth++; depth > maxDepth {
			return nil, c.fail(n.GetToken(), fmt.Sprintf("invalid YAML: nesting deeper than %d levels", maxDepth))
		}
		list := make([]any, 0, len(x.Values))
		for _, item := range x.Values {
			v, err := c.value(item, depth)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, nil
	case *ast.CommentGroupNode, *ast.CommentNode:
		return nil, nil
	case *ast.DocumentNode:
		return c.value(x.Body, depth)
	}
	return nil, c.fail(n.GetToken(), fmt.Sprintf("invalid YAML: %s is not supported in a request", strings.TrimSuffix(n.Type().String(), "Type")))
}

// merge applies a merge key (<<: *base, or a list of them): keys already
// set win, as YAML says.
func (c *yamlConverter) merge(m map[string]any, n ast.Node, depth int) error {
	v, err := c.value(n, depth-1)
	if err != nil {
		return err
	}
	var sources []any
	switch x := v.(type) {
	case map[string]any:
		sources = []any{x}
	case []any:
		sources = x
	default:
		return c.fail(n.GetToken(), "invalid YAML: << merges a mapping or a list of mappings")
	}
	for _, s := range sources {
		sm, ok := s.(map[string]any)
		if !ok {
			return c.fail(n.GetToken(), "invalid YAML: << merges a mapping or a list of mappings")
		}
		for k, v := range sm {
			if _, set := m[k]; !set {
				m[k] = v
			}
		}
	}
	return nil
}

// heightOf is how deep a converted value nests.
func heightOf(v any) int {
	h := 0
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			h = max(h, heightOf(e))
		}
		return h + 1
	case []any:
		for _, e := range x {
			h = max(h, heightOf(e))
		}
		return h + 1
	}
	return 0
}

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

// What goccy/go-yaml is given at most: its parser takes time quadratic in
// the keys or items of one collection (10,000 keys: 1.4 s; 40,000: 13 s),
// so a chunk of more is refused rather than parsed. The chunks that come
// to it are single requests that use YAML yamlFast leaves to it.
const (
	maxFullParseBytes  = 1 << 20
	maxFullParseTokens = 8192
)

// yamlConverter parses chunks of one YAML document with goccy/go-yaml and
// turns their nodes into the values of a JSON decoder, with integers as
// int64 (or uint64), so that YAML and JSON requests look alike to
// validation. It counts every value of a chunk, and an alias as many
// values as its anchor holds, so that alias expansion stays bounded; the
// anchors of the document are kept from chunk to chunk.
type yamlConverter struct {
	name    string
	anchors map[string]*yamlAnchor
	// nodes counts the values of the current chunk; aliased the values
	// that aliases stood for in the whole document, against a budget that
	// grows with the document (read counts its bytes).
	nodes, aliased, read int
	// The current chunk: its text, and the number of its first line.
	data  []byte
	idx   *lineIndex
	first int
}

func newYAMLConverter(name string) *yamlConverter {
	return &yamlConverter{name: name, anchors: map[string]*yamlAnchor{}}
}

// pos is where tk of the current chunk was written in the file.
func (c *yamlConverter) pos(tk *token.Token) Position {
	p := Position{File: c.name}
	if tk != nil && tk.Position != nil {
		p.Line, p.Col = tk.Position.Line+c.first-1, tk.Position.Column
	}
	return p
}

func (c *yamlConverter) fail(tk *token.Token, msg string) error {
	return c.failAtPos(c.pos(tk), msg)
}

// failAtPos is the ParseError at pos, with its line when the current chunk
// holds it.
func (c *yamlConverter) failAtPos(pos Position, msg string) error {
	e := &ParseError{Pos: pos, Msg: msg}
	if c.idx != nil && pos.Line >= c.first {
		e.Source = sourceLine(c.data, c.idx, pos.Line-c.first+1)
	}
	return e
}

// parse parses a chunk with goccy/go-yaml and returns the bodies of its
// documents.
func (c *yamlConverter) parse(ch *yamlChunk) (bodies []ast.Node, err error) {
	c.data, c.idx, c.first, c.nodes = ch.data, newLineIndex(ch.data), ch.first, 0
	c.read += len(ch.data)
	start := &token.Token{Position: &token.Position{Line: 1, Column: 1}}
	if len(ch.data) > maxFullParseBytes {
		return nil, c.fail(start, fmt.Sprintf("a request of more than %d KiB that uses YAML beyond plain block and flow collections "+
			"(anchors, aliases, tags, multi-line strings, complex keys): %s", maxFullParseBytes>>10, fullParseAdvice))
	}
	defer func() {
		// The YAML library is not ours; whatever input makes it panic is a
		// file that does not parse, not a crash.
		if v := recover(); v != nil {
			err = c.fail(start, fmt.Sprintf("invalid YAML: the parser failed: %v", v))
		}
	}()
	tokens := lexer.Tokenize(string(ch.data))
	// The parser takes time quadratic in the nesting depth: refuse deep
	// nesting before it runs.
	flow := 0
	for _, tk := range tokens {
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			if flow++; flow > maxDepth {
				return nil, c.fail(tk, fmt.Sprintf("invalid YAML: nesting deeper than %d levels", maxDepth))
			}
		case token.SequenceEndType, token.MappingEndType:
			if flow > 0 {
				flow--
			}
		case token.SequenceEntryType, token.MappingKeyType:
			if flow == 0 && tk.Position != nil && tk.Position.Column > maxBlockColumn {
				return nil, c.fail(tk, fmt.Sprintf("invalid YAML: nesting deeper than %d columns of indentation", maxBlockColumn))
			}
		}
	}
	if len(tokens) > maxFullParseTokens {
		return nil, c.fail(start, fmt.Sprintf("a request of more than %d YAML tokens that uses YAML beyond plain block and flow collections "+
			"(anchors, aliases, tags, multi-line strings, complex keys): %s", maxFullParseTokens, fullParseAdvice))
	}
	doc, perr := parser.Parse(tokens, 0)
	if perr != nil {
		var ye yaml.Error
		if errors.As(perr, &ye) {
			return nil, c.fail(ye.GetToken(), "invalid YAML: "+ye.GetMessage())
		}
		return nil, c.fail(start, "invalid YAML: "+perr.Error())
	}
	for _, d := range doc.Docs {
		if d != nil && d.Body != nil {
			if b := c.unwrap(d.Body); b != nil {
				bodies = append(bodies, b)
			}
		}
	}
	return bodies, nil
}

const fullParseAdvice = "split it, or write it with fewer such features (JSON has none of them)"

// items parses the chunk of one list item (or, should the chunk hold more,
// of each) and returns their requests.
func (c *yamlConverter) items(ch *yamlChunk) ([]*Request, error) {
	bodies, err := c.parse(ch)
	if err != nil {
		return nil, err
	}
	var reqs []*Request
	for _, body := range bodies {
		seq, ok := body.(*ast.SequenceNode)
		if !ok {
			return nil, c.fail(body.GetToken(), "invalid YAML: expected a list item (- ...)")
		}
		for _, item := range seq.Values {
			r, err := c.request(item)
			if err != nil {
				return nil, err
			}
			reqs = append(reqs, r)
		}
	}
	return reqs, nil
}

// members parses the chunk of one key of a mapping document (or, should
// the chunk hold more, of each).
func (c *yamlConverter) members(ch *yamlChunk) ([]yamlMember, error) {
	bodies, err := c.parse(ch)
	if err != nil {
		return nil, err
	}
	var out []yamlMember
	for _, body := range bodies {
		pairs, ok := c.pairs(body)
		if !ok {
			return nil, c.fail(body.GetToken(), "invalid YAML: expected a key of the mapping")
		}
		for _, kv := range pairs {
			m := yamlMember{keyPos: c.pos(kv.Key.GetToken()), merge: kv.Key.IsMergeKey()}
			if m.key, err = c.key(kv.Key); err != nil {
				return nil, err
			}
			if m.key == "requests" && !m.merge {
				if m.reqs, err = c.list(kv.Value); err != nil {
					return nil, err
				}
				m.list = true
			} else if m.v, err = c.value(kv.Value, 1); err != nil {
				return nil, err
			}
			if kv.Value != nil {
				m.vPos = c.pos(kv.Value.GetToken())
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// list returns the requests of a list node.
func (c *yamlConverter) list(n ast.Node) ([]*Request, error) {
	var tk *token.Token
	if n != nil {
		tk = n.GetToken()
	}
	seq, ok := c.unwrap(n).(*ast.SequenceNode)
	if !ok {
		return nil, c.fail(tk, "requests: expected a list of requests")
	}
	reqs := make([]*Request, 0, len(seq.Values))
	for _, item := range seq.Values {
		r, err := c.request(item)
		if err != nil {
			return nil, err
		}
		reqs = append(reqs, r)
	}
	return reqs, nil
}

// request converts the node of one request.
func (c *yamlConverter) request(n ast.Node) (*Request, error) {
	c.nodes = 0
	n = c.unwrap(n)
	var tk *token.Token
	if n != nil {
		tk = n.GetToken()
	}
	b := newRequestBuilder(c.pos(tk))
	pairs, ok := c.pairs(n)
	if len(pairs) > 0 {
		b.req.Pos = c.pos(pairs[0].Key.GetToken())
	}
	if !ok || slices.ContainsFunc(pairs, isMergePair) {
		// An alias (- *base) or a merge (- <<: *base): the request is the
		// value they make, its keys in order of name.
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
		return b.finish(), nil
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
	return b.finish(), nil
}

// document parses a document read whole — one request, a list of them,
// or the wrapper — and returns its requests and session.
func (c *yamlConverter) document(ch *yamlChunk) (reqs []*Request, session string, err error) {
	bodies, err := c.parse(ch)
	if err != nil {
		return nil, "", err
	}
	for _, body := range bodies {
		switch n := body.(type) {
		case *ast.SequenceNode:
			r, err := c.list(n)
			if err != nil {
				return nil, "", err
			}
			reqs = append(reqs, r...)
			continue
		case *ast.MappingNode, *ast.MappingValueNode:
			pairs, _ := c.pairs(n)
			var list ast.Node
			for _, kv := range pairs {
				key, err := c.key(kv.Key)
				if err != nil {
					return nil, "", err
				}
				switch key {
				case "requests":
					list = kv.Value
				case "session_id":
					v, err := c.value(kv.Value, 1)
					if err != nil {
						return nil, "", err
					}
					s, ok := v.(string)
					if !ok {
						return nil, "", c.fail(kv.Value.GetToken(), "session_id: expected a string, got "+describe(v))
					}
					session = s
				}
			}
			if list == nil {
				r, err := c.request(n)
				if err != nil {
					return nil, "", err
				}
				reqs = append(reqs, r)
				continue
			}
			for _, kv := range pairs {
				if key, _ := c.key(kv.Key); key != "requests" && key != "session_id" {
					return nil, "", c.fail(kv.Key.GetToken(), fmt.Sprintf("unknown key %q: a file of requests has session_id and requests", key))
				}
			}
			r, err := c.list(list)
			if err != nil {
				return nil, "", err
			}
			reqs = append(reqs, r...)
			continue
		}
		v, err := c.value(body, 0)
		if err != nil {
			return nil, "", err
		}
		return nil, "", c.fail(body.GetToken(), "expected a request, a list of requests, or {session_id: ..., requests: [...]}, got "+describe(v))
	}
	return reqs, session, nil
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
		if x.Token != nil && x.Token.Type == token.StringType {
			// A plain scalar that goccy/go-yaml leaves a string but JSON
			// reads as a number (1e2): a number, as yamlFast reads it.
			if f, ok := plainNumber(x.Value); ok {
				return f, nil
			}
		}
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
		c.nodes += a.size
		c.aliased += a.size
		if c.nodes > maxYAMLNodes || c.aliased > maxYAMLNodes+16*c.read {
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
	return c.mergeValue(m, v, c.pos(n.GetToken()))
}

// mergeValue merges v, the value of a merge key written at pos, into m.
func (c *yamlConverter) mergeValue(m map[string]any, v any, pos Position) error {
	var sources []any
	switch x := v.(type) {
	case map[string]any:
		sources = []any{x}
	case []any:
		sources = x
	default:
		return c.failAtPos(pos, "invalid YAML: << merges a mapping or a list of mappings")
	}
	for _, s := range sources {
		sm, ok := s.(map[string]any)
		if !ok {
			return c.failAtPos(pos, "invalid YAML: << merges a mapping or a list of mappings")
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

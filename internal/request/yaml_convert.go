package request

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// maxBlockColumn is the Column of the yamlpos.Bounds of request files.
const maxBlockColumn = 1000

// What goccy/go-yaml is given at most, in one chunk: it allocates about
// a hundred times the bytes of a block scalar (1 MiB: 92 MB, 0.15 s), and
// its parser takes time quadratic in the keys of one mapping (10,000 keys:
// 0.3 s; 40,000: 5 s), so a larger chunk is refused rather than parsed.
const (
	maxChunkBytes  = 1 << 20
	maxChunkTokens = 1 << 15
)

// yamlConverter parses the chunks of one YAML document with goccy/go-yaml
// and hands each request to emit as JSON, its values those of the JSON
// reader (integers int64, or uint64) so that YAML and JSON requests look
// alike to validation. It counts the values of a chunk, an alias as many
// as its anchor holds, so that expansion stays bounded; the document's
// anchors are kept from chunk to chunk.
type yamlConverter struct {
	name    string
	emit    func(yamlpos.Pos, []byte) error
	buf     []byte
	anchors map[string]*yamlAnchor
	// nodes counts the values of the current chunk; aliased the values
	// that aliases stood for in the whole document, against a budget that
	// grows with the document (read counts its bytes).
	nodes, aliased, read int
	deepest              int        // the deepest nesting reached
	ch                   *yamlChunk // the current chunk
	// aliases says the current request used an alias; out bounds what
	// such requests come to, across the file (nil where no alias can be:
	// the pool's chunks).
	aliases bool
	out     *aliasOut
}

// Aliases can make a small file into requests of any size, each within
// MaxLine: counting values bounds the work of one request, not the bytes
// the requests come to. What the requests that use an alias come to, as
// JSON, is bounded across the file by maxAliasOut and aliasOutRatio times
// the bytes of YAML read by then — far beyond what the same values written
// out would make, which is never more than a few times their text.
const (
	maxAliasOut   = MaxLine
	aliasOutRatio = 64
)

// aliasOut is what the requests of a file that use an alias came to.
type aliasOut struct {
	// read is how many bytes of the file were read.
	read  func() int64
	wrote int64
}

func newYAMLConverter(name string, emit func(yamlpos.Pos, []byte) error, out *aliasOut) *yamlConverter {
	return &yamlConverter{name: name, emit: emit, anchors: map[string]*yamlAnchor{}, out: out}
}

// pos is where tk of the current chunk was written in the file.
func (c *yamlConverter) pos(tk *token.Token) yamlpos.Pos {
	p := yamlpos.At(c.name, tk)
	p.Line = c.ch.fileLine(p.Line) * min(p.Line, 1) // no line stays 0
	return p
}

// fail is the ParseError at tk, with the text of its line: tk's line in
// the current chunk, which holds its lines one after another.
func (c *yamlConverter) fail(tk *token.Token, msg string) error {
	e := &ParseError{Pos: c.pos(tk), Msg: msg}
	if tk != nil && tk.Position != nil && tk.Position.Line > 0 {
		e.Source = yamlpos.Line(string(c.ch.data), tk.Position.Line)
	}
	return e
}

// chunkStart stands for the start of the current chunk in messages.
var chunkStart = &token.Token{Position: &token.Position{Line: 1, Column: 1}}

// parse parses a chunk with goccy/go-yaml, refusing what its parser would
// take too long for, and returns its documents that hold a value.
func (c *yamlConverter) parse(ch *yamlChunk) ([]*ast.DocumentNode, error) {
	c.ch, c.nodes = ch, 0
	c.read += len(ch.data)
	tokens, err := yamlpos.Lex(string(ch.data), yamlpos.Bounds{Depth: maxDepth, Column: maxBlockColumn})
	if err != nil {
		return nil, c.yamlError(err)
	}
	if len(tokens) > maxChunkTokens {
		return nil, c.fail(chunkStart, fmt.Sprintf("%s of more than %d YAML tokens: %s", ch.what, maxChunkTokens, chunkAdvice))
	}
	docs, err := yamlpos.Parse(tokens)
	if err != nil {
		return nil, c.yamlError(err)
	}
	return docs, nil
}

// yamlError is the ParseError of an error of yamlpos, at its token of
// the current chunk (the chunk's start when it names none).
func (c *yamlConverter) yamlError(err error) error {
	tk := chunkStart
	if ye, ok := err.(*yamlpos.Error); ok && ye.Token != nil {
		tk = ye.Token
		if ye.FirstLine > 0 {
			ye.FirstLine = c.ch.fileLine(ye.FirstLine)
		}
	}
	return c.fail(tk, err.Error())
}

const chunkAdvice = "write a large request as JSON, and a long batch as a block list of requests (- name: ...) or as JSON Lines"

// items parses a chunk of list items and emits their requests.
func (c *yamlConverter) items(ch *yamlChunk) error {
	docs, err := c.parse(ch)
	if len(ch.items) > 1 && (err != nil || !sameItems(docs, ch)) {
		// The parser read the items otherwise than the cutter (a quoted
		// scalar going on past its item's lines) or found an error: each
		// is read on its own, as if it were alone.
		c.read -= len(ch.data)
		ends := slices.Concat(ch.items[1:], []int{len(ch.data)})
		for i, off := range ch.items {
			one := yamlChunk{data: ch.data[off:ends[i]], first: ch.first + bytes.Count(ch.data[:off], []byte("\n")), what: ch.what}
			if err := c.items(&one); err != nil {
				return err
			}
		}
		return nil
	}
	if err != nil {
		return err
	}
	for _, doc := range docs {
		seq, ok := doc.Body.(*ast.SequenceNode)
		if !ok {
			return c.fail(doc.Body.GetToken(), "invalid YAML: expected a list item (- ...)")
		}
		if err := c.list(seq); err != nil {
			return err
		}
	}
	return nil
}

// sameItems reports whether the parser found the chunk's list items
// where the cutter cut them.
func sameItems(docs []*ast.DocumentNode, ch *yamlChunk) bool {
	if len(docs) != 1 {
		return false
	}
	seq, ok := docs[0].Body.(*ast.SequenceNode)
	if !ok || len(seq.Entries) != len(ch.items) {
		return false
	}
	line, from := 1, 0
	for i, e := range seq.Entries {
		line, from = line+bytes.Count(ch.data[from:ch.items[i]], []byte("\n")), ch.items[i]
		if e.Start.Position.Line != line {
			return false
		}
	}
	return true
}

// list emits the requests of a list.
func (c *yamlConverter) list(seq *ast.SequenceNode) error {
	for i, item := range seq.Values {
		if tk := item.GetToken(); tk.Type == token.ImplicitNullType && i < len(seq.Entries) {
			// goccy/go-yaml places an empty item one column further when
			// it is the list's last: there, wherever it stands.
			tk.Position.Column = seq.Entries[i].Start.Position.Column + 2
		}
		if err := c.request(item); err != nil {
			return err
		}
	}
	return nil
}

// request emits the request of a node, as JSON.
func (c *yamlConverter) request(n ast.Node) error {
	c.nodes, c.aliases = 0, false
	n = yamlpos.Body(n)
	var tk *token.Token
	if n != nil {
		tk = n.GetToken()
	}
	if m := yamlpos.Mapping(n); m != nil && len(m.Values) > 0 {
		tk = m.Values[0].Key.GetToken()
	}
	v, err := c.value(n, 0)
	if err != nil {
		return err
	}
	if c.buf, err = appendJSON(c.buf[:0], v); err != nil {
		return c.fail(tk, err.Error())
	}
	if c.aliases && c.out != nil {
		c.out.wrote += int64(len(c.buf))
		if read := c.out.read(); c.out.wrote > maxAliasOut+aliasOutRatio*read {
			return c.fail(tk, fmt.Sprintf("invalid YAML: aliases expand the requests to more than %s of JSON, from %s of YAML: "+
				"a file of requests holds its values written out, or names a file that holds them", english.Bytes(c.out.wrote), english.Bytes(read)))
		}
	}
	return c.emit(c.pos(tk), c.buf)
}

// document parses a document read whole — one request, a list of them,
// or the wrapper — emits its requests and returns its session.
func (c *yamlConverter) document(ch *yamlChunk) (session string, err error) {
	docs, err := c.parse(ch)
	for _, doc := range docs {
		switch n := doc.Body.(type) {
		case *ast.SequenceNode:
			err = c.list(n)
		case *ast.MappingNode, *ast.MappingValueNode:
			err = c.mapping(n, &session)
		default:
			v, err := c.value(n, 0)
			if err == nil {
				err = c.fail(n.GetToken(), "expected a request, a list of requests, or {session_id: ..., requests: [...]}, got "+toolspec.Describe(v))
			}
			return "", err
		}
		if err != nil {
			return "", err
		}
	}
	return session, err
}

// mapping emits the requests of a mapping document: the request it is or,
// when it has a requests key, those of the wrapper, whose session it sets.
func (c *yamlConverter) mapping(n ast.Node, session *string) error {
	pairs := yamlpos.Mapping(n).Values
	list := slices.IndexFunc(pairs, func(kv *ast.MappingValueNode) bool { key, _ := c.key(kv.Key); return key == "requests" })
	if list < 0 {
		return c.request(n)
	}
	for _, kv := range pairs {
		switch key, err := c.key(kv.Key); {
		case err != nil:
			return err
		case key == "session_id":
			v, err := c.value(kv.Value, 1)
			if err != nil {
				return err
			}
			var ok bool
			if *session, ok = v.(string); !ok {
				return c.fail(kv.Value.GetToken(), "session_id: expected a string, got "+toolspec.Describe(v))
			}
		case key != "requests":
			return c.fail(kv.Key.GetToken(), fmt.Sprintf("unknown key %q: a file of requests has session_id and requests", key))
		}
	}
	requests := pairs[list].Value
	seq, ok := yamlpos.Body(requests).(*ast.SequenceNode)
	if !ok {
		v, err := c.value(requests, 1)
		if err == nil {
			err = c.fail(requests.GetToken(), "requests: expected a list of requests, got "+toolspec.Describe(v))
		}
		return err
	}
	return c.list(seq)
}

// yamlAnchor is a converted anchor: its value, shared by every alias, and
// how many values it stands for, counted against the budget at each use.
type yamlAnchor struct {
	value        any
	size, height int
	done         bool
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

// value converts node at nesting depth, nothing for a comment.
func (c *yamlConverter) value(n ast.Node, depth int) (any, error) {
	if n = yamlpos.Body(n); n == nil {
		return nil, nil
	}
	if c.nodes++; c.nodes > maxYAMLNodes {
		return nil, c.fail(n.GetToken(), fmt.Sprintf("invalid YAML: more than %d values (aliases count each time they are used)", maxYAMLNodes))
	}
	switch x := n.(type) {
	case *ast.NullNode, *ast.CommentNode:
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
	case *ast.InfinityNode, *ast.NanNode:
		// JSON has no such numbers, and requests are JSON: their
		// arguments go to tools as JSON, their records are JSON.
		return nil, c.fail(n.GetToken(), fmt.Sprintf("%s: a request holds JSON values, and JSON has no infinity or NaN", n.GetToken().Value))
	case *ast.StringNode:
		if x.Token != nil && x.Token.Type == token.StringType {
			// A plain scalar that goccy/go-yaml leaves a string but JSON
			// reads as a number (1e2): a number, as in JSON.
			if f, ok := plainNumber(x.Value); ok {
				return f, nil
			}
		}
		return x.Value, nil
	case *ast.LiteralNode:
		s, _ := yamlpos.ScalarText(x)
		return s, nil
	case *ast.TagNode:
		if x.Start != nil && token.ReservedTagKeyword(x.Start.Value) == token.StringTag {
			// A scalar as it is written: !!str null is "null".
			if s, ok := yamlpos.ScalarText(yamlpos.Body(x.Value)); ok || yamlpos.Body(x.Value) == nil {
				return s, nil
			}
		}
		return c.value(x.Value, depth)
	case *ast.AnchorNode:
		a := &yamlAnchor{}
		c.anchors[x.Name.GetToken().Value] = a
		before, deepest := c.nodes, c.deepest
		c.deepest = depth
		v, err := c.value(x.Value, depth)
		if err != nil {
			return nil, err
		}
		a.value, a.size, a.height, a.done = v, c.nodes-before, c.deepest-depth, true
		c.deepest = max(c.deepest, deepest)
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
		c.aliases = true
		c.nodes += a.size
		c.aliased += a.size
		if c.nodes > maxYAMLNodes || c.aliased > maxYAMLNodes+16*c.read {
			return nil, c.fail(x.GetToken(), fmt.Sprintf("invalid YAML: more than %d values (aliases count each time they are used)", maxYAMLNodes))
		}
		if _, err := c.nest(n, depth+a.height-1); err != nil {
			return nil, err
		}
		return a.value, nil
	case *ast.MappingNode, *ast.MappingValueNode:
		depth, err := c.nest(n, depth)
		if err != nil {
			return nil, err
		}
		pairs := yamlpos.Mapping(n).Values
		m := make(map[string]any, len(pairs))
		var merged []map[string]any
		for _, kv := range pairs {
			if kv.Key != nil && kv.Key.IsMergeKey() {
				if merged, err = c.merge(merged, kv.Value, depth); err != nil {
					return nil, err
				}
				continue
			}
			k, err := c.key(kv.Key)
			if err != nil {
				return nil, err
			}
			if _, dup := m[k]; dup {
				// goccy/go-yaml refuses a key written twice, not two
				// that JSON reads as one (0x1 and 1, ~ and null).
				return nil, c.fail(kv.Key.GetToken(), fmt.Sprintf("invalid YAML: mapping key %q already defined", k))
			}
			v, err := c.value(kv.Value, depth)
			if err != nil {
				return nil, err
			}
			m[k] = v
		}
		for _, sm := range merged { // after the keys written, which win
			for k, v := range sm {
				if _, set := m[k]; !set {
					m[k] = v
				}
			}
		}
		return m, nil
	case *ast.SequenceNode:
		depth, err := c.nest(n, depth)
		if err != nil {
			return nil, err
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
	}
	return nil, c.fail(n.GetToken(), fmt.Sprintf("invalid YAML: %s is not supported in a request", strings.TrimSuffix(n.Type().String(), "Type")))
}

// nest is the depth inside a collection n at depth: no deeper than
// maxDepth, and noted for the height of an anchor around it.
func (c *yamlConverter) nest(n ast.Node, depth int) (int, error) {
	if depth++; depth > maxDepth {
		return 0, c.fail(n.GetToken(), fmt.Sprintf("invalid YAML: nesting deeper than %d levels", maxDepth))
	}
	c.deepest = max(c.deepest, depth)
	return depth, nil
}

// merge appends to merged the mappings that a merge key (<<: *base, or a
// list of them) merges.
func (c *yamlConverter) merge(merged []map[string]any, n ast.Node, depth int) ([]map[string]any, error) {
	v, err := c.value(n, depth-1)
	if err != nil {
		return nil, err
	}
	sources, ok := v.([]any)
	if !ok {
		sources = []any{v}
	}
	for _, s := range sources {
		sm, ok := s.(map[string]any)
		if !ok {
			return nil, c.fail(n.GetToken(), "invalid YAML: << merges a mapping or a list of mappings")
		}
		merged = append(merged, sm)
	}
	return merged, nil
}

// plainNumber reads a plain scalar that YAML 1.2's core schema and JSON
// take for a number but goccy/go-yaml leaves a string: one with an
// exponent and no point (1e2), an integer beyond 64 bits. Digits, signs,
// a point and an exponent are all such a number may hold (ParseFloat
// would also take inf, hex and underscores).
func plainNumber(s string) (float64, bool) {
	if strings.Trim(s, "0123456789+-.eE") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

package request

import (
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/kesoku/kesoku/internal/yamlpos"
)

// Most items of a YAML request file are written in a few shapes: block
// mappings and lists, flow collections, scalars. Such an item is read from
// goccy/go-yaml's tokens without its parser, which takes two thirds of the
// time a chunk costs (bench/RESULTS.md); its scalars are made by goccy's
// own node constructors and converted as the parser's are. Anything else —
// anchors, aliases, tags, block scalars, complex and merge keys, keys
// given twice, whatever looks wrong — goes to the parser, the judge of
// what YAML means and of every error. FuzzYAMLTokens holds the two to the
// same requests.

// tokenReader reads the tokens of one list item.
type tokenReader struct {
	c   *yamlConverter
	tks []*token.Token // without comments
	i   int
}

// tokenItem reads the request of the item whose tokens are tks: "-", then
// a mapping. ok is false for anything it leaves to the parser.
func (c *yamlConverter) tokenItem(tks token.Tokens) (pos yamlpos.Pos, keys []string, vals []any, ok bool) {
	r := &tokenReader{c: c, tks: make([]*token.Token, 0, len(tks))}
	for _, tk := range tks {
		switch tk.Type {
		case token.CommentType:
		case token.SequenceEntryType, token.MappingValueType, token.CollectEntryType, token.SequenceStartType, token.SequenceEndType,
			token.MappingStartType, token.MappingEndType, token.NullType, token.BoolType, token.IntegerType, token.BinaryIntegerType,
			token.OctetIntegerType, token.HexIntegerType, token.FloatType, token.StringType, token.SingleQuoteType, token.DoubleQuoteType:
			r.tks = append(r.tks, tk)
		default:
			return yamlpos.Pos{}, nil, nil, false
		}
	}
	if len(r.tks) < 2 || r.tks[0].Type != token.SequenceEntryType {
		return yamlpos.Pos{}, nil, nil, false
	}
	dash, first := r.tks[0], r.tks[1]
	r.i = 1
	at := first // where the request is: its first key, or its {
	switch {
	case first.Type == token.MappingStartType:
		keys, vals, ok = r.flowMapping(1)
		if len(keys) > 0 {
			at = r.tks[2]
		}
	case r.isKey() && (first.Position.Line == dash.Position.Line || first.Position.Column > dash.Position.Column):
		keys, vals, ok = r.mapping(1)
	}
	if !ok || r.i != len(r.tks) {
		return yamlpos.Pos{}, nil, nil, false
	}
	return c.pos(at), keys, vals, true
}

func (r *tokenReader) peek() *token.Token {
	if r.i < len(r.tks) {
		return r.tks[r.i]
	}
	return nil
}

// isScalar reports whether tk is a scalar this reader takes.
func isScalar(tk *token.Token) bool {
	switch tk.Type {
	case token.NullType, token.BoolType, token.IntegerType, token.BinaryIntegerType, token.OctetIntegerType, token.HexIntegerType,
		token.FloatType, token.StringType, token.SingleQuoteType, token.DoubleQuoteType:
		return true
	}
	return false
}

// isKey reports whether the current token is a scalar followed by ":" on
// its line.
func (r *tokenReader) isKey() bool {
	return r.i+1 < len(r.tks) && isScalar(r.tks[r.i]) && r.tks[r.i+1].Type == token.MappingValueType &&
		r.tks[r.i+1].Position.Line == r.tks[r.i].Position.Line
}

// scalarNode is the node the parser makes of a scalar token.
func scalarNode(tk *token.Token) ast.ScalarNode {
	switch tk.Type {
	case token.NullType:
		return ast.Null(tk)
	case token.BoolType:
		return ast.Bool(tk)
	case token.FloatType:
		return ast.Float(tk)
	case token.StringType, token.SingleQuoteType, token.DoubleQuoteType:
		return ast.String(tk)
	}
	return ast.Integer(tk)
}

// scalar reads the current token as the parser and the converter do.
func (r *tokenReader) scalar(depth int) (any, bool) {
	tk := r.peek()
	if tk == nil || !isScalar(tk) {
		return nil, false
	}
	r.i++
	if n, ok := decimal(tk); ok {
		return n, true
	}
	v, err := r.c.value(scalarNode(tk), depth)
	return v, err == nil
}

// decimal reads an integer token of decimal digits without a leading
// zero (goccy/go-yaml reads 012 as octal), the common case, without going
// through goccy's number reader again.
func decimal(tk *token.Token) (int64, bool) {
	d := strings.TrimPrefix(tk.Value, "-")
	if tk.Type != token.IntegerType || len(d) == 0 || len(d) > 18 || d[0] == '0' && len(d) > 1 {
		return 0, false
	}
	var n int64
	for _, c := range []byte(d) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if len(d) < len(tk.Value) {
		n = -n
	}
	return n, true
}

// key reads a key, which must be new, and its ":".
func (r *tokenReader) key(keys []string) (string, bool) {
	key, err := r.c.key(scalarNode(r.peek()))
	if err != nil || slices.Contains(keys, key) {
		return "", false
	}
	r.i += 2
	return key, true
}

// node reads the value that starts at the current token, in block
// context.
func (r *tokenReader) node(depth int) (any, bool) {
	tk := r.peek()
	switch {
	case tk == nil:
		return nil, false
	case tk.Type == token.SequenceEntryType:
		return r.sequence(depth)
	case tk.Type == token.MappingStartType || tk.Type == token.SequenceStartType:
		return r.flow(depth)
	case r.isKey():
		keys, vals, ok := r.mapping(depth + 1)
		return toMap(keys, vals), ok
	}
	return r.scalar(depth)
}

func toMap(keys []string, vals []any) map[string]any {
	m := make(map[string]any, len(keys))
	for i, k := range keys {
		m[k] = vals[i]
	}
	return m
}

// after reports whether the value that ended at token end is followed by
// nothing or by a token on a later line, as a value in block context is.
func (r *tokenReader) after(end *token.Token) bool {
	next := r.peek()
	return next == nil || next.Position.Line > end.Position.Line
}

// mapping reads a block mapping whose first key is the current token, at
// nesting depth.
func (r *tokenReader) mapping(depth int) (keys []string, vals []any, ok bool) {
	if depth > maxDepth {
		return nil, nil, false
	}
	col := r.peek().Position.Column
	for {
		key, ok := r.key(keys)
		if !ok {
			return nil, nil, false
		}
		colon := r.tks[r.i-1]
		next := r.peek()
		var v any
		switch {
		case next == nil:
		case next.Position.Line == colon.Position.Line:
			if next.Type == token.SequenceEntryType || r.isKey() {
				return nil, nil, false
			}
			if v, ok = r.node(depth); !ok || !r.after(r.tks[r.i-1]) {
				return nil, nil, false
			}
		case next.Position.Column > col, next.Position.Column == col && next.Type == token.SequenceEntryType:
			if v, ok = r.node(depth); !ok {
				return nil, nil, false
			}
		}
		keys, vals = append(keys, key), append(vals, v)
		next = r.peek()
		if next == nil || next.Position.Column < col {
			return keys, vals, true
		}
		if next.Position.Column > col || !r.isKey() {
			return nil, nil, false
		}
	}
}

// sequence reads a block list whose first "-" is the current token.
func (r *tokenReader) sequence(depth int) (any, bool) {
	if depth++; depth > maxDepth {
		return nil, false
	}
	col := r.peek().Position.Column
	list := []any{}
	for {
		dash := r.peek()
		r.i++
		next := r.peek()
		if next == nil || next.Position.Line != dash.Position.Line && next.Position.Column <= col {
			return nil, false // an empty item, which the parser has its own reading of
		}
		v, ok := r.node(depth)
		if !ok || !r.after(r.tks[r.i-1]) {
			return nil, false
		}
		list = append(list, v)
		next = r.peek()
		if next == nil || next.Position.Column < col || next.Position.Column == col && next.Type != token.SequenceEntryType {
			return list, true
		}
		if next.Position.Column > col {
			return nil, false
		}
	}
}

// flow reads a flow collection that starts at the current token.
func (r *tokenReader) flow(depth int) (any, bool) {
	if r.peek().Type == token.MappingStartType {
		keys, vals, ok := r.flowMapping(depth + 1)
		return toMap(keys, vals), ok
	}
	if depth++; depth > maxDepth {
		return nil, false
	}
	r.i++ // [
	list := []any{}
	for first := true; ; first = false {
		tk := r.peek()
		if tk == nil {
			return nil, false
		}
		if tk.Type == token.SequenceEndType {
			r.i++
			return list, true
		}
		if !first {
			if tk.Type != token.CollectEntryType {
				return nil, false
			}
			r.i++
		}
		v, ok := r.flowValue(depth)
		if !ok {
			return nil, false
		}
		list = append(list, v)
	}
}

// flowMapping reads a flow mapping that starts at the current token, at
// nesting depth.
func (r *tokenReader) flowMapping(depth int) (keys []string, vals []any, ok bool) {
	if depth > maxDepth {
		return nil, nil, false
	}
	r.i++ // {
	for first := true; ; first = false {
		tk := r.peek()
		if tk == nil {
			return nil, nil, false
		}
		if tk.Type == token.MappingEndType {
			r.i++
			return keys, vals, true
		}
		if !first {
			if tk.Type != token.CollectEntryType {
				return nil, nil, false
			}
			r.i++
		}
		if !r.isKey() {
			return nil, nil, false
		}
		key, ok := r.key(keys)
		if !ok {
			return nil, nil, false
		}
		v, ok := r.flowValue(depth)
		if !ok {
			return nil, nil, false
		}
		keys, vals = append(keys, key), append(vals, v)
	}
}

// flowValue reads a value inside a flow collection: a scalar that no ":"
// follows, or a flow collection.
func (r *tokenReader) flowValue(depth int) (any, bool) {
	tk := r.peek()
	if tk == nil {
		return nil, false
	}
	if tk.Type == token.MappingStartType || tk.Type == token.SequenceStartType {
		return r.flow(depth)
	}
	if r.isKey() {
		return nil, false
	}
	v, ok := r.scalar(depth)
	if next := r.peek(); !ok || next == nil || next.Type != token.CollectEntryType && next.Type != token.SequenceEndType && next.Type != token.MappingEndType {
		return nil, false
	}
	return v, true
}

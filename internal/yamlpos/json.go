package yamlpos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// NodeError is a mistake at a place in a file, found in its YAML tree.
type NodeError struct {
	Pos Pos
	Msg string
}

func (e *NodeError) Error() string { return e.Pos.Prefix(e.Msg) }

// JSON encodes a node of the file named file as the JSON document it
// would be, under the policy of config files: anchors, aliases, merges
// and tags are refused with a *NodeError (an alias can make a small file
// a huge value). See Converter for how values are converted.
func JSON(file string, n ast.Node) ([]byte, error) {
	b, err := NewConverter(Policy{}).Append(nil, n)
	if je, ok := err.(*JSONError); ok {
		return nil, &NodeError{Pos: Of(file, je.Node), Msg: je.Error()}
	}
	return b, err
}

// Policy is what a conversion to JSON lets through, and how much of it.
// The zero Policy is that of config files: no anchors, aliases, merge
// keys or tags, and no bounds beyond the parser's.
type Policy struct {
	// Aliases lets anchors, aliases, merge keys (<<) and tags through,
	// as a file of requests takes them.
	Aliases bool
	// MaxValues, when set, bounds the values of one conversion (from
	// Begin), an alias counting as many values as its anchor holds each
	// time it is used; and the values that aliases stand for in the whole
	// document, to MaxValues and 16 values a byte read (Read).
	MaxValues int
	// MaxDepth, when set, bounds the nesting of lists and mappings.
	MaxDepth int
	// MaxBytes, when set, bounds the JSON of one value that Append makes.
	MaxBytes int
	// SortKeys writes the keys of a mapping in sorted order rather than
	// as written: the order a request's mistakes are said in.
	SortKeys bool
	// Out, when set, bounds across a file what the values that use an
	// alias come to as JSON (see AliasOut).
	Out *AliasOut
}

// AliasOut bounds what aliases make of a file, as JSON: counting values
// bounds the work of one value, not the bytes that the values of a file
// come to. The values that use an alias may come to Base bytes, and Ratio
// bytes more for each byte of YAML read. The converters of a file's
// documents share one.
type AliasOut struct {
	// Read is how many bytes of the file were read by now.
	Read        func() int64
	Base, Ratio int64
	wrote       int64
}

// JSONKind is what went wrong in a conversion to JSON.
type JSONKind int

// The kinds of a JSONError.
const (
	TooManyValues   JSONKind = iota + 1 // more values than MaxValues (Limit)
	TooDeep                             // nested deeper than MaxDepth (Limit)
	TooLarge                            // JSON longer than MaxBytes (Limit)
	AliasesExpand                       // past the AliasOut budget (Wrote, Read)
	NotJSONNumber                       // an infinity or a NaN
	NoAnchor                            // an alias of no anchor before it (Name)
	AliasInAnchor                       // an alias inside its own anchor (Name)
	DuplicateKey                        // two keys that JSON reads as one (Name)
	MergeNotMapping                     // << of what is no mapping nor list of mappings
	KeyNotScalar                        // a key that is a mapping or a list
	NotSupported                        // a node the policy does not let through
)

// JSONError is a node that a conversion to JSON refuses, as data: its
// readers word it each in their own terms. Error words it as a config
// file's mistake.
type JSONError struct {
	Kind JSONKind
	// Node is where the mistake is; nil for TooLarge and AliasesExpand,
	// which are about the whole value.
	Node  ast.Node
	Name  string
	Limit int
	// Wrote and Read are the bytes of JSON made and of YAML read, for
	// AliasesExpand.
	Wrote, Read int64
}

func (e *JSONError) Error() string {
	switch e.Kind {
	case TooManyValues:
		return fmt.Sprintf("more than %d values", e.Limit)
	case TooDeep:
		return fmt.Sprintf("nesting deeper than %d levels", e.Limit)
	case TooLarge:
		return fmt.Sprintf("a value larger than %d bytes as JSON", e.Limit)
	case AliasesExpand:
		return fmt.Sprintf("aliases expand to %d bytes of JSON, from %d bytes of YAML", e.Wrote, e.Read)
	case NotJSONNumber:
		if _, ok := e.Node.(*ast.FloatNode); ok {
			return e.Node.GetToken().Value + " is not a JSON number"
		}
	case NoAnchor:
		return fmt.Sprintf("alias %q names no anchor before it", e.Name)
	case AliasInAnchor:
		return fmt.Sprintf("alias %q is used inside its own anchor", e.Name)
	case DuplicateKey:
		return fmt.Sprintf("mapping key %q already defined", e.Name)
	case MergeNotMapping:
		return "<< merges a mapping or a list of mappings"
	case KeyNotScalar:
		return "a key must be a name, not " + KindOf(e.Node)
	}
	if k, ok := e.Node.(ast.MapKeyNode); ok && k.IsMergeKey() {
		return "merge keys (<<) are not taken here"
	}
	return "want a JSON value, not " + KindOf(e.Node)
}

// Converter converts the nodes of one YAML document to JSON under a
// Policy, keys in the order written (a schema's properties keep the order
// they were declared in, which models tend to follow). Values are JSON's
// as YAML 1.2's core schema reads them: a plain 1e2 is a number, a float
// stays one (1.0, not 1), a key is the text JSON would make of its value
// (0x1 is "1", ~ is "null"), and two keys that make one text are refused.
// An anchor's JSON is kept for its aliases from one conversion to the
// next.
type Converter struct {
	p       Policy
	anchors map[string]*anchor
	// values counts the values of the current conversion; aliased those
	// that aliases stood for in the document, against a budget that grows
	// with read, the bytes of the document read.
	values, aliased, read int
	deepest               int  // the deepest nesting reached
	aliases               bool // the current conversion used an alias
	// start is where Append's value starts in its dst; large that it went
	// past MaxBytes, from when the conversion went on only for its
	// mistakes, which are said first.
	start int
	large bool
	// keys are the keys of the mappings being converted, innermost last,
	// and spans where each member's JSON lies in dst; sorted is scratch
	// for SortKeys.
	keys   []string
	spans  [][2]int
	sorted []byte
}

// anchor is a converted anchor: its JSON, shared by every alias, and how
// many values it stands for, counted against the budget at each use.
type anchor struct {
	json         []byte
	size, height int
	done         bool
}

// NewConverter returns a converter of one document's nodes.
func NewConverter(p Policy) *Converter {
	return &Converter{p: p}
}

// Begin starts the count of values and the use of aliases anew: a new
// request, a new chunk of the document.
func (c *Converter) Begin() { c.values, c.aliases = 0, false }

// Read adds n bytes of the document read: the budget of what its aliases
// stand for grows with it.
func (c *Converter) Read(n int) { c.read += n }

// UsedAlias reports whether the values converted since Begin used an
// alias.
func (c *Converter) UsedAlias() bool { return c.aliases }

// Append appends the JSON of node n (JSON's null for none or a comment)
// to dst. Its mistakes are *JSONError.
func (c *Converter) Append(dst []byte, n ast.Node) ([]byte, error) {
	c.start, c.large = len(dst), false
	dst, err := c.value(dst, n, 0)
	if err != nil {
		return dst, err
	}
	if c.large {
		return dst, &JSONError{Kind: TooLarge, Limit: c.p.MaxBytes}
	}
	if o := c.p.Out; o != nil && c.aliases {
		o.wrote += int64(len(dst) - c.start)
		if read := o.Read(); o.wrote > o.Base+o.Ratio*read {
			return dst, &JSONError{Kind: AliasesExpand, Wrote: o.wrote, Read: read}
		}
	}
	return dst, nil
}

// Key is the text of a mapping key, as a JSON object's key: a string as
// it is, null as "null", another scalar as JSON writes it.
func (c *Converter) Key(n ast.MapKeyNode) (string, error) {
	k := ast.Node(n)
	if mk, ok := n.(*ast.MappingKeyNode); ok {
		k = mk.Value
	}
	if s, ok := k.(*ast.StringNode); ok && !(s.Token != nil && s.Token.Type == token.StringType && isPlainNumber(s.Value)) {
		// The common case, with nothing to convert: counted all the same.
		if err := c.count(k); err != nil {
			return "", err
		}
		return s.Value, nil
	}
	if !c.p.Aliases {
		switch Body(k).(type) {
		case *ast.AnchorNode, *ast.AliasNode, *ast.TagNode:
			return "", &JSONError{Kind: KeyNotScalar, Node: n}
		}
	}
	b, err := c.value(nil, k, 0)
	if err != nil {
		return "", err
	}
	switch b[0] {
	case '"':
		s, _ := jsontext.AppendUnquote(nil, b)
		return string(s), nil
	case '{', '[':
		return "", &JSONError{Kind: KeyNotScalar, Node: n}
	case 't', 'f', 'n':
		return string(b), nil
	}
	if bytes.ContainsAny(b, ".eE") {
		f, _ := strconv.ParseFloat(string(b), 64)
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	}
	return string(b), nil
}

// count counts a value of node n against the bound of one conversion.
func (c *Converter) count(n ast.Node) error {
	if c.values++; c.p.MaxValues > 0 && c.values > c.p.MaxValues {
		return &JSONError{Kind: TooManyValues, Node: n, Limit: c.p.MaxValues}
	}
	return nil
}

// value appends the JSON of n, at nesting depth, to dst.
func (c *Converter) value(dst []byte, n ast.Node, depth int) ([]byte, error) {
	dst = c.bound(dst)
	if n = Body(n); n == nil {
		return append(dst, "null"...), nil
	}
	if err := c.count(n); err != nil {
		return dst, err
	}
	switch x := n.(type) {
	case *ast.NullNode, *ast.CommentNode:
		return append(dst, "null"...), nil
	case *ast.BoolNode:
		return strconv.AppendBool(dst, x.Value), nil
	case *ast.IntegerNode:
		switch v := x.Value.(type) {
		case int64:
			return strconv.AppendInt(dst, v, 10), nil
		case uint64:
			return strconv.AppendUint(dst, v, 10), nil
		}
		return fmt.Append(dst, x.Value), nil
	case *ast.FloatNode:
		if math.IsInf(x.Value, 0) || math.IsNaN(x.Value) {
			return dst, &JSONError{Kind: NotJSONNumber, Node: n}
		}
		return appendFloat(dst, x.Value), nil
	case *ast.InfinityNode, *ast.NanNode:
		// JSON has no such numbers.
		return dst, &JSONError{Kind: NotJSONNumber, Node: n}
	case *ast.StringNode:
		if x.Token != nil && x.Token.Type == token.StringType && isPlainNumber(x.Value) {
			// A plain scalar that goccy/go-yaml leaves a string but JSON
			// reads as a number (1e2): a number, as in JSON.
			if f, err := strconv.ParseFloat(x.Value, 64); err == nil {
				return appendFloat(dst, f), nil
			}
		}
		return appendString(dst, x.Value), nil
	case *ast.LiteralNode:
		s, _ := ScalarText(x)
		return appendString(dst, s), nil
	case *ast.SequenceNode:
		depth, err := c.nest(n, depth)
		if err != nil {
			return dst, err
		}
		dst = append(dst, '[')
		for i, item := range x.Values {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = c.value(dst, item, depth); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case *ast.MappingNode, *ast.MappingValueNode:
		return c.mapping(dst, n, depth)
	}
	if !c.p.Aliases {
		return dst, &JSONError{Kind: NotSupported, Node: n}
	}
	switch x := n.(type) {
	case *ast.TagNode:
		if x.Start != nil && token.ReservedTagKeyword(x.Start.Value) == token.StringTag {
			// A scalar as it is written: !!str null is "null".
			if s, ok := ScalarText(Body(x.Value)); ok || Body(x.Value) == nil {
				return appendString(dst, s), nil
			}
		}
		return c.value(dst, x.Value, depth)
	case *ast.AnchorNode:
		if c.anchors == nil {
			c.anchors = map[string]*anchor{}
		}
		a := &anchor{}
		c.anchors[x.Name.GetToken().Value] = a
		before, deepest, start := c.values, c.deepest, len(dst)
		c.deepest = depth
		dst, err := c.value(dst, x.Value, depth)
		if err != nil {
			return dst, err
		}
		a.json, a.size, a.height, a.done = bytes.Clone(dst[min(start, len(dst)):]), c.values-before, c.deepest-depth, true
		c.deepest = max(c.deepest, deepest)
		return dst, nil
	case *ast.AliasNode:
		name := x.Value.GetToken().Value
		a, ok := c.anchors[name]
		if !ok {
			return dst, &JSONError{Kind: NoAnchor, Node: n, Name: name}
		}
		if !a.done {
			return dst, &JSONError{Kind: AliasInAnchor, Node: n, Name: name}
		}
		c.aliases = true
		c.values += a.size
		c.aliased += a.size
		if m := c.p.MaxValues; m > 0 && (c.values > m || c.aliased > m+16*c.read) {
			return dst, &JSONError{Kind: TooManyValues, Node: n, Limit: m}
		}
		if _, err := c.nest(n, depth+a.height-1); err != nil {
			return dst, err
		}
		return c.bound(append(dst, a.json...)), nil
	}
	return dst, &JSONError{Kind: NotSupported, Node: n}
}

// mapping appends the JSON object of mapping n at depth: its keys in the
// order written, then those that merge keys (<<) bring and no key
// written has, the first merged first.
func (c *Converter) mapping(dst []byte, n ast.Node, depth int) ([]byte, error) {
	depth, err := c.nest(n, depth)
	if err != nil {
		return dst, err
	}
	base := len(c.keys)
	defer func() { c.keys, c.spans = c.keys[:base], c.spans[:base] }()
	var set map[string]bool // c.keys[base:] once they are many
	seen := func(k string) bool {
		if set == nil && len(c.keys)-base > 16 {
			set = make(map[string]bool, 2*(len(c.keys)-base))
			for _, k := range c.keys[base:] {
				set[k] = true
			}
		}
		if set != nil {
			return set[k]
		}
		for _, have := range c.keys[base:] {
			if have == k {
				return true
			}
		}
		return false
	}
	add := func(k string, start int) {
		c.keys, c.spans = append(c.keys, k), append(c.spans, [2]int{start})
		if set != nil {
			set[k] = true
		}
	}
	var merged [][]byte
	dst = append(dst, '{')
	first := true
	for _, kv := range Mapping(n).Values {
		if kv.Key != nil && kv.Key.IsMergeKey() {
			if !c.p.Aliases {
				return dst, &JSONError{Kind: NotSupported, Node: kv.Key}
			}
			if merged, err = c.merge(merged, kv.Value, depth); err != nil {
				return dst, err
			}
			continue
		}
		k, err := c.Key(kv.Key)
		if err != nil {
			return dst, err
		}
		if seen(k) {
			// goccy/go-yaml refuses a key written twice, not two that
			// JSON reads as one (0x1 and 1, ~ and null).
			return dst, &JSONError{Kind: DuplicateKey, Node: kv.Key, Name: k}
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		add(k, len(dst))
		dst = append(appendString(dst, k), ':')
		if dst, err = c.value(dst, kv.Value, depth); err != nil {
			return dst, err
		}
		c.spans[len(c.spans)-1][1] = len(dst)
	}
	for _, m := range merged { // after the keys written, which win
		d := jsontext.NewDecoder(bytes.NewReader(m))
		d.ReadToken() // {
		for d.PeekKind() == '"' {
			name, _ := d.ReadToken()
			k := name.String() // before the next read, which ends the token
			v, _ := d.ReadValue()
			if !seen(k) {
				if !first {
					dst = append(dst, ',')
				}
				first = false
				add(k, len(dst))
				dst = c.bound(append(append(appendString(dst, k), ':'), v...))
				c.spans[len(c.spans)-1][1] = len(dst)
			}
		}
	}
	if c.p.SortKeys && !c.large && !slices.IsSorted(c.keys[base:]) {
		dst = c.sort(dst, base)
	}
	return append(dst, '}'), nil
}

// sort writes the members of the mapping whose keys start at c.keys[base]
// over again in the order of their keys.
func (c *Converter) sort(dst []byte, base int) []byte {
	order := make([]int, len(c.keys)-base)
	for i := range order {
		order[i] = base + i
	}
	slices.SortFunc(order, func(i, j int) int { return strings.Compare(c.keys[i], c.keys[j]) })
	c.sorted = c.sorted[:0]
	for n, i := range order {
		if n > 0 {
			c.sorted = append(c.sorted, ',')
		}
		c.sorted = append(c.sorted, dst[c.spans[i][0]:c.spans[i][1]]...)
	}
	return append(dst[:c.spans[base][0]], c.sorted...)
}

// merge appends to merged the JSON objects that a merge key (<<: *base,
// or a list of them) merges.
func (c *Converter) merge(merged [][]byte, n ast.Node, depth int) ([][]byte, error) {
	b, err := c.value(nil, n, depth-1)
	if err != nil {
		return nil, err
	}
	notMapping := &JSONError{Kind: MergeNotMapping, Node: Body(n)}
	switch b[0] {
	case '{':
		return append(merged, b), nil
	case '[':
		d := jsontext.NewDecoder(bytes.NewReader(b))
		d.ReadToken() // [
		for d.PeekKind() != ']' {
			v, _ := d.ReadValue()
			if v.Kind() != '{' {
				return nil, notMapping
			}
			merged = append(merged, bytes.Clone(v)) // v lasts to the next read
		}
		return merged, nil
	}
	return nil, notMapping
}

// bound notes that dst went past MaxBytes, and cuts it there: the JSON is
// thrown away, and the conversion goes on only for a mistake after it.
func (c *Converter) bound(dst []byte) []byte {
	if c.p.MaxBytes > 0 && len(dst)-c.start > c.p.MaxBytes {
		c.large = true
		return dst[:max(c.start, 0)+c.p.MaxBytes+1]
	}
	return dst
}

// nest is the depth inside a collection n at depth: no deeper than
// MaxDepth, and noted for the height of an anchor around it.
func (c *Converter) nest(n ast.Node, depth int) (int, error) {
	if depth++; c.p.MaxDepth > 0 && depth > c.p.MaxDepth {
		return 0, &JSONError{Kind: TooDeep, Node: n, Limit: c.p.MaxDepth}
	}
	c.deepest = max(c.deepest, depth)
	return depth, nil
}

// appendFloat appends f as JSON that reads back as a float: 100.0, not
// 100, which reads as an integer.
func appendFloat(dst []byte, f float64) []byte {
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'g', -1, 64)
	if !bytes.ContainsAny(dst[start:], ".e") {
		dst = append(dst, ".0"...)
	}
	return dst
}

// appendString appends s as encoding/json writes it: each byte that is
// not UTF-8 as U+FFFD, and <, >, &, U+2028 and U+2029 escaped.
func appendString(dst []byte, s string) []byte {
	if strings.ContainsAny(s, "<>&\u2028\u2029") {
		q, _ := json.Marshal(s)
		return append(dst, q...)
	}
	dst, _ = jsontext.AppendQuote(dst, s)
	return dst
}

// isPlainNumber reports whether a plain scalar that goccy/go-yaml leaves a
// string is a number for YAML 1.2's core schema and JSON: one with an
// exponent and no point (1e2), an integer beyond 64 bits. Digits, signs,
// a point and an exponent are all such a number may hold (ParseFloat
// would also take inf, hex and underscores).
func isPlainNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789+-.eE") == ""
}

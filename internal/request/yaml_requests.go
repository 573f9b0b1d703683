package request

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/registry"
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
// and hands each request to emit as JSON, converted by yamlpos's
// Converter under the policy of request files: anchors, aliases, merges
// and tags, bounded. Its values are those of the JSON reader (integers
// int64, or uint64; a float stays one) so that YAML and JSON requests look
// alike to validation. The document's anchors are kept from chunk to
// chunk.
type yamlConverter struct {
	name string
	emit func(yamlpos.Pos, []byte) error
	buf  []byte
	conv *yamlpos.Converter
	ch   *yamlChunk // the current chunk
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

// newYAMLConverter returns the converter of a document; out bounds what
// its requests that use an alias come to, across the file (nil where no
// alias can be: the pool's chunks).
func newYAMLConverter(name string, emit func(yamlpos.Pos, []byte) error, out *yamlpos.AliasOut) *yamlConverter {
	return &yamlConverter{name: name, emit: emit, conv: yamlpos.NewConverter(yamlpos.Policy{
		Aliases: true, MaxValues: maxYAMLNodes, MaxDepth: maxDepth, MaxBytes: MaxLine, SortKeys: true, Out: out})}
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
	c.ch = ch
	c.conv.Begin()
	c.conv.Read(len(ch.data))
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
		c.conv.Read(-len(ch.data))
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
	c.conv.Begin()
	n = yamlpos.Body(n)
	var tk *token.Token
	if n != nil {
		tk = n.GetToken()
	}
	if m := yamlpos.Mapping(n); m != nil && len(m.Values) > 0 {
		tk = m.Values[0].Key.GetToken()
	}
	var err error
	if c.buf, err = c.conv.Append(c.buf[:0], n); err != nil {
		return c.convError(err, tk)
	}
	return c.emit(c.pos(tk), c.buf)
}

// value is the value of node n, as the request parser reads its JSON.
func (c *yamlConverter) value(n ast.Node) (any, error) {
	b, err := c.conv.Append(nil, n)
	if err != nil {
		return nil, c.convError(err, nil)
	}
	return new(jsonParser).parse(b)
}

// key is the text of a mapping key, as a JSON object's key.
func (c *yamlConverter) key(n ast.MapKeyNode) (string, error) {
	k, err := c.conv.Key(n)
	if err != nil {
		return "", c.convError(err, nil)
	}
	return k, nil
}

// convError words a mistake of the conversion as a request file's, at its
// node, or at tk when it is about the whole request.
func (c *yamlConverter) convError(err error, tk *token.Token) error {
	je, ok := err.(*yamlpos.JSONError)
	if !ok {
		return err
	}
	if je.Node != nil {
		tk = je.Node.GetToken()
	}
	var msg string
	switch je.Kind {
	case yamlpos.TooManyValues:
		msg = fmt.Sprintf("invalid YAML: more than %d values (aliases count each time they are used)", je.Limit)
	case yamlpos.TooDeep:
		msg = fmt.Sprintf("invalid YAML: nesting deeper than %d levels", je.Limit)
	case yamlpos.TooLarge:
		msg = errTooLarge.Error()
	case yamlpos.AliasesExpand:
		msg = fmt.Sprintf("invalid YAML: aliases expand the requests to more than %s of JSON, from %s of YAML: "+
			"a file of requests holds its values written out, or names a file that holds them", english.Bytes(je.Wrote), english.Bytes(je.Read))
	case yamlpos.NotJSONNumber:
		// JSON has no such numbers, and requests are JSON: their
		// arguments go to tools as JSON, their records are JSON.
		msg = tk.Value + ": a request holds JSON values, and JSON has no infinity or NaN"
	case yamlpos.NoAnchor:
		msg = fmt.Sprintf("invalid YAML: alias %q names no anchor before it", je.Name)
	case yamlpos.AliasInAnchor:
		msg = fmt.Sprintf("invalid YAML: alias %q is used inside its own anchor", je.Name)
	case yamlpos.DuplicateKey:
		msg = fmt.Sprintf("invalid YAML: mapping key %q already defined", je.Name)
	case yamlpos.MergeNotMapping:
		msg = "invalid YAML: << merges a mapping or a list of mappings"
	case yamlpos.KeyNotScalar:
		msg = "a mapping key must be a scalar"
	default:
		msg = fmt.Sprintf("invalid YAML: %s is not supported in a request", strings.TrimSuffix(je.Node.Type().String(), "Type"))
	}
	return c.fail(tk, msg)
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
			v, err := c.value(n)
			if err == nil {
				err = c.fail(n.GetToken(), "expected a request, a list of requests, or {session_id: ..., requests: [...]}, got "+registry.Describe(v))
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
			v, err := c.value(kv.Value)
			if err != nil {
				return err
			}
			var ok bool
			if *session, ok = v.(string); !ok {
				return c.fail(kv.Value.GetToken(), "session_id: expected a string, got "+registry.Describe(v))
			}
		case key != "requests":
			return c.fail(kv.Key.GetToken(), fmt.Sprintf("unknown key %q: a file of requests has session_id and requests", key))
		}
	}
	requests := pairs[list].Value
	seq, ok := yamlpos.Body(requests).(*ast.SequenceNode)
	if !ok {
		v, err := c.value(requests)
		if err == nil {
			err = c.fail(requests.GetToken(), "requests: expected a list of requests, got "+registry.Describe(v))
		}
		return err
	}
	return c.list(seq)
}

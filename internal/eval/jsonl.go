package eval

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kesoku/kesoku/internal/jsonschema"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// A line of JSON Lines is first read by fast, over jsontext's tokens: the
// YAML parser costs some 50 µs a line, more than the session the case
// runs against a model that answers at once. fast takes only a case
// without a mistake, written as JSON is commonly written (strings for
// text, whole numbers for counts, no null); for anything else it gives up
// and the line goes to the YAML parser, which words and places every
// mistake. What fast takes, it reads as the YAML parser does: the same
// Case, position and arguments' JSON (TestFastReadsAsYAML).

// jnode is a JSON value as fast reads it: its kind (jsontext's), its text
// (a string's value, a number as written), an object's keys and values in
// order.
type jnode struct {
	kind byte
	text string
	keys []string
	vals []*jnode
}

// fast reads line, a case, or says it leaves it to the YAML parser.
// c.ID is "" when the case has no id.
func (r *reader) fast(line []byte) (c *Case, ok bool) {
	// One decoder for the file's lines: a new one costs more than a
	// line. Over a bytes.Buffer it reads the line in place.
	r.jbuf = *bytes.NewBuffer(line)
	d := &r.jdec
	d.Reset(&r.jbuf)
	r.used = 0
	defer func() {
		if len(r.nodes) > maxKeptNodes {
			// A line of many values leaves nothing for the next: its
			// nodes would keep one another alive.
			r.nodes = nil
		}
	}()
	root, ok := r.readNode(d, 0)
	if !ok || root.kind != '{' || len(root.keys) == 0 {
		return nil, false
	}
	if _, err := d.ReadToken(); err != io.EOF {
		return nil, false
	}
	// The case stands at its first key: after the line's indent, the
	// brace and spaces, all of one byte.
	col := 1
	for col < len(line) && line[col] == ' ' {
		col++
	}
	if col >= len(line) || line[col] != '"' {
		return nil, false
	}
	c = &Case{Pos: yamlpos.Pos{File: r.file, Line: r.line, Col: r.indent + col + 1}}
	for i, k := range root.keys {
		v := root.vals[i]
		switch k {
		case "id":
			ok = v.kind == '"' && v.text != ""
			c.ID = v.text
		case "prompt":
			ok = v.kind == '"' && strings.TrimSpace(v.text) != ""
			c.Prompt = v.text
		case "system":
			ok = v.kind == '"'
			c.System = v.text
		case "tools":
			if v.kind == '"' {
				c.Tools = []string{}
				for name := range strings.SplitSeq(v.text, ",") {
					if name = strings.TrimSpace(name); name != "" {
						c.Tools = append(c.Tools, name)
					}
				}
			} else {
				c.Tools, ok = fastNames(v)
				if ok && c.Tools == nil {
					c.Tools = []string{}
				}
			}
		case "max_turns":
			c.MaxTurns, ok = fastCount(v, 1, 10_000)
		case "repeat":
			c.Repeat, ok = fastCount(v, 1, MaxRepeat)
		case "expect":
			ok = fastExpect(v, &c.Expect)
		default:
			ok = false
		}
		if !ok {
			return nil, false
		}
	}
	return c, c.Prompt != ""
}

// readNode reads the next value of d; false for a mistake or a value
// deeper than a case may be. A null is read, and taken only inside an
// argument or a schema: of a case's own keys, the YAML reader takes it as
// no value.
func (r *reader) readNode(d *jsontext.Decoder, depth int) (*jnode, bool) {
	if depth > maxDepth {
		return nil, false
	}
	tok, err := d.ReadToken()
	if err != nil {
		return nil, false
	}
	n := r.node(byte(tok.Kind()))
	switch n.kind {
	case '"':
		n.text = tok.String()
	case '0':
		if _, err := tok.Float(); err != nil {
			return nil, false // out of range: the mistake is worded by checkJSON
		}
		n.text = tok.String()
	case 't', 'f', 'n':
	case '[':
		for d.PeekKind() != ']' {
			v, ok := r.readNode(d, depth+1)
			if !ok {
				return nil, false
			}
			n.vals = append(n.vals, v)
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, false
		}
	case '{':
		for d.PeekKind() != '}' {
			k, err := d.ReadToken()
			if err != nil || k.Kind() != '"' {
				return nil, false
			}
			key := k.String() // the token is the decoder's until its next call
			v, ok := r.readNode(d, depth+1)
			if !ok {
				return nil, false
			}
			n.keys, n.vals = append(n.keys, key), append(n.vals, v)
		}
		if _, err := d.ReadToken(); err != nil {
			return nil, false
		}
	default:
		return nil, false
	}
	return n, true
}

// maxKeptNodes bounds the values a reader keeps from one line for the
// next.
const maxKeptNodes = 256

// node is a jnode of kind for the line being read: one a line before
// left, emptied, or a new one.
func (r *reader) node(kind byte) *jnode {
	if r.used == len(r.nodes) {
		r.nodes = append(r.nodes, &jnode{})
	}
	n := r.nodes[r.used]
	r.used++
	*n = jnode{kind: kind, keys: n.keys[:0], vals: n.vals[:0]}
	return n
}

// fastEntries are an object's keys and values, each key one of known.
func fastEntries(n *jnode, known []string) (map[string]*jnode, bool) {
	if n.kind != '{' {
		return nil, false
	}
	kv := make(map[string]*jnode, len(n.keys))
	for i, k := range n.keys {
		if !slices.Contains(known, k) {
			return nil, false
		}
		kv[k] = n.vals[i]
	}
	return kv, true
}

// fastNames reads a list of tools' names.
func fastNames(n *jnode) ([]string, bool) {
	if n.kind != '[' {
		return nil, false
	}
	var out []string
	for _, v := range n.vals {
		if v.kind != '"' || v.text == "" {
			return nil, false
		}
		out = append(out, v.text)
	}
	return out, true
}

// fastCount reads a whole number within [lo, hi], written plainly.
func fastCount(n *jnode, lo, hi int) (int, bool) {
	if n.kind != '0' || !plainInt(n.text) {
		return 0, false
	}
	v, err := strconv.Atoi(n.text)
	return v, err == nil && v >= lo && v <= hi
}

// plainInt says s is an integer as the YAML parser writes it back: no
// sign but a minus, no -0, few enough digits to fit an int64.
func plainInt(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || len(digits) > 18 || (digits == "0" && s != "0") {
		return false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func fastExpect(n *jnode, e *Expect) bool {
	kv, ok := fastEntries(n, expectKeys)
	if !ok {
		return false
	}
	for k, v := range kv {
		switch k {
		case "tools_called":
			e.ToolsCalled, ok = fastNames(v)
		case "tools_not_called":
			e.ToolsNotCalled, ok = fastNames(v)
		case "tool_sequence":
			e.Sequence, ok = fastSequence(v)
		case "answer":
			e.Answer, ok = fastAnswer(v)
		case "max_turns":
			e.MaxTurns, ok = fastCount(v, 1, 10_000)
		case "max_tokens":
			var t int
			t, ok = fastCount(v, 1, 1<<50)
			e.MaxTokens = int64(t)
		}
		if !ok {
			return false
		}
	}
	return true
}

func fastSequence(n *jnode) (*Sequence, bool) {
	s := &Sequence{Mode: Exact}
	list := n
	if n.kind != '[' {
		kv, ok := fastEntries(n, sequenceKeys)
		if !ok {
			return nil, false
		}
		if v, ok := kv["mode"]; ok {
			if v.kind != '"' || !slices.Contains(Modes, v.text) {
				return nil, false
			}
			s.Mode = v.text
		}
		if list = kv["calls"]; list == nil || list.kind != '[' {
			return nil, false
		}
	}
	for _, item := range list.vals {
		if item.kind == '"' && item.text != "" {
			s.Calls = append(s.Calls, Call{Name: item.text})
			continue
		}
		kv, ok := fastEntries(item, callKeys)
		if !ok {
			return nil, false
		}
		name := kv["name"]
		if name == nil || name.kind != '"' || name.text == "" {
			return nil, false
		}
		c := Call{Name: name.text}
		if args, ok := kv["args"]; ok {
			if args.kind != '{' {
				return nil, false
			}
			if c.Args, ok = appendNode(nil, args); !ok {
				return nil, false
			}
		}
		s.Calls = append(s.Calls, c)
	}
	return s, true
}

func fastAnswer(n *jnode) (*AnswerCheck, bool) {
	if n.kind != '{' || len(n.keys) != 1 {
		return nil, false
	}
	a := &AnswerCheck{}
	v := n.vals[0]
	switch n.keys[0] {
	case "contains", "equals", "regex":
		if v.kind != '"' {
			return nil, false
		}
		switch n.keys[0] {
		case "contains":
			a.Contains = v.text
		case "equals":
			s := v.text
			a.Equals = &s
		default:
			re, err := regexp.Compile(v.text)
			if err != nil {
				return nil, false
			}
			a.Regex = re
		}
	case "json_schema":
		if v.kind == 'n' {
			return nil, false
		}
		doc, ok := appendNode(nil, v)
		if !ok {
			return nil, false
		}
		if a.Schema = compileSchema(doc); a.Schema == nil {
			return nil, false
		}
		a.SchemaDoc = doc
	default:
		return nil, false
	}
	return a, true
}

// compileSchema compiles an answer's JSON Schema; nil when it does not.
func compileSchema(doc json.RawMessage) *jsonschema.Schema {
	d, err := jsonschema.Decode(doc)
	if err != nil {
		return nil
	}
	s, err := jsonschema.Compile("kesoku:eval/answer", d, jsonschema.Options{})
	if err != nil {
		return nil
	}
	return s
}

// appendNode appends n as JSON as the YAML reader writes a value
// (yamlpos.JSON): keys in their order, strings as encoding/json writes
// them, numbers as the YAML parser reads them back.
func appendNode(b []byte, n *jnode) ([]byte, bool) {
	switch n.kind {
	case '"':
		q, _ := json.Marshal(n.text)
		return append(b, q...), true
	case 't':
		return append(b, "true"...), true
	case 'f':
		return append(b, "false"...), true
	case 'n':
		return append(b, "null"...), true
	case '0':
		if plainInt(n.text) {
			return append(b, n.text...), true
		}
		// A fraction, written plainly: the YAML parser reads it as a
		// float64, written back as the shortest text that reads as it,
		// and a float still (100.0, not 100).
		if strings.ContainsAny(n.text, "eE") || strings.HasPrefix(strings.TrimPrefix(n.text, "-"), "0") && !strings.HasPrefix(strings.TrimPrefix(n.text, "-"), "0.") {
			return nil, false
		}
		f, err := strconv.ParseFloat(n.text, 64)
		if err != nil {
			return nil, false
		}
		start := len(b)
		if b = strconv.AppendFloat(b, f, 'g', -1, 64); !strings.ContainsAny(string(b[start:]), ".e") {
			b = append(b, ".0"...)
		}
		return b, true
	case '[':
		b = append(b, '[')
		for i, v := range n.vals {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendNode(b, v); !ok {
				return nil, false
			}
		}
		return append(b, ']'), true
	case '{':
		b = append(b, '{')
		for i, k := range n.keys {
			if i > 0 {
				b = append(b, ',')
			}
			q, _ := json.Marshal(k)
			b = append(append(b, q...), ':')
			var ok bool
			if b, ok = appendNode(b, n.vals[i]); !ok {
				return nil, false
			}
		}
		return append(b, '}'), true
	}
	return nil, false
}

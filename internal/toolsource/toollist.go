package toolsource

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxToolDepth bounds how deep the JSON of one tool may nest. The SDK
// refuses a whole message that nests more than 1000 levels, and with it
// every tool of the list; no real schema comes near this bound.
const maxToolDepth = 200

// maxMessageDepth is how deep the SDK reads a message: a tools/list
// answer nested deeper is taken apart by kesoku first (toolList.rescue).
const maxMessageDepth = 1000

// methodListTools is the method whose answers toolList reads.
const methodListTools = "tools/list"

// toolList is what kesoku makes of a server's tools/list answers before
// the SDK decodes them: one tool the SDK cannot read (a schema nested
// thousands of levels, a field of the wrong type) would make it refuse
// the whole list, and lose every tool of the server. Such a tool is left
// out, and said so (leftOut); the input and output schemas are kept as
// the server wrote them (the SDK decodes them into maps, which lose the
// order of their properties, and models tend to fill arguments in the
// order they are declared).
type toolList struct {
	// slim hands the tools on to the SDK without their schemas (see
	// result); set before the first list.
	slim bool

	mu      sync.Mutex
	schemas map[string]json.RawMessage
	outputs map[string]json.RawMessage
	leftOut []string
}

// schema is the input schema of the tool name as the server wrote it.
func (l *toolList) schema(name string) (json.RawMessage, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	raw, ok := l.schemas[name]
	return raw, ok
}

// outputSchema is the output schema of the tool name as the server wrote
// it, nil for none.
func (l *toolList) outputSchema(name string) json.RawMessage {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.outputs[name]
}

// takeLeftOut returns what was left out of the lists read so far, and
// forgets it.
func (l *toolList) takeLeftOut() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.leftOut
	l.leftOut = nil
	return out
}

// result reads the result of a tools/list answer: the result again,
// without the tools that cannot be read (unchanged when every tool can,
// unless slim). A result that is no tools/list result at all is handed on
// as it is, for the SDK to say so in its words.
//
// With slim, the tools are handed on without their schemas, which kesoku
// keeps and the SDK then need not decode: over standard input and output
// the SDK has no use for them, and decoding 10,000 schemas into maps (and
// again, to look for header annotations) cost more than the rest of a
// listing.
func (l *toolList) result(result json.RawMessage) json.RawMessage {
	// Split by brackets, not read: a tool nested deeper than a reader
	// reads would fail the whole list in it.
	type member struct {
		key   string
		value []byte
	}
	var fields []member
	var raws [][]byte
	listed := false
	ok := members(result, func(key string, value []byte) bool {
		if key != "tools" {
			fields = append(fields, member{key, value})
			return true
		}
		listed = true
		return elements(value, func(raw []byte) bool { raws = append(raws, raw); return true })
	})
	if !ok || !listed {
		return result
	}
	kept := make([][]byte, 0, len(raws))
	var left []string
	schemas := make(map[string]json.RawMessage, len(raws))
	outputs := map[string]json.RawMessage{}
	for i, raw := range raws {
		if d := depth(raw); d > maxToolDepth {
			left = append(left, fmt.Sprintf("%s is not offered: it nests %d levels deep, more than the %d kesoku reads", toolWhat(raw, i), d, maxToolDepth))
			continue
		}
		// The SDK's Tool, but for the schemas, which the SDK takes as they
		// come: decoding them here too would double the cost of a list.
		var t struct {
			mcp.Tool
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			left = append(left, fmt.Sprintf("%s is not offered: it is no MCP tool: %v", toolWhat(raw, i), err))
			continue
		}
		if len(t.InputSchema) > 0 {
			schemas[t.Name] = t.InputSchema
		}
		if out := compactObject(t.OutputSchema); out != nil {
			outputs[t.Name] = out
		}
		if l.slim {
			t.Tool.InputSchema = map[string]any{"type": "object"}
			if b, err := json.Marshal(&t.Tool); err == nil {
				raw = b
			}
		}
		kept = append(kept, raw)
	}
	l.mu.Lock()
	if l.schemas == nil {
		l.schemas = map[string]json.RawMessage{}
	}
	for name, raw := range schemas {
		l.schemas[name] = raw
	}
	if l.outputs == nil && len(outputs) > 0 {
		l.outputs = map[string]json.RawMessage{}
	}
	for name, raw := range outputs {
		l.outputs[name] = raw
	}
	l.leftOut = append(l.leftOut, left...)
	l.mu.Unlock()
	if len(kept) == len(raws) && !l.slim {
		return result
	}
	var b bytes.Buffer
	b.WriteString(`{"tools":[`)
	for i, t := range kept {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(t)
	}
	b.WriteByte(']')
	for _, f := range fields {
		kb, _ := json.Marshal(f.key)
		b.WriteByte(',')
		b.Write(kb)
		b.WriteByte(':')
		b.Write(f.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// compactObject is raw compacted when it is a JSON object, nil otherwise:
// an outputSchema of null or of another kind is none that MCP takes.
func compactObject(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return nil
	}
	return b.Bytes()
}

// toolWhat names the tool raw, the ith of a list, in a warning.
func toolWhat(raw []byte, i int) string {
	var name string
	members(raw, func(key string, value []byte) bool {
		if key == "name" {
			_ = json.Unmarshal(value, &name)
			return false
		}
		return true
	})
	if name != "" {
		return fmt.Sprintf("tool %q", name)
	}
	return fmt.Sprintf("tool %d of the list (no name)", i+1)
}

// rescue is msg, a message the SDK would refuse for its depth, made
// readable when it is the answer to a tools/list: its tools that nest too
// deep are left out. ok is false when msg is anything else.
func (l *toolList) rescue(msg []byte, isList func(jsonrpc.ID) bool) (*jsonrpc.Response, bool) {
	id, ok := answerID(msg)
	if !ok || !isList(id) {
		return nil, false
	}
	var result []byte
	members(msg, func(key string, value []byte) bool {
		if key == "result" {
			result = value
			return false
		}
		return true
	})
	if len(result) == 0 {
		return nil, false
	}
	return &jsonrpc.Response{ID: id, Result: l.result(result)}, true
}

// depth is how deep JSON nests: objects and arrays, outside strings.
func depth(b []byte) int {
	d, most := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if d++; d > most {
				most = d
			}
		case '}', ']':
			if d > 0 {
				d--
			}
		}
	}
	return most
}

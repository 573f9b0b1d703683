package gemini

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Gemini's parametersJsonSchema takes JSON Schema, but not its
// references: "$ref" into "$defs" is refused ("reference to undefined
// schema at properties.x"), and so is a "$ref" with keys beside it other
// than description and default (google-gemini/gemini-cli#13326). MCP
// servers write both all the time (Pydantic and zod put every model in
// $defs). So a schema written outside Go goes to Gemini with each local
// reference replaced by what it names.

// forGemini is raw, a JSON Schema object, without "$schema" and with its
// local references ("#/$defs/X", "#/definitions/X", any "#/..." pointer)
// inlined, the keys beside a reference laid over what it names; "$defs"
// and "definitions" are then dropped. Keys keep their order: models tend
// to fill arguments in the order the properties are declared. A
// reference met again inside itself (a tree) becomes {"type":"object"}.
// What is not a JSON object, or holds a reference kesoku cannot resolve,
// goes as it is, but for "$schema".
func forGemini(raw json.RawMessage) json.RawMessage {
	root, ok := parseObject(raw)
	if !ok {
		return raw
	}
	hasRef := bytes.Contains(raw, []byte(`"$ref"`))
	var out []member
	for _, m := range root {
		switch m.key {
		case "$schema":
			continue
		case "$defs", "definitions":
			if hasRef {
				continue
			}
		}
		out = append(out, m)
	}
	if hasRef {
		in := &inliner{root: raw, active: map[string]bool{}, targets: map[string]json.RawMessage{}, budget: max(maxInlined, 4*len(raw))}
		for i := range out {
			v, ok := in.value(out[i].value)
			if !ok {
				return withoutDialect(raw)
			}
			out[i].value = v
		}
	}
	return writeObject(out)
}

// member is one key of a JSON object and its value, as written.
type member struct {
	key   string
	value json.RawMessage
}

// parseObject reads a JSON object's members in order; ok false when raw
// is not an object.
func parseObject(raw json.RawMessage) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var ms []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		ms = append(ms, member{key, v})
	}
	return ms, true
}

func writeObject(ms []member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// maxInlined bounds the bytes that inlining may add: a reference used
// twice in a definition used twice in... doubles the schema at each
// level, and a server's schema must not make kesoku's memory its own.
// Past it, the schema goes as the server wrote it.
const maxInlined = 1 << 20

// inliner replaces references in the values of a schema whose root is
// root; active are the references being inlined, to find a cycle;
// budget is what inlining may still add.
type inliner struct {
	root   json.RawMessage
	active map[string]bool
	budget int
	// targets are the values references name, as written, by reference.
	targets map[string]json.RawMessage
}

// value is v with its references inlined; ok false for a reference that
// cannot be resolved.
func (in *inliner) value(v json.RawMessage) (json.RawMessage, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || !bytes.Contains(v, []byte(`"$ref"`)) {
		return v, true
	}
	if in.budget < 0 {
		return nil, false
	}
	switch v[0] {
	case '[':
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			return nil, false
		}
		var b bytes.Buffer
		b.WriteByte('[')
		for i, item := range items {
			item, ok := in.value(item)
			if !ok {
				return nil, false
			}
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(item)
		}
		b.WriteByte(']')
		return b.Bytes(), true
	case '{':
	default:
		return v, true
	}
	ms, ok := parseObject(v)
	if !ok {
		return nil, false
	}
	var ref string
	var beside []member
	for _, m := range ms {
		if m.key == "$ref" && json.Unmarshal(m.value, &ref) == nil {
			continue
		}
		beside = append(beside, m)
	}
	if ref == "" {
		// A schema that is not a reference: its values may hold some,
		// and so may a key that is a property's name "$ref".
		for i := range ms {
			if ms[i].value, ok = in.value(ms[i].value); !ok {
				return nil, false
			}
		}
		return writeObject(ms), true
	}
	if in.active[ref] {
		return writeObject(overlay([]member{{"type", json.RawMessage(`"object"`)}}, beside, in)), true
	}
	target, ok := in.targets[ref]
	if !ok {
		if target, ok = pointer(in.root, ref); !ok {
			return nil, false
		}
		in.targets[ref] = target
	}
	in.active[ref] = true
	target, ok = in.value(target)
	delete(in.active, ref)
	if in.budget -= len(target); !ok || in.budget < 0 {
		return nil, false
	}
	base, ok := parseObject(target)
	if !ok {
		return nil, false // a boolean schema: nothing to lay keys over
	}
	return writeObject(overlay(base, beside, in)), true
}

// overlay is base with the keys of top laid over it: a key of both takes
// top's value in base's place; the others of top come after.
func overlay(base, top []member, in *inliner) []member {
	out := append([]member(nil), base...)
	for _, m := range top {
		v, ok := in.value(m.value)
		if !ok {
			v = m.value
		}
		replaced := false
		for i := range out {
			if out[i].key == m.key {
				out[i].value, replaced = v, true
			}
		}
		if !replaced {
			out = append(out, member{m.key, v})
		}
	}
	return out
}

// pointer is the value a local reference ("#/$defs/P") names in root.
func pointer(root json.RawMessage, ref string) (json.RawMessage, bool) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	v := root
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		v = bytes.TrimSpace(v)
		switch {
		case len(v) > 0 && v[0] == '{':
			ms, ok := parseObject(v)
			if !ok {
				return nil, false
			}
			found := false
			for _, m := range ms {
				if m.key == tok {
					v, found = m.value, true
					break
				}
			}
			if !found {
				return nil, false
			}
		case len(v) > 0 && v[0] == '[':
			var items []json.RawMessage
			n, err := strconv.Atoi(tok)
			if json.Unmarshal(v, &items) != nil || err != nil || n < 0 || n >= len(items) {
				return nil, false
			}
			v = items[n]
		default:
			return nil, false
		}
	}
	return v, true
}

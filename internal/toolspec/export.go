package toolspec

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// draft202012 is the dialect of the jsonschema format.
const draft202012 = "https://json-schema.org/draft/2020-12/schema"

// InputSchema returns a tool's canonical input schema: a JSON Schema
// object whose properties are the parameters, in declaration order, with
// their descriptions, enums, defaults, item types and nested objects.
// Every other format is built from it.
func InputSchema(params []*Property) json.RawMessage {
	return mustMarshal(paramsSchema(params))
}

// JSONSchema returns a tool as one standalone JSON Schema (draft 2020-12)
// of its arguments, titled with the tool's name and described by its
// description: the input schema, self-contained.
func JSONSchema(name, description string, params []*Property) json.RawMessage {
	root := paramsSchema(params)
	root.Dialect = draft202012
	root.Title = name
	root.Description = description
	return mustMarshal(root)
}

// OutputSchema returns the JSON Schema of a tool's result, in the style of
// InputSchema (draft 2020-12, properties in declaration order), or nil
// when the result's Go type gives none (result is nil or no object). Its
// root is always an object, as MCP requires of an outputSchema: a result
// that is a nil pointer or map encodes as null, and so has no structured
// form.
func OutputSchema(result *Schema) json.RawMessage {
	if result == nil || result.Type != TypeObject {
		return nil
	}
	c := converter{}
	root := c.schema(result)
	root.Type = TypeObject
	return mustMarshal(root)
}

// RawJSONSchema is JSONSchema for a schema given as JSON Schema (a tool
// declared outside Go): raw with the title and description added where it
// has none, and the 2020-12 dialect where it names none, so that a schema
// that names draft-07 keeps saying so. The keys are put in front of the
// schema's own, in the order of a Go tool's, and its own keys keep their
// order, which a round trip through a map would lose.
func RawJSONSchema(raw json.RawMessage, name, description string) json.RawMessage {
	var have map[string]json.RawMessage
	if err := json.Unmarshal(raw, &have); err != nil {
		// Not an object: whoever gave it broke its contract. Say it as it
		// is rather than build on it.
		return raw
	}
	var head bytes.Buffer
	add := func(key, value string) {
		if _, ok := have[key]; ok || value == "" {
			return
		}
		k, _ := marshalPlain(key)
		v, _ := marshalPlain(value)
		head.Write(k)
		head.WriteByte(':')
		head.Write(v)
		head.WriteByte(',')
	}
	add("$schema", draft202012)
	add("title", name)
	add("description", description)
	body := bytes.TrimSpace(raw)
	if head.Len() == 0 {
		return body
	}
	rest := bytes.TrimSpace(body[1:])
	out := append([]byte{'{'}, head.Bytes()...)
	if len(rest) > 0 && rest[0] == '}' {
		out = out[:len(out)-1] // an empty object: no comma before its end
	}
	return append(out, rest...)
}

// jsonSchema is the JSON form of a Schema. Its fields are in the order
// people read a schema in, and its properties keep declaration order,
// which a Go map would lose: models tend to fill arguments in the order
// they are declared.
type jsonSchema struct {
	Dialect              string          `json:"$schema,omitempty"`
	Title                string          `json:"title,omitempty"`
	Type                 any             `json:"type,omitempty"` // a Type, or [Type, "null"]
	Description          string          `json:"description,omitempty"`
	Enum                 []string        `json:"enum,omitempty"`
	Default              json.RawMessage `json:"default,omitempty"`
	Minimum              *int64          `json:"minimum,omitempty"`
	Maximum              *uint64         `json:"maximum,omitempty"`
	Items                *jsonSchema     `json:"items,omitempty"`
	Properties           *propertyList   `json:"properties,omitempty"`
	Required             []string        `json:"required,omitempty"`
	AdditionalProperties any             `json:"additionalProperties,omitempty"`
}

// propertyList is the `properties` object, in declaration order.
type propertyList []namedSchema

type namedSchema struct {
	name   string
	schema *jsonSchema
}

// MarshalJSON writes the properties as one object, in order.
func (l propertyList) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, p := range l {
		if i > 0 {
			b.WriteByte(',')
		}
		name, err := marshalPlain(p.name)
		if err != nil {
			return nil, err
		}
		b.Write(name)
		b.WriteByte(':')
		v, err := marshalPlain(p.schema)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// paramsSchema is the schema of a tool's arguments object. It always has
// `properties`, empty for a tool without parameters, since some clients
// insist on it; and it is closed (`additionalProperties: false`), since
// Validate refuses unknown arguments and a model should know so up front.
func paramsSchema(params []*Property) *jsonSchema {
	c := converter{}
	root := &jsonSchema{Type: TypeObject, AdditionalProperties: false}
	props, required := c.properties(params)
	root.Properties, root.Required = &props, required
	return root
}

// converter turns Schemas into jsonSchemas. It tracks the schemas being
// converted, so that a cyclic schema (a struct that holds itself through a
// pointer, should one ever be registered) ends as a plain object instead of
// recursing forever.
type converter struct {
	active map[*Schema]bool
}

func (c *converter) properties(params []*Property) (propertyList, []string) {
	props := make(propertyList, 0, len(params))
	var required []string
	for _, p := range params {
		props = append(props, namedSchema{p.Name, c.schema(p.Schema)})
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return props, required
}

func (c *converter) schema(s *Schema) *jsonSchema {
	if s == nil {
		return &jsonSchema{}
	}
	out := &jsonSchema{Description: s.Description, Enum: s.Enum}
	switch {
	case s.Type == "":
		// Any value: a result's interface, or a type that encodes itself.
	case s.Nullable:
		out.Type = []Type{s.Type, "null"}
	default:
		out.Type = s.Type
	}
	if len(s.Default) > 0 && json.Valid(s.Default) {
		out.Default = s.Default
	}
	if s.Type == TypeInteger {
		out.Minimum, out.Maximum = intLimits(s.numKind())
	}
	if c.active[s] {
		return out
	}
	if c.active == nil {
		c.active = make(map[*Schema]bool)
	}
	c.active[s] = true
	defer delete(c.active, s)
	switch s.Type {
	case TypeArray:
		if s.Items != nil {
			out.Items = c.schema(s.Items)
		}
	case TypeObject:
		switch {
		case len(s.Properties) > 0:
			props, required := c.properties(s.Properties)
			out.Properties, out.Required = &props, required
			// A struct's unknown fields are refused as unknown arguments
			// are.
			out.AdditionalProperties = false
		case s.AdditionalProperties != nil:
			out.AdditionalProperties = c.schema(s.AdditionalProperties)
		}
	}
	return out
}

// intLimits returns the bounds worth declaring for an integer of a Go
// kind: both for the kinds narrower than 64 bits, the lower one for the
// unsigned kinds, none for int and int64, whose bounds no model reaches.
func intLimits(goType string) (*int64, *uint64) {
	negMag, hi := intBounds(goType)
	switch {
	case negMag == 1<<63:
		return nil, nil
	case hi > 1<<32:
		var zero int64
		return &zero, nil
	}
	lo := -int64(negMag)
	return &lo, &hi
}

// mustMarshal encodes a schema built from our own types, which cannot fail
// to encode: defaults are checked with json.Valid before they are used.
func mustMarshal(v any) json.RawMessage {
	b, err := marshalPlain(v)
	if err != nil {
		panic(fmt.Sprintf("toolspec: encode schema: %v", err))
	}
	return b
}

// marshalPlain is json.Marshal without HTML escaping: schemas are read by
// models and people, never embedded in HTML.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

package toolspec

import (
	"encoding/json"
	"strings"
)

// Type is a JSON Schema type name.
type Type string

// The JSON Schema types a tool parameter can have.
const (
	TypeString  Type = "string"
	TypeInteger Type = "integer"
	TypeNumber  Type = "number"
	TypeBoolean Type = "boolean"
	TypeArray   Type = "array"
	TypeObject  Type = "object"
)

// Schema describes the type of one value: a parameter, an array item, a
// struct field or a map value. It is the single canonical form from which
// every export format is built.
type Schema struct {
	Type        Type
	Description string
	// Enum lists the allowed values of a string.
	Enum []string
	// Default is the JSON encoding of the default value, nil when none.
	Default json.RawMessage
	// Items is the element schema of an array.
	Items *Schema
	// Properties are the fields of an object (a Go struct), in declaration
	// order.
	Properties []*Property
	// AdditionalProperties is the value schema of a map with string keys.
	AdditionalProperties *Schema
	// GoType names the Go type the schema was derived from ("int32",
	// "[]string", "tools.Mode"), for error messages only.
	GoType string
	// Kind is the underlying Go kind of a number ("int8", "uint32",
	// "float32"), which bounds its range whatever the type is named; empty
	// for other types.
	Kind string
	// Nullable says that null is a value too, beside those of Type: in a
	// result, a Go pointer, slice or map that is nil encodes as null.
	// Argument schemas leave it false; null for an optional argument is
	// told by GoType's "*".
	Nullable bool
}

// numKind is the Go kind that bounds a number's range: Kind, or for specs
// written by hand without it, GoType.
func (s *Schema) numKind() string {
	if s.Kind != "" {
		return s.Kind
	}
	return strings.TrimLeft(s.GoType, "*")
}

// Property is a named member of an object schema, or a tool parameter.
type Property struct {
	Name     string
	Schema   *Schema
	Required bool
}

// IntRange returns the bounds worth declaring for an integer schema of
// its Go kind: both for the kinds narrower than 64 bits, the lower one for
// the unsigned kinds, none for int and int64, whose bounds no model
// reaches.
func (s *Schema) IntRange() (min *int64, max *uint64) { return intLimits(s.numKind()) }

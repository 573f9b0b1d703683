// Package genimpl is for generated code only: what the kesoku_gen.go
// files that kesoku gen writes call. Write tools with package registry.
//
// It is public because generated code lives in your module, and it is the
// contract that code compiles against; it changes as kesoku gen does.
// Nothing else should import it: it is to registry what protoimpl is to
// the protobuf runtime.
//
// A generated file registers each tool's Spec in registry.Default at init
// (Register), and decodes a call's arguments into the function's typed
// parameters with the Decode functions, naming the argument at fault with
// ArgAt, ArgAtIndex and ArgAtKey on the way out, without reflection.
package genimpl

import (
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/registry"
)

// Spec is one tool as kesoku gen writes it.
type Spec = toolspec.Spec[registry.ToolContext]

// Schema describes the type of one value: a parameter, an array item, a
// struct field or a map value.
type Schema = toolspec.Schema

// Property is a named member of an object schema, or a tool parameter.
type Property = toolspec.Property

// Type is a JSON Schema type name.
type Type = toolspec.Type

// The JSON Schema types a tool parameter can have.
const (
	TypeString  = toolspec.TypeString
	TypeInteger = toolspec.TypeInteger
	TypeNumber  = toolspec.TypeNumber
	TypeBoolean = toolspec.TypeBoolean
	TypeArray   = toolspec.TypeArray
	TypeObject  = toolspec.TypeObject
)

// Register adds a generated tool to registry.Default. A bad name stops
// the program at start-up: kesoku gen refuses it, so it means the
// generated file was edited by hand. A name another package's tool
// already has is kept aside instead, for kesoku to report at start-up in
// words (which tools clash, how to rename one) rather than a stack trace.
func Register(s *Spec) { toolspec.RegisterGenerated(registry.Default, s) }

// DecodeString decodes a string.
func DecodeString[T ~string](v any) (T, error) { return toolspec.DecodeString[T](v) }

// DecodeEnum decodes a string that must be one of allowed.
func DecodeEnum[T ~string](v any, allowed []string) (T, error) {
	return toolspec.DecodeEnum[T](v, allowed)
}

// DecodeBool decodes a boolean.
func DecodeBool[T ~bool](v any) (T, error) { return toolspec.DecodeBool[T](v) }

// DecodeInt decodes an integer within the range of T's kind.
func DecodeInt[T ~int | ~int8 | ~int16 | ~int32 | ~int64](v any) (T, error) {
	return toolspec.DecodeInt[T](v)
}

// DecodeUint decodes a non-negative integer within the range of T's kind.
func DecodeUint[T ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr](v any) (T, error) {
	return toolspec.DecodeUint[T](v)
}

// DecodeFloat decodes a finite number within the range of T's kind.
func DecodeFloat[T ~float32 | ~float64](v any) (T, error) { return toolspec.DecodeFloat[T](v) }

// DecodeArray decodes an array: the items are left for the caller, which
// decodes each into the element type.
func DecodeArray(v any) ([]any, error) { return toolspec.DecodeArray(v) }

// DecodeArrayLen decodes an array of exactly n items, for a Go array type.
func DecodeArrayLen(v any, n int) ([]any, error) { return toolspec.DecodeArrayLen(v, n) }

// DecodeObject decodes an object: a struct's fields or a map's entries,
// left for the caller to decode.
func DecodeObject(v any) (map[string]any, error) { return toolspec.DecodeObject(v) }

// MissingArg is the error for a required argument, named name, that is
// absent or null.
func MissingArg(name string) error { return toolspec.MissingArg(name) }

// MissingField is MissingArg for a required field of a struct.
func MissingField(name string) error { return toolspec.MissingField(name) }

// ArgAt puts the argument or field name in front of err's path.
func ArgAt(err error, name string) error { return toolspec.ArgAt(err, name) }

// ArgAtKey puts a map key in front of err's path: `labels.en`,
// `labels["a b"]`.
func ArgAtKey(err error, key string) error { return toolspec.ArgAtKey(err, key) }

// ArgAtIndex puts an array index in front of err's path: `[2].name`.
func ArgAtIndex(err error, i int) error { return toolspec.ArgAtIndex(err, i) }

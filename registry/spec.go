package registry

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/kesoku/kesoku/message"
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

// CallFunc runs a tool with validated arguments. Generated code implements
// it by decoding args into the function's typed parameters.
type CallFunc func(ctx context.Context, tc *ToolContext, args map[string]any) (any, error)

// Spec is one registered tool.
type Spec struct {
	// Name is the name models call the tool by.
	Name string
	// Summary is the first sentence of the doc comment.
	Summary string
	// Description is the whole description sent to models: the summary and
	// the body, without the Args and Returns sections.
	Description string
	// Returns is the doc comment's Returns section, if any.
	Returns string
	// Params are the tool's parameters in signature order. Injected
	// parameters (context.Context, *ToolContext) are not among them.
	Params []*Property
	// Result is the schema of what the tool returns, when its Go type
	// gives one that is an object: a struct, a map, or a pointer to one.
	// It is nil for any other result (a string, a number, a list), which
	// has no output schema. OutputSchema writes it as JSON Schema.
	Result *Schema
	// Writes marks a tool that changes files or the outside world; sessions
	// offer such tools only when they are named.
	Writes bool
	// Source is where the tool was declared, for messages: the file:line
	// of the Go function, or of a declaration in a config file.
	Source string
	// Package is the import path of the Go package that declares the
	// tool ("example.com/mytools/tools"); empty for a tool declared
	// outside Go. An unknown tool's error uses it to tell a program
	// without tools of its own, whose generated files are missing.
	Package string
	// Call runs the tool.
	Call CallFunc
	// Precheck, when set, refuses what the tool would refuse as it ran
	// beyond what its parameters say: a path outside the working
	// directory, a number beyond its bounds. It runs after the arguments
	// are validated, with the call's ToolContext, before the tool runs —
	// and where nothing runs (kesoku validate) — so it only looks: it
	// never acts. It returns nil or an error that IsInvalidArgs
	// recognises (InvalidArg). kesoku gen sets it from the function that
	// //kesoku:tool check=FUNC names.
	Precheck func(tc *ToolContext, args map[string]any) error

	// The rest is for tools declared outside Go (a command tool's
	// parameters, an MCP server's inputSchema), whose schemas are JSON
	// Schema as their authors wrote it: more than Schema can say
	// ($ref, anyOf, patterns), and worth passing on unchanged.

	// RawSchema, when set, is the tool's input schema as given (a JSON
	// Schema object, compact): InputSchema returns it, every export format
	// is built from it, and Params only describe its top-level properties
	// for listings.
	RawSchema json.RawMessage
	// RawOutputSchema, when set, is the tool's output schema as given (an
	// MCP server's outputSchema): OutputSchema returns it in place of
	// Result's.
	RawOutputSchema json.RawMessage
	// Check, when set, validates a call's arguments in place of Params
	// (see Validate). It returns nil or an error that IsInvalidArgs
	// recognises, as Validate's *ArgsError.
	Check func(args map[string]any) error
	// Timeout, when positive, bounds each call of the tool in place of
	// the run's own bound (--timeout): a tool that knows how long it may
	// take says so.
	Timeout time.Duration
}

// Model is the active model, as a tool sees it through ToolContext. The
// concrete value is the agent's provider client; tools that need more than
// its name (analyze_media) assert it to the interface they need.
type Model interface {
	// ModelName is the model's name as the user gave it.
	ModelName() string
}

// ToolContext is what a tool receives when it declares a parameter of type
// *registry.ToolContext: where the call runs and what it may touch.
type ToolContext struct {
	// Store is the gateway store records go to.
	Store message.Store
	// SessionID is the session the call belongs to.
	SessionID string
	// OriginalMsgID is the id of the tool_call that asked for this call.
	OriginalMsgID string
	// AWD is the agent working directory; Staging is where inputs handed to
	// the agent wait. Paths a model supplies are confined to the two.
	AWD, Staging string
	// Model is the active model, nil when there is none.
	Model Model
	// Protected are kesoku's own files and directories, which tools may
	// read but never write: the config files in use, the file
	// the records go to, a session's transcript. The built-in file tools
	// refuse to write them; a tool that writes files its own way should
	// too.
	Protected []Protected
}

// CutOutput is a result too large to hold, cut by the tool itself as it
// came: the head and tail of its text, and the file where the whole of it
// was written. A tool whose output can outgrow any record (a program's
// standard output) returns one rather than hold the whole in memory; the
// record is then the one of any output larger than --max-output, its head
// and tail around a note of what was cut and where the whole is.
type CutOutput struct {
	// Head and Tail begin and end the output, as text; together at least
	// as long as a record holds.
	Head, Tail string
	// Bytes is the size of the whole output.
	Bytes int64
	// SavedTo is the file that holds the whole output, "" when it could
	// not be written; SaveErr then says why.
	SavedTo string
	SaveErr error
}

// Protected is a file or directory of kesoku's own that tools must not
// write; a directory protects everything below it.
type Protected struct {
	// Path is absolute.
	Path string
	// Why says what the path is, for the refusal a model reads: "it is
	// the file this run writes its records to".
	Why string
}

// IntRange returns the bounds worth declaring for an integer schema of
// its Go kind: both for the kinds narrower than 64 bits, the lower one for
// the unsigned kinds, none for int and int64, whose bounds no model
// reaches.
func (s *Schema) IntRange() (min *int64, max *uint64) { return intLimits(s.numKind()) }

// Package toolset is the set of tools a command runs: a registry's Go
// tools and those declared outside Go (command tools, MCP servers').
//
// A Tool is what the runner, the agent loop and mcp serve call, whatever
// its kind; a Set holds them by name, with the sources of tools that cost
// something to list (an MCP server's), loaded when first needed. None of
// it is a tool author's: package registry is theirs.
package toolset

import (
	"context"
	"encoding/json"
	"time"

	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/registry"
)

// Spec is a Go tool as it is registered.
type Spec = toolspec.Spec[registry.ToolContext]

// CallFunc runs a tool with validated arguments.
type CallFunc = func(ctx context.Context, tc *registry.ToolContext, args map[string]any) (any, error)

// Tool is one tool of a set: a Go tool's spec, or a tool declared outside
// Go, whose schemas are JSON Schema as their authors wrote it.
type Tool struct {
	// Name is the name models call the tool by.
	Name string
	// Summary is the first sentence of the description.
	Summary string
	// Description is the whole description sent to models.
	Description string
	// Returns is a Go tool's doc comment's Returns section, if any.
	Returns string
	// Params are the tool's parameters in order; for a tool with a
	// RawSchema, its top-level properties, for listings.
	Params []*toolspec.Property
	// Result is the schema of what a Go tool returns, when it is an
	// object; OutputSchema writes it as JSON Schema.
	Result *toolspec.Schema
	// Writes marks a tool that changes files or the outside world; sessions
	// offer such tools only when they are named.
	Writes bool
	// Source is where the tool was declared, for messages: the file:line
	// of the Go function, or of a declaration in a config file.
	Source string
	// Package is the import path of the Go package that declares the
	// tool; empty for a tool declared outside Go.
	Package string
	// Call runs the tool.
	Call CallFunc
	// Precheck, when set, refuses what the tool would refuse as it ran
	// (Spec.Precheck).
	Precheck func(tc *registry.ToolContext, args map[string]any) error

	// The rest is for tools declared outside Go (a command tool's
	// parameters, an MCP server's inputSchema), whose schemas say more
	// than Schema can ($ref, anyOf, patterns), and are worth passing on
	// unchanged.

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

// FromSpec is the tool of a Go tool's spec.
func FromSpec(s *Spec) *Tool {
	return &Tool{
		Name:        s.Name,
		Summary:     s.Summary,
		Description: s.Description,
		Returns:     s.Returns,
		Params:      s.Params,
		Result:      s.Result,
		Writes:      s.Writes,
		Source:      s.Source,
		Package:     s.Package,
		Call:        s.Call,
		Precheck:    s.Precheck,
	}
}

// InputSchema returns the tool's canonical input schema: a JSON Schema
// object whose properties are the parameters, in declaration order. Every
// other format is built from it. A tool declared outside Go returns its
// RawSchema as it was given.
func (t *Tool) InputSchema() json.RawMessage {
	if len(t.RawSchema) > 0 {
		return t.RawSchema
	}
	return toolspec.InputSchema(t.Params)
}

// JSONSchema returns the tool as one standalone JSON Schema (draft
// 2020-12) of its arguments, titled with the tool's name and described by
// its description. For a tool declared outside Go it is its RawSchema
// with the title and description added where the schema has none, and
// the 2020-12 dialect where it names none.
func (t *Tool) JSONSchema() json.RawMessage {
	if len(t.RawSchema) > 0 {
		return toolspec.RawJSONSchema(t.RawSchema, t.Name, t.Description)
	}
	return toolspec.JSONSchema(t.Name, t.Description, t.Params)
}

// OutputSchema returns the JSON Schema of the tool's result, or nil when
// it has none (see toolspec.OutputSchema). A tool declared outside Go
// returns its RawOutputSchema as it was given.
func (t *Tool) OutputSchema() json.RawMessage {
	if len(t.RawOutputSchema) > 0 {
		return t.RawOutputSchema
	}
	return toolspec.OutputSchema(t.Result)
}

// Validate checks a call's arguments before anything runs: by the tool's
// Check when it has one, by its parameters otherwise (toolspec.Validate).
func (t *Tool) Validate(args map[string]any) error {
	if t.Check != nil {
		return t.Check(args)
	}
	return toolspec.Validate(t.Name, t.Params, args)
}

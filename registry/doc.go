// Package registry is what a tool author writes tools with: Add, Default
// and ToolContext.
//
// A tool is a plain Go function whose doc comment ends with the line
// //kesoku:tool. kesoku gen reads the comment and the signature and writes
// kesoku_gen.go beside the function: an init that registers the tool in
// Default and decodes a call's arguments into the typed parameters (no
// reflection on the hot path), through package registry/genimpl, which
// is for generated code only. A blank import of the package then gives a
// binary those tools:
//
//	import _ "example.com/mytools/tools"
//
// A tool whose arguments are the fields of a struct can be registered
// without kesoku gen, by Add: its parameters come from the struct's json,
// description and enum tags, and its calls are validated and decoded by
// the same functions as generated code's, so that a mistake reads the
// same either way. Both kinds of tool live in one registry.
//
// A tool may take a context.Context (the call's, cancelled on interrupt or
// timeout) and a *ToolContext (the session, the id of the tool call, the
// working directory, the record store); neither appears in any schema. It
// returns any JSON-encodable value and, optionally, an error last; an
// error made with InvalidArg blames an argument, so that the call's record
// says invalid_args rather than tool_error. A tool whose result is an
// object (a struct, a map, or a pointer to one) declares its output schema
// too, which MCP clients read. A tool whose output can outgrow any record
// returns a CutOutput.
//
// The package imports no provider SDK: a module of tools links no model
// client unless its binary uses one.
package registry

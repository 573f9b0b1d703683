// Package registry is kesoku's front door for tool authors: tools, the
// registry that holds them, and what a tool receives.
//
// A tool is what a model can call; the central registry holds them, and a
// tool receives a ToolContext when it runs.
//
// A tool is a plain Go function whose doc comment ends with the line
// //kesoku:tool. kesoku gen reads the comment and the signature and writes
// kesoku_gen.go beside the function: an init that registers a Spec in
// Default, whose Call decodes a call's arguments into the typed
// parameters with the Decode functions (no reflection on the hot path).
// A blank import of the package then gives a binary those tools:
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
// working directory, the record store and the active model); neither
// appears in any schema. It returns any JSON-encodable value and,
// optionally, an error last; an error made with InvalidArg blames an
// argument, so that the call's record says invalid_args rather than
// tool_error.
//
// A tool whose result is an object (a struct, a map, or a pointer to one)
// declares its output schema too (Spec.Result, Spec.OutputSchema), which
// MCP clients read.
//
// What a tool author touches is Spec, ToolContext, Default, Add and
// Register (or the generated code that calls them), InvalidArg, and the record
// types of package message that a ToolContext's Store takes. The rest —
// Schema, Property, Validate, the Decode and ArgAt functions, ArgError —
// is what generated code and kesoku's own packages call; it is public
// because generated code lives in your module, and documented because it
// is the contract that code compiles against. The package imports no
// provider SDK: a module of tools links no model client unless its binary
// uses one.
package registry

package registry

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/message"
)

// Registry holds tools by name. A program's tools are in Default; New
// makes another, for tests. A tool author hands one to Add; its methods
// are what generated code and kesoku call.
type Registry = toolspec.Registry[ToolContext]

// New returns an empty registry.
func New() *Registry { return toolspec.NewRegistry[ToolContext]() }

// Default is the central registry, the one generated code and Add fill
// at init; it is read-only after.
var Default = New()

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

// InvalidArg marks err as the fault of the argument named (a path outside
// the working directory, a malformed pattern) rather than of the tool, so
// that the call's record says invalid_args rather than tool_error.
func InvalidArg(name string, err error) error { return toolspec.InvalidArg(name, err) }

// Add registers fn in r as the tool called name, described to models by
// description, for a tool whose arguments are the fields of a struct: no
// doc comment and no kesoku gen. The parameters are In's exported fields,
// as encoding/json sees them:
//
//   - the json tag gives a parameter's name (the field's name without one),
//     and "-" leaves the field out;
//   - a parameter is required unless its tag says omitempty (or omitzero)
//     or its type is a pointer;
//   - a `description:"..."` tag describes it, and an `enum:"a,b"` tag
//     limits a string (or the strings of a slice, map or pointer) to those
//     values (kesoku gen finds a string type's constants; reflection
//     cannot, so a typed tool lists them in the tag);
//   - its type is a string, a bool, any integer or float kind, a slice, an
//     array, a map with string keys, a struct (its fields by the same rules,
//     embedded structs flattened) or a pointer to one of them.
//
// A call's arguments are validated and decoded by the same functions as a
// doc-comment tool's generated code, so a mistake reads the same either
// way. fn gets the call's context and ToolContext; an error it returns
// fails the call (made with InvalidArg, it blames an argument). When Out
// is an object (a struct, a map, or a pointer to one) it is also the
// tool's output schema, which MCP clients read.
//
// Add returns an error for a name that does not match ^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$ (the names every provider
// accepts), a name
// r already has, an empty description, an In that is not a struct or has
// a field of a type no JSON schema describes (an interface, a channel, a
// map with other keys, a type that decodes itself), and an Out that
// cannot be encoded as JSON. Types are read by reflection once, here;
// registration by kesoku gen is the faster path per call.
func Add[In, Out any](r *Registry, name, description string, fn func(ctx context.Context, tc *ToolContext, in In) (Out, error)) error {
	source, pkg := caller()
	s, err := toolspec.Typed(name, description, fn, source, pkg)
	if err != nil {
		return err
	}
	return r.Register(s)
}

// caller says where Add was called from: the file:line, as kesoku gen
// writes a tool's Source, and the caller's package.
func caller() (source, pkg string) {
	pc, file, line, ok := runtime.Caller(2)
	if !ok {
		return "unknown", ""
	}
	source = fmt.Sprintf("%s:%d", filepath.Base(file), line)
	if f := runtime.FuncForPC(pc); f != nil {
		// "example.com/mytools/tools.init.0": the package is up to the
		// first dot after the last slash.
		name := f.Name()
		slash := strings.LastIndexByte(name, '/')
		if dot := strings.IndexByte(name[slash+1:], '.'); dot >= 0 {
			pkg = name[:slash+1+dot]
		}
	}
	return source, pkg
}

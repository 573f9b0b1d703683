package schema

import (
	"encoding/json"

	"github.com/kesoku/kesoku/internal/toolset"
)

// The formats that need no SDK, built from the registry's canonical
// schemas.

// mcpTool is one element of the `tools` of an MCP tools/list result.
type mcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the schema of the tool's structured result, for a
	// tool whose result is an object; the providers' formats have no
	// place for it.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// mcpTools returns the `tools` of an MCP tools/list result.
func mcpTools(specs []*toolset.Tool) []mcpTool {
	out := make([]mcpTool, len(specs))
	for i, s := range specs {
		out[i] = mcpTool{Name: s.Name, Description: s.Description, InputSchema: s.InputSchema(), OutputSchema: s.OutputSchema()}
	}
	return out
}

// jsonSchemas returns one standalone JSON Schema per tool.
func jsonSchemas(specs []*toolset.Tool) []json.RawMessage {
	out := make([]json.RawMessage, len(specs))
	for i, s := range specs {
		out[i] = s.JSONSchema()
	}
	return out
}

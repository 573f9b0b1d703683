package claude

import (
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/kesoku/kesoku/internal/toolset"
)

// Tools returns the value of the `tools` field of a Claude Messages
// request, in the Anthropic SDK's own types so that a session passes it
// straight to the client. The input schema is the canonical one: Claude
// takes JSON Schema as it is.
func Tools(specs []*toolset.Tool) []anthropic.ToolUnionParam {
	out := make([]anthropic.ToolUnionParam, len(specs))
	for i, s := range specs {
		out[i] = anthropic.ToolUnionParam{OfTool: Tool(s)}
	}
	return out
}

// Tool returns the ToolParam of one tool.
func Tool(s *toolset.Tool) *anthropic.ToolParam {
	if len(s.RawSchema) > 0 {
		return rawTool(s)
	}
	// The properties stay raw JSON, which keeps them in declaration order;
	// the SDK's own type would make them a Go map.
	var root struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(s.InputSchema(), &root); err != nil {
		panic(fmt.Sprintf("claude: decode the input schema of %s: %v", s.Name, err))
	}
	t := &anthropic.ToolParam{
		Name: s.Name,
		InputSchema: anthropic.ToolInputSchemaParam{
			Properties:  root.Properties,
			Required:    root.Required,
			ExtraFields: map[string]any{"additionalProperties": false},
		},
	}
	if s.Description != "" {
		t.Description = anthropic.String(s.Description)
	}
	return t
}

// rawTool is the ToolParam of a tool whose schema was written outside Go
// (an MCP server's, a command tool's): sent as it was written, its other
// keywords ($defs, additionalProperties, ...) beside the properties.
func rawTool(s *toolset.Tool) *anthropic.ToolParam {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(s.RawSchema, &root); err != nil {
		panic(fmt.Sprintf("claude: decode the input schema of %s: %v", s.Name, err))
	}
	props := root["properties"]
	if len(props) == 0 {
		props = json.RawMessage(`{}`) // Claude wants properties, if empty
	}
	in := anthropic.ToolInputSchemaParam{Properties: props}
	if r, ok := root["required"]; ok {
		_ = json.Unmarshal(r, &in.Required) // a schema that says otherwise is sent without it
	}
	for k, v := range root {
		switch k {
		case "type", "properties", "required":
			continue
		}
		if in.ExtraFields == nil {
			in.ExtraFields = map[string]any{}
		}
		in.ExtraFields[k] = v
	}
	t := &anthropic.ToolParam{Name: s.Name, InputSchema: in}
	if s.Description != "" {
		t.Description = anthropic.String(s.Description)
	}
	return t
}

package mcpserve

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
)

// Structured results. A result that is a JSON object goes back as
// structuredContent, with its JSON as the text beside it for clients that
// read only text; so does any other value for a client of 2026-07-28 or
// later, which takes structured content of any JSON value. A tool whose
// result has a schema (its Go result type, or the outputSchema of the
// server it comes from) declares it as its outputSchema.
//
// A client that validates (the TypeScript SDK's) refuses, as a protocol
// error, a successful result of a tool with an output schema that has no
// structured content or whose structured content does not conform; the
// model then reads nothing of it. So a result that cannot conform to an
// object schema — null (a nil pointer or map), or an object cut to fit
// the output limit, which is then text — is answered as an error that
// says so, which every client passes on as it is. The record says what the
// tool returned.

// output is what kesoku knows of a tool's output schema.
type output struct {
	// schema is the tool's outputSchema, nil for none.
	schema json.RawMessage
	// object says that the schema's root is "type": "object": a
	// successful result must be an object. Clients of revisions before
	// 2026-07-28 take no other outputSchema.
	object bool
}

// outputOf is what spec declares of its result.
func outputOf(spec *toolset.Tool) output {
	schema := spec.OutputSchema()
	if len(schema) == 0 {
		return output{}
	}
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil || root == nil {
		// Not a JSON object (a schema of true, say, or broken): MCP takes
		// none such, and a client would refuse the whole list for it.
		return output{}
	}
	return output{schema: schema, object: root["type"] == "object"}
}

// modernRequest reports whether a request is of a revision whose clients
// take structured content of any JSON value and an outputSchema of any
// root (2026-07-28 and later): its own _meta says so, or its session's
// initialize did.
func modernRequest(req mcp.Request) bool {
	v, ok := req.(interface{ ProtocolVersion() string })
	return ok && v.ProtocolVersion() >= statelessVersion
}

// legacyTools is the middleware that lists, to clients of revisions
// before 2026-07-28, the tools whose outputSchema is no object's without
// it: such a client refuses the whole list for one (an outputSchema's root
// is "type": "object" in its revision). Their results reach it as text,
// and objects as structured content, as a tool's without a schema.
func (s *Server) legacyTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "tools/list" || err != nil || len(s.legacy) == 0 || modernRequest(req) {
			return res, err
		}
		list, ok := res.(*mcp.ListToolsResult)
		if !ok || list == nil {
			return res, err
		}
		// A copy: the SDK's result holds the server's own tools.
		cp := *list
		cp.Tools = make([]*mcp.Tool, len(list.Tools))
		for i, t := range list.Tools {
			if lt, ok := s.legacy[t.Name]; ok {
				t = lt
			}
			cp.Tools[i] = t
		}
		return &cp, nil
	}
}

// result is what the client reads of a call's record: the content as text
// (a string as itself, any other value as its JSON) and as structured
// content too, when it is an object or the client takes any value
// (anyValue); for an error, isError and the text a model reads in a
// session: the kind, then what went wrong. A tool error carries no
// structured content, and neither does a result that cannot conform to
// the tool's object schema (out), which is answered as an error.
func result(rec *message.Record, out output, anyValue bool) *mcp.CallToolResult {
	if rec.IsError || rec.Error != nil {
		msg := "the call failed"
		if rec.Error != nil {
			msg = string(rec.Error.Kind) + ": " + rec.Error.Message
		}
		return errorResult(msg)
	}
	text := string(rec.Content)
	var str string
	if len(rec.Content) > 0 && rec.Content[0] == '"' && json.Unmarshal(rec.Content, &str) == nil {
		text = str
	}
	isObject := len(rec.Content) > 0 && rec.Content[0] == '{'
	if out.object && !isObject {
		return errorResult(unstructured(rec, text))
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	if rec.HookFeedback != "" {
		// What the hooks after the call said of its result goes with it,
		// as a session's model reads it.
		res.Content = append(res.Content, &mcp.TextContent{Text: "hook feedback: " + rec.HookFeedback})
	}
	if len(rec.Content) > 0 && (anyValue || isObject) {
		// Clients of protocol versions before 2026-07-28 take structured
		// content only as an object.
		res.StructuredContent = json.RawMessage(rec.Content)
	}
	return res
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
}

// unstructured says why a successful result of a tool whose output
// schema is an object's is answered as an error, and what it was.
func unstructured(rec *message.Record, text string) string {
	if rec.Truncated != nil {
		// The text says what was cut and where the whole result is.
		return "the result was too large and was cut, so it is not the object the tool's output schema describes; what is left of it:\n" + text
	}
	if string(rec.Content) == "null" {
		return "the tool returned null (no result), not the object its output schema describes"
	}
	return "the tool's result is not the object its output schema describes: " + text
}

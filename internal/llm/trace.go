package llm

import (
	"encoding/json"

	"github.com/kesoku/kesoku/message"
)

// traceMessages is the conversation as the GenAI conventions write it
// on a chat span (gen_ai.input.messages, gen_ai.output.messages), when
// content is captured: a role and its parts, each text, a tool call or a
// tool's response.
func traceMessages(msgs []Message) []traceMessage {
	out := make([]traceMessage, 0, len(msgs))
	for _, m := range msgs {
		tm := traceMessage{Role: string(m.Role)}
		results := 0
		for _, p := range m.Parts {
			switch {
			case p.ToolCall != nil:
				tm.Parts = append(tm.Parts, tracePart{Type: "tool_call", ID: p.ToolCall.ID, Name: p.ToolCall.Name, Arguments: p.ToolCall.Args})
			case p.ToolResult != nil:
				results++
				tm.Parts = append(tm.Parts, tracePart{Type: "tool_call_response", ID: p.ToolResult.CallID, Response: p.ToolResult.Content})
			case p.Blob != nil:
				tm.Parts = append(tm.Parts, tracePart{Type: "blob", MIMEType: p.Blob.BareMIME()})
			case p.Thought:
				tm.Parts = append(tm.Parts, tracePart{Type: "reasoning", Content: p.Text})
			case p.Text != "":
				tm.Parts = append(tm.Parts, tracePart{Type: "text", Content: p.Text})
			}
		}
		if m.Role == message.RoleUser && results > 0 && results == len(tm.Parts) {
			// Tool results travel in user messages; the conventions
			// give them a role of their own.
			tm.Role = "tool"
		}
		out = append(out, tm)
	}
	return out
}

type traceMessage struct {
	Role  string      `json:"role"`
	Parts []tracePart `json:"parts"`
}

type tracePart struct {
	Type      string          `json:"type"`
	Content   string          `json:"content,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Response  json.RawMessage `json:"response,omitempty"`
	MIMEType  string          `json:"mime_type,omitempty"`
}

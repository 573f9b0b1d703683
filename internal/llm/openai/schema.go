package openai

import (
	"encoding/json"
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/kesoku/kesoku/registry"
)

// tool is one element of the `tools` of a Chat Completions request, as
// kesoku writes it: the function's canonical JSON Schema as it is, its
// properties in the order they were declared (the SDK's own
// FunctionParameters, a Go map, would sort them).
type tool struct {
	Type     string   `json:"type"`
	Function function `json:"function"`
}

type function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// Tools returns the value of the `tools` field of a Chat Completions
// request, in the SDK's own types so that a session passes it straight
// to the client; `kesoku tools schema --format openai` prints it.
func Tools(specs []*registry.Spec) []openai.ChatCompletionToolUnionParam {
	out := make([]openai.ChatCompletionToolUnionParam, len(specs))
	for i, s := range specs {
		out[i] = Tool(s)
	}
	return out
}

// Tool returns the declaration of one tool.
func Tool(s *registry.Spec) openai.ChatCompletionToolUnionParam {
	raw, err := json.Marshal(tool{Type: "function", Function: function{Name: s.Name, Description: s.Description, Parameters: s.InputSchema()}})
	if err != nil {
		panic(fmt.Sprintf("openai: encode the declaration of %s: %v", s.Name, err))
	}
	f := param.Override[openai.ChatCompletionFunctionToolParam](json.RawMessage(raw))
	return openai.ChatCompletionToolUnionParam{OfFunction: &f}
}

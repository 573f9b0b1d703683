package openai

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/kesoku/kesoku/internal/toolset"
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
func Tools(specs []*toolset.Tool) []openai.ChatCompletionToolUnionParam {
	out := make([]openai.ChatCompletionToolUnionParam, len(specs))
	for i, s := range specs {
		out[i] = Tool(s)
	}
	return out
}

// MaxDescription is the longest function description OpenAI takes, in
// characters: a longer one is refused with 400 ("string too long.
// Expected a string with maximum length 1024").
const MaxDescription = 1024

// MaxTools is the most functions OpenAI takes in one request ("Invalid
// 'tools': array too long. Expected an array with maximum length 128").
// Servers of one's own that speak its API set their own limits, if any.
const MaxTools = 128

// description is a tool's description as OpenAI takes it: cut, with an
// ellipsis, when it is longer (an MCP server's tools often are), so that
// the session goes on rather than being refused whole. Compatible
// servers take what OpenAI takes.
func description(d string) string {
	if utf8.RuneCountInString(d) <= MaxDescription {
		return d
	}
	runes := []rune(d)
	return string(runes[:MaxDescription-1]) + "…"
}

// Tool returns the declaration of one tool.
func Tool(s *toolset.Tool) openai.ChatCompletionToolUnionParam {
	raw, err := json.Marshal(tool{Type: "function", Function: function{Name: s.Name, Description: description(s.Description), Parameters: s.InputSchema()}})
	if err != nil {
		panic(fmt.Sprintf("openai: encode the declaration of %s: %v", s.Name, err))
	}
	f := param.Override[openai.ChatCompletionFunctionToolParam](json.RawMessage(raw))
	return openai.ChatCompletionToolUnionParam{OfFunction: &f}
}

package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
)

// FuzzAccumulator feeds the chunks of a stream, as a server may send
// anything, to the accumulator: it never panics, and every call it makes
// has an id and arguments that are one JSON object (what was not is kept
// in BadArgs, for the model to be told).
func FuzzAccumulator(f *testing.F) {
	f.Add(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}` + "\n" +
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
	f.Add(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\"a\""}}]}}]}` + "\n" +
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}`)
	f.Add(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"f"}}]}}]}`)
	f.Add(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f","arguments":"[1]"}}]},"finish_reason":"tool_calls"}]}`)
	f.Add(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]}}]}` + "\n" +
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c2","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`)
	f.Add(`{"choices":7}` + "\nnull\n" + `{"choices":[{"index":-1,"delta":{"refusal":"no"},"finish_reason":"length"}]}`)
	f.Fuzz(func(t *testing.T, stream string) {
		acc := &accumulator{}
		for line := range strings.SplitSeq(stream, "\n") {
			var chunk openai.ChatCompletionChunk
			if json.Unmarshal([]byte(line), &chunk) != nil {
				continue
			}
			if _, err := acc.add(&chunk); err != nil {
				return
			}
		}
		resp := acc.response()
		for _, p := range resp.Message.Parts {
			if c := p.ToolCall; c != nil {
				if c.ID == "" || !isObject(c.Args) {
					t.Fatalf("call %+v: want an id and arguments that are an object", c)
				}
			}
		}
	})
}

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

// FuzzAsEvents feeds a whole answer, as a server that ignores "stream":
// true may send anything, to asEvents: it never panics, and makes one
// event of it (then [DONE]), whatever line breaks it held.
func FuzzAsEvents(f *testing.F) {
	f.Add(`{"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`)
	f.Add("null")
	f.Add("<html>\n<body>502</body>\n</html>")
	f.Add(`{"choices":[{"message":null},{"message":{"tool_calls":7}}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		out := string(asEvents([]byte(body)))
		events := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
		if len(events) > 2 || !strings.HasPrefix(out, "data: ") {
			t.Fatalf("asEvents(%q) = %q: want one event, then [DONE]", body, out)
		}
		for _, ev := range events {
			if strings.Contains(ev, "\n") {
				t.Fatalf("asEvents(%q) = %q: an event of more than one line", body, out)
			}
		}
	})
}

package gemini

import (
	"context"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/llm"
)

// FuzzResultLines: a batch's results file is outside input, read a line
// at a time: whatever it holds, every result handed on has a key and
// either an answer or an error, and a line that is no keyed result stops
// the reading with a malformed answer, never a panic.
func FuzzResultLines(f *testing.F) {
	f.Add([]byte(`{"key":"r1","response":{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi."}]},"finishReason":"STOP"}]}}` + "\n" +
		`{"key":"r2","error":{"code":400,"message":"no","status":"INVALID_ARGUMENT"}}` + "\n\n"))
	f.Add([]byte(`{"key":"r1","response":null}`))
	f.Add([]byte("\r\n  \n{\"key\":\"\"}\n"))
	f.Add([]byte(`[1,2]`))
	p, err := New(context.Background(), llm.ClientOptions{APIKey: "k", Model: "m", BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := p.resultLines(strings.NewReader(string(data)), func(key string, resp *llm.Response, rerr error) error {
			if key == "" {
				t.Fatal("a result without a key")
			}
			if (resp == nil) == (rerr == nil) {
				t.Fatalf("result %s: answer %v, error %v: want one of them", key, resp, rerr)
			}
			return nil
		})
		if _, ok := err.(*llm.MalformedError); err != nil && !ok {
			t.Fatalf("error %T %v, want a malformed answer", err, err)
		}
	})
}

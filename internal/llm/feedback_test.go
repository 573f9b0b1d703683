package llm

import (
	"encoding/json"
	"testing"

	"github.com/kesoku/kesoku/message"
)

// What the hooks after a call said of its result reaches the model with
// the result; a result without it reads as it always did.
func TestResultOfHookFeedback(t *testing.T) {
	t.Parallel()
	rec := &message.Record{CallID: "c1", Name: "write_file", Content: json.RawMessage(`{"bytes":2}`)}
	if got := string(resultOf(rec).Content); got != `{"bytes":2}` {
		t.Errorf("content %s", got)
	}
	rec.HookFeedback = "lint: 3 problems"
	r := resultOf(rec)
	if got, want := string(r.Content), `{"result":{"bytes":2},"hook_feedback":"lint: 3 problems"}`; got != want || r.IsError {
		t.Errorf("content %s (error %v), want %s", got, r.IsError, want)
	}
}

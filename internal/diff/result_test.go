package diff

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/message"
)

// resultFields are the members of message.Record that readResult reads.
type resultFields struct {
	ParentID string             `json:"parent_id,omitempty"`
	Type     message.Type       `json:"type"`
	Status   message.Status     `json:"status"`
	Name     string             `json:"name,omitempty"`
	Content  json.RawMessage    `json:"content,omitempty"`
	IsError  bool               `json:"is_error,omitempty"`
	Error    *message.ErrorInfo `json:"error,omitempty"`
	CallID   string             `json:"call_id,omitempty"`
}

// FuzzReadResult holds the fast reader of a record line to encoding/json:
// a line it reads decodes as the members of a message.Record it reads, to
// the same result; a line that does not decode so it leaves to
// encoding/json.
func FuzzReadResult(f *testing.F) {
	for _, s := range []string{
		`{"id":"1","session_id":"s","parent_id":"call_1","role":"tool","type":"tool_result","status":"responded","name":"calculate_sum","content":3,"created_at":"2026-11-30T12:00:00Z","duration_ms":0}`,
		`{"parent_id":"p","type":"tool_result","status":"aborted","is_error":true,"error":{"kind":"aborted","message":"interrupted"},"call_id":"toolu_1"}`,
		`{"type":"tool_result","parent_id":"a\u0062","content":{"x":[1,"\u00e9",null]},"content":null}`,
		`{"error":{"kind":"x"},"error":{"message":"y"}}`,
		`{"error":{"kind":"x"},"error":null,"is_error":null}`,
		`{"Type":"tool_result","PARENT_ID":"x"}`,
		`{"\u0074ype":"tool_result"}`,
		`{"status":5}`,
		`{"error":"boom"}`,
		`{"created_at":"not a time","type":"tool_result"}`,
		`[1]`,
		`{"content":1e999}`,
		"{\"name\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := readResult(line)
		var f resultFields
		err := json.Unmarshal(line, &f)
		if !ok {
			return
		}
		if err != nil {
			t.Fatalf("readResult read %q, which encoding/json refuses: %v", line, err)
		}
		want := resultOf(&message.Record{ParentID: f.ParentID, Type: f.Type, Status: f.Status, Name: f.Name, Content: f.Content, IsError: f.IsError, Error: f.Error, CallID: f.CallID})
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(result{})); diff != "" {
			t.Fatalf("readResult(%q) mismatch (-encoding/json +readResult):\n%s", line, diff)
		}
	})
}

package request

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// transcript is a session transcript as kesoku session writes it: a user
// text, a model turn with two tool calls (one whose turn was cut), the
// results, the answer.
const transcript = `{"id":"u1","session_id":"s1","role":"user","type":"text","status":"responded","content":"add them","created_at":"2026-11-30T12:00:00Z"}
{"id":"c1","session_id":"s1","parent_id":"u1","role":"assistant","type":"tool_call","status":"responded","name":"calculate_sum","content":{"a":1,"b":2},"created_at":"2026-11-30T12:00:01Z","call_id":"toolu_01","model":"claude-sonnet-4-5"}
{"id":"c2","session_id":"s1","parent_id":"u1","role":"assistant","type":"tool_call","status":"responded","name":"list_dir","content":{},"created_at":"2026-11-30T12:00:01Z","model":"gemini-2.5-flash","provider_data":{"thoughtSignature":"x"}}

{"id":"r1","session_id":"s1","parent_id":"c1","role":"tool","type":"tool_result","status":"responded","name":"calculate_sum","content":3,"created_at":"2026-11-30T12:00:02Z","duration_ms":0,"call_id":"toolu_01"}
{"id":"c3","session_id":"s1","parent_id":"u1","role":"assistant","type":"tool_call","status":"responded","name":"write_file","content":{"path":"a.txt","content":"hal"},"created_at":"2026-11-30T12:00:03Z","call_id":"toolu_02","cut":"max_tokens"}
{"id":"c4","session_id":"s1","parent_id":"u1","role":"assistant","type":"tool_call","status":"responded","name":"calculate_sum","content":"{\"a\": 1,","created_at":"2026-11-30T12:00:03Z","call_id":"toolu_03"}
{"id":"a1","session_id":"s1","parent_id":"r1","role":"assistant","type":"text","status":"responded","content":"3","created_at":"2026-11-30T12:00:04Z","model":"claude-sonnet-4-5","cut":"max_tokens"}
`

func TestLoadRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, content string
		want                []loaded
	}{
		{"a transcript's tool calls", "s.jsonl", transcript, []loaded{
			{ID: "toolu_01", Name: "calculate_sum", Args: map[string]any{"a": int64(1), "b": int64(2)}, Line: 2, Col: 1},
			{ID: "c2", Name: "list_dir", Args: map[string]any{}, Line: 3, Col: 1},
			{ID: "toolu_02", Name: "write_file", Args: map[string]any{"path": "a.txt", "content": "hal"}, Line: 6, Col: 1,
				Err: "s.jsonl:6:1: not run: the model's turn was cut short (max_tokens), so the call may be incomplete; the session did not run it either"},
			{ID: "toolu_03", Name: "calculate_sum", Line: 7, Col: 1,
				// The arguments a model sent that were no JSON object, as the
				// session recorded them: refused as the session refused them.
				Err: `s.jsonl:7:1: not run: the arguments you sent could not be read: they are not valid JSON (unexpected end of JSON input); ` +
					`you sent "{\"a\": 1,"; send the call again with one JSON object of arguments`},
		}},
		{"records in a JSON list", "s.json", `[
  {"id": "c1", "type": "tool_call", "name": "calculate_sum", "content": {"a": 1, "b": 2}, "call_id": "toolu_01", "session_id": "s1", "role": "assistant", "status": "responded", "created_at": "2026-11-30T12:00:01Z"},
  {"id": "r1", "type": "tool_result", "name": "calculate_sum", "content": 3, "parent_id": "c1"},
  {"name": "sleep", "args": {"seconds": 0}}
]`, []loaded{
			{ID: "toolu_01", Name: "calculate_sum", Args: map[string]any{"a": int64(1), "b": int64(2)}, Line: 2, Col: 3},
			{Name: "sleep", Args: map[string]any{"seconds": int64(0)}, Line: 4, Col: 3},
		}},
		{"records in YAML", "s.yaml", `requests:
  - type: text
    role: user
    content: hi
  - type: tool_call
    id: c1
    session_id: s1
    name: calculate_sum
    content: {a: 1, b: 2}
  - {type: tool_result, parent_id: c1, content: 3}
`, []loaded{
			{ID: "c1", Name: "calculate_sum", Args: map[string]any{"a": int64(1), "b": int64(2)}, Line: 5, Col: 5},
		}},
		{"a record without its type is no request", "r.jsonl", `{"id":"c1","session_id":"s1","role":"assistant","name":"calculate_sum","content":{"a":1}}` + "\n", []loaded{
			{ID: "c1", Name: "calculate_sum", Line: 1, Col: 1,
				Err: `r.jsonl:1:1: unknown field "session_id": a request has id, name and args (or input, or arguments); a Message record is a request when its type is tool_call; unknown field "role": a request has id, name and args (or input, or arguments); unknown field "content": a request has id, name and args (or input, or arguments)`},
		}},
		{"a tool call's record with a field of no record", "r.jsonl", `{"type":"tool_call","id":"c1","name":"x","content":{},"sesion_id":"s"}` + "\n", []loaded{
			{ID: "c1", Name: "x", Args: map[string]any{}, Line: 1, Col: 1,
				Err: `r.jsonl:1:1: unknown field "sesion_id": a tool_call record has the fields of a Message record (did you mean "session_id"?)`},
		}},
		{"content and args both", "r.jsonl", `{"type":"tool_call","id":"c1","name":"x","content":{},"args":{}}` + "\n", []loaded{
			{ID: "c1", Name: "x", Args: map[string]any{}, Line: 1, Col: 1,
				Err: `r.jsonl:1:1: both "args" and "content" given: a request has one of args, input, arguments`},
		}},
		{"call_id of a wrong type", "r.jsonl", `{"type":"tool_call","id":"c1","name":"x","content":{},"call_id":7}` + "\n", []loaded{
			{ID: "c1", Name: "x", Args: map[string]any{}, Line: 1, Col: 1, Err: `r.jsonl:1:1: call_id: expected a string, got number 7`},
		}},
		{"a shard's end is no request", "part-1.jsonl", `{"type":"tool_result","parent_id":"x","content":1,"position":1}` + "\n" +
			`{"id":"e","session_id":"s","role":"tool","type":"shard_end","status":"responded","content":{"shard":1,"shards":2,"requests":2},"created_at":"2026-12-07T00:00:00Z"}` + "\n", nil},
		{"only other records", "r.jsonl", `{"type":"text","content":"hi"}` + "\n" + `{"type":"tool_result","parent_id":"x","content":1}` + "\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := loadString(t, tt.file, tt.content, "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("requests mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A replayed call keeps the provider's call id, so that its record pairs
// with the transcript's result.
func TestLoadRecordsCallID(t *testing.T) {
	t.Parallel()
	f := openString(t, "s.jsonl", transcript)
	var ids []string
	for r := range f.Requests() {
		ids = append(ids, r.ID+"/"+r.CallID)
	}
	if diff := cmp.Diff([]string{"toolu_01/toolu_01", "c2/", "toolu_02/toolu_02", "toolu_03/toolu_03"}, ids); diff != "" {
		t.Errorf("ids mismatch (-want +got):\n%s", diff)
	}
	if f.Others() != 3 {
		t.Errorf("Others() = %d, want the 3 records that are no requests", f.Others())
	}
}

func openString(t *testing.T, name, content string) *File {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(context.Background(), path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

package message_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kesoku/kesoku/message"
)

// Every record gets a UUIDv7: time-ordered, so that ids sort in the order
// the records were made.
func ExampleNewID() {
	a, b := message.NewID(), message.NewID()
	fmt.Println(len(a), a[14:15], a < b)
	// Output:
	// 36 7 true
}

// A JSONLWriter writes one record per line, each line whole; it is the
// Store kesoku run and kesoku session write to.
func ExampleJSONLWriter() {
	ms := int64(3)
	w := message.NewJSONLWriter(os.Stdout)
	w.Write(&message.Record{
		ID:         "01a22a69-3cdb-7000-a0c8-30d1b2be88b3",
		SessionID:  "demo",
		ParentID:   "call_1",
		Role:       message.RoleTool,
		Type:       message.TypeToolResult,
		Status:     message.StatusResponded,
		Name:       "calculate_sum",
		Content:    []byte("3"),
		CreatedAt:  time.Date(2026, 11, 30, 3, 4, 29, 0, time.UTC),
		DurationMS: &ms,
	})
	w.Flush()
	// Output:
	// {"id":"01a22a69-3cdb-7000-a0c8-30d1b2be88b3","session_id":"demo","parent_id":"call_1","role":"tool","type":"tool_result","status":"responded","name":"calculate_sum","content":3,"created_at":"2026-11-30T03:04:29Z","duration_ms":3}
}

// Read calls a function for every record of a JSON Lines stream, such as
// the -o file of kesoku run.
func ExampleRead() {
	records := `{"id":"a","session_id":"demo","parent_id":"call_1","role":"tool","type":"tool_result","status":"responded","name":"calculate_sum","content":3,"created_at":"2026-11-30T03:04:29Z"}
{"id":"b","session_id":"demo","parent_id":"call_2","role":"tool","type":"tool_result","status":"responded","name":"calculate_sum","is_error":true,"error":{"kind":"invalid_args","message":"args.b: missing required argument"},"created_at":"2026-11-30T03:04:29Z"}
`
	err := message.Read(strings.NewReader(records), "records.jsonl", func(r *message.Record) error {
		if r.IsError {
			fmt.Println(r.ParentID, r.Error.Kind)
		} else {
			fmt.Println(r.ParentID, string(r.Content))
		}
		return nil
	})
	fmt.Println(err)
	// Output:
	// call_1 3
	// call_2 invalid_args
	// <nil>
}

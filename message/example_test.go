package message_test

import (
	"encoding/json"
	"fmt"
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

// A Record is one JSON object, one line of a records file: the record
// kesoku run writes for a call of calculate_sum that returned 3.
func ExampleRecord() {
	ms := int64(3)
	line, err := json.Marshal(&message.Record{
		ID:         "01a22a69-3cdb-7000-a0c8-30d1b2be88b3",
		SessionID:  "demo",
		ParentID:   "call_1",
		Role:       message.RoleTool,
		Type:       message.TypeToolResult,
		Status:     message.StatusResponded,
		Name:       "calculate_sum",
		Content:    []byte("3"),
		Position:   1,
		CreatedAt:  time.Date(2026, 11, 30, 3, 4, 29, 0, time.UTC),
		DurationMS: &ms,
	})
	fmt.Println(string(line), err)
	// Output:
	// {"id":"01a22a69-3cdb-7000-a0c8-30d1b2be88b3","session_id":"demo","parent_id":"call_1","role":"tool","type":"tool_result","status":"responded","name":"calculate_sum","content":3,"position":1,"created_at":"2026-11-30T03:04:29Z","duration_ms":3} <nil>
}

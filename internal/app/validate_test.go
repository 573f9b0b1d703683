package app

import (
	"encoding/json"
	"testing"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// TestValidateCount pins the line and the JSON validate closes with.
func TestValidateCount(t *testing.T) {
	t.Parallel()
	k := map[message.ErrorKind]int{"tool_error": 2, "aborted": 1}
	for _, tt := range []struct {
		c          ValidateCount
		text, json string
	}{
		{ValidateCount{Total: 3, Files: 1}, "kesoku: 3 requests in 1 file: all valid", ""},
		{ValidateCount{Total: 3, Invalid: 1, Files: 2, Unreadable: 1}, "kesoku: 1 of 3 requests invalid; 1 of 2 files could not be read", ""},
		{ValidateCount{Total: 1, Files: 2, Unreadable: 1}, "kesoku: 1 request valid; 1 of 2 files could not be read", ""},
		{ValidateCount{Total: 3, Cases: 3, Files: 1}, "kesoku: 3 cases in 1 file: all valid", ""},
		{ValidateCount{Total: 5, Cases: 3, Invalid: 1, Files: 2}, "kesoku: 1 of 2 requests and 3 cases invalid", ""},
		{ValidateCount{Total: 1, Cases: 1, Files: 2, Unreadable: 1}, "kesoku: 1 case valid; 1 of 2 files could not be read", ""},
		{ValidateCount{}, "kesoku: 0 requests in 0 files: all valid",
			`{"command":"validate","total":0,"valid":0,"failed":0,"files":0,"unreadable_files":0,"errors":{}}`},
		{ValidateCount{Total: 3, Invalid: 1, Kinds: map[message.ErrorKind]int{"invalid_args": 1}, Files: 2, Unreadable: 1}, "",
			`{"command":"validate","total":3,"valid":2,"failed":1,"files":2,"unreadable_files":1,"errors":{"invalid_args":1}}`},
		{ValidateCount{Total: 5, Cases: 3, Invalid: 1, Kinds: map[message.ErrorKind]int{"unknown_tool": 1}, Files: 2}, "",
			`{"command":"validate","total":5,"cases":3,"valid":4,"failed":1,"files":2,"unreadable_files":0,"errors":{"unknown_tool":1}}`},
		{ValidateCount{Total: 9, Cases: 3, Invalid: 2, Kinds: k, Files: 3, Unreadable: 1},
			"kesoku: 2 of 6 requests and 3 cases invalid; 1 of 3 files could not be read",
			`{"command":"validate","total":9,"cases":3,"valid":7,"failed":2,"files":3,"unreadable_files":1,"errors":{"aborted":1,"tool_error":2}}`},
	} {
		if got := tt.c.Text(records.Hints{}); tt.text != "" && got != tt.text {
			t.Errorf("text:\ngot  %q\nwant %q", got, tt.text)
		}
		got, err := json.Marshal(tt.c)
		if err != nil {
			t.Fatal(err)
		}
		if tt.json != "" && string(got) != tt.json {
			t.Errorf("json:\ngot  %s\nwant %s", got, tt.json)
		}
	}
}

package batch

import (
	"encoding/json"
	"testing"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// TestReports pins the line and the JSON collect and status close with.
func TestReports(t *testing.T) {
	t.Parallel()
	k := map[message.ErrorKind]int{"tool_error": 2, "aborted": 1}
	for _, tt := range []struct {
		rep        records.Report
		text, json string
	}{
		{&CollectReport{},
			"kesoku: 0 records: 0 succeeded",
			`{"command":"batch collect","total":0,"records":0,"succeeded":0,"failed":0,"aborted":0,"skipped":0,"errors":{}}`},
		{&CollectReport{Count: records.Count{Records: 2, Succeeded: 1, Failed: 1, Kinds: map[message.ErrorKind]int{"tool_error": 1}, Skipped: 2}, Output: "o.jsonl", Deleted: 3},
			"kesoku: 2 records: 1 succeeded, 1 failed (1 tool_error); 2 skipped, written to o.jsonl by an earlier collect; the 3 files uploaded for the batch deleted",
			`{"command":"batch collect","total":0,"records":2,"succeeded":1,"failed":1,"aborted":0,"skipped":2,"deleted_files":3,"errors":{"tool_error":1}}`},
		{&CollectReport{Count: records.Count{Total: 9, Records: 5, Succeeded: 2, Failed: 3, Aborted: 1, Kinds: k, Skipped: 4, SkippedFailed: 1}, Deleted: 2, Output: "o.jsonl"},
			"kesoku: 5 records: 2 succeeded, 3 failed (1 aborted, 2 tool_error); 4 skipped, written to o.jsonl by an earlier collect (1 of them with an error); the 2 files uploaded for the batch deleted",
			`{"command":"batch collect","total":9,"records":5,"succeeded":2,"failed":3,"aborted":1,"skipped":4,"skipped_failed":1,"deleted_files":2,"errors":{"aborted":1,"tool_error":2}}`},
		{&StatusReport{},
			"kesoku: 0 requests in 0 parts: 0 succeeded, 0 failed, 0 in progress",
			`{"command":"batch status","total":0,"records":0,"succeeded":0,"failed":0,"aborted":0,"skipped":0,"errors":{}}`},
		{&StatusReport{Total: 5, Parts: 2, Succeeded: 2, Failed: 1, Pending: 1, Unsent: 1},
			"kesoku: 5 requests in 2 parts: 2 succeeded, 1 failed, 1 in progress, 1 not sent",
			`{"command":"batch status","total":5,"records":0,"succeeded":2,"failed":1,"aborted":0,"skipped":0,"pending":1,"unsent":1,"parts":2,"errors":{}}`},
		{&StatusReport{Total: 9, Succeeded: 2, Failed: 3, Pending: 2, Uncounted: 1, Unsent: 1, Parts: 3},
			"kesoku: 9 requests in 3 parts: 2 succeeded, 3 failed, 2 in progress, 1 ended uncounted (collect says), 1 not sent",
			`{"command":"batch status","total":9,"records":0,"succeeded":2,"failed":3,"aborted":0,"skipped":0,"pending":2,"uncounted":1,"unsent":1,"parts":3,"errors":{}}`},
	} {
		if got := tt.rep.Text(records.Hints{Finish: "F", Rerun: "R", Redo: "D", FailFast: "FF"}); got != tt.text {
			t.Errorf("text:\ngot  %q\nwant %q", got, tt.text)
		}
		got, err := json.Marshal(tt.rep)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.json {
			t.Errorf("json:\ngot  %s\nwant %s", got, tt.json)
		}
	}
}

package records

import (
	"encoding/json"
	"testing"

	"github.com/kesoku/kesoku/message"
)

// TestReportSentences pins the one line run and merge close with.
func TestReportSentences(t *testing.T) {
	t.Parallel()
	k := map[message.ErrorKind]int{"tool_error": 2, "aborted": 1}
	tests := []struct {
		rep  Report
		want string
	}{
		{&RunReport{Count: Count{Records: 3, Succeeded: 1, Failed: 2, Kinds: map[message.ErrorKind]int{"tool_error": 1, "aborted": 1}}, Interrupted: true},
			"kesoku: 3 records: 1 succeeded, 2 failed (1 aborted, 1 tool_error); interrupted"},
		{&RunReport{Count: Count{Records: 1, Succeeded: 1, Skipped: 3, SkippedFailed: 1}, StoppedReading: true, Interrupted: true},
			"kesoku: 1 record: 1 succeeded; 3 skipped, finished by an earlier run (1 of them with an error); " +
				"interrupted: the requests not read by then have no record"},
		{&RunReport{Count: Count{Records: 2, Succeeded: 2}, Dropped: 1, Output: "out.jsonl", FailedFast: true},
			"kesoku: 2 records: 2 succeeded; 1 record of requests not in this run removed from out.jsonl; stopped at the first failure"},
		{&RunReport{Count: Count{Records: 1, Succeeded: 1}, Foreign: 2, Output: "out.jsonl"},
			"kesoku: 1 record: 1 succeeded; out.jsonl left as it is, not in request order: it holds 2 records that answer no request (a tool's own)"},
		{&RunReport{}, "kesoku: 0 records: 0 succeeded"},
		{&RunReport{Count: Count{Total: 9, Records: 5, Succeeded: 2, Failed: 3, Aborted: 1, Kinds: k, Skipped: 4, SkippedFailed: 1}, Replaced: 2, Dropped: 3, Foreign: 1, Interrupted: true, StoppedReading: true, FailedFast: true, Output: "o.jsonl"},
			"kesoku: 5 records: 2 succeeded, 3 failed (1 aborted, 2 tool_error); 4 skipped, finished by an earlier run (1 of them with an error); 3 records of requests not in this run removed from o.jsonl; o.jsonl left as it is, not in request order: it holds 1 record that answers no request (a tool's own); interrupted: the requests not read by then have no record"},
		{&MergeReport{Count: Count{Records: 7, Succeeded: 5, Failed: 2, Aborted: 1}, Parts: 4, Replaced: 1},
			"kesoku: 7 records from 4 shards: 5 succeeded, 2 failed (1 aborted); 1 aborted record replaced by a resumed run's"},
		{&MergeReport{Count: Count{Records: 1, Succeeded: 1}, Parts: 1}, "kesoku: 1 record from 1 shard: 1 succeeded"},
		{&MergeReport{Count: Count{Records: 3, Succeeded: 3}, Parts: 1, Replaced: 3, ReplacedFailed: 1},
			"kesoku: 3 records from 1 shard: 3 succeeded; 3 records replaced by a resumed run's (2 aborted, 1 failed)"},
		{&MergeReport{Count: Count{Records: 3, Succeeded: 3}, Parts: 1, Replaced: 1, ReplacedFailed: 1},
			"kesoku: 3 records from 1 shard: 3 succeeded; 1 failed record replaced by a resumed run's"},
		{&MergeReport{}, "kesoku: 0 records from 0 shards: 0 succeeded"},
		{&MergeReport{Eval: true, Count: Count{Total: 9, Records: 9, Succeeded: 6, Failed: 3, Aborted: 1, Kinds: map[message.ErrorKind]int{"budget": 2, "aborted": 1}}, Replaced: 3, ReplacedFailed: 1, Parts: 3},
			"kesoku: 9 runs from 3 shards: 6 passed, 1 failed, 2 cut by the budget; 3 budget verdicts replaced by a resumed eval's"},
	}
	for _, tt := range tests {
		if got := tt.rep.Text(Hints{}); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}

// TestReportHints: the caller's hints go where the sentence advises what
// to do next, in its words.
func TestReportHints(t *testing.T) {
	t.Parallel()
	h := Hints{Finish: "FINISH", Rerun: "RERUN", FailFast: "FAILFAST", Redo: "REDO"}
	for _, tt := range []struct {
		rep  Report
		want string
	}{
		{&RunReport{Count: Count{Records: 1, Succeeded: 1}, StoppedReading: true, Interrupted: true},
			"kesoku: 1 record: 1 succeeded; interrupted: the requests not read by then have no record (FINISH)"},
		{&RunReport{Count: Count{Records: 1, Succeeded: 1}, FailedFast: true}, "kesoku: 1 record: 1 succeeded; FAILFAST"},
		// Every request read, some aborted: --resume runs those again.
		{&RunReport{Count: Count{Records: 3, Succeeded: 1, Failed: 2, Aborted: 2, Kinds: map[message.ErrorKind]int{"aborted": 2}}, Interrupted: true},
			"kesoku: 3 records: 1 succeeded, 2 failed (2 aborted); interrupted: REDO"},
		{&RunReport{Count: Count{Records: 1, Succeeded: 1}, Interrupted: true}, "kesoku: 1 record: 1 succeeded; interrupted"},
		{&MergeReport{Count: Count{Records: 2, Succeeded: 1, Failed: 1, Aborted: 1}, Parts: 2},
			"kesoku: 2 records from 2 shards: 1 succeeded, 1 failed (1 aborted: RERUN)"},
		{&MergeReport{Count: Count{Total: 9, Records: 9, Succeeded: 6, Failed: 3, Aborted: 1, Kinds: map[message.ErrorKind]int{"tool_error": 2, "aborted": 1}}, Replaced: 3, ReplacedFailed: 1, Parts: 3},
			"kesoku: 9 records from 3 shards: 6 succeeded, 3 failed (1 aborted: RERUN); 3 records replaced by a resumed run's (2 aborted, 1 failed)"},
	} {
		if got := tt.rep.Text(h); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}

// TestCount: Add and Skip keep the counts a report reads.
func TestCount(t *testing.T) {
	t.Parallel()
	var s Count
	s.Add(&message.Record{Status: message.StatusResponded})
	s.Add(&message.Record{Status: message.StatusAborted, IsError: true, Error: &message.ErrorInfo{Kind: message.KindAborted}})
	s.Add(&message.Record{Status: message.StatusResponded, IsError: true, Error: &message.ErrorInfo{Kind: message.KindToolError}})
	s.Skip(true)
	s.Skip(false)
	if s.Total != 5 || s.Records != 3 || s.Succeeded != 1 || s.Failed != 2 || s.Aborted != 1 || s.Skipped != 2 || s.SkippedFailed != 1 ||
		s.Kinds[message.KindAborted] != 1 || s.Kinds[message.KindToolError] != 1 || !s.HasErrors() {
		t.Errorf("counts %+v", s)
	}
}

// TestReportJSON pins what --summary json prints: the counts a script
// reads always there, zeros included, in the order they always had.
func TestReportJSON(t *testing.T) {
	t.Parallel()
	k := map[message.ErrorKind]int{"tool_error": 2, "aborted": 1}
	tests := []struct {
		rep  Report
		want string
	}{
		{&RunReport{Count: Count{Total: 4, Records: 3, Succeeded: 1, Failed: 2, Aborted: 1, Skipped: 1, Kinds: map[message.ErrorKind]int{"tool_error": 1, "aborted": 1}}, Interrupted: true, Output: "o.jsonl"},
			`{"command":"run","total":4,"records":3,"succeeded":1,"failed":2,"aborted":1,"skipped":1,"interrupted":true,"errors":{"aborted":1,"tool_error":1}}`},
		{&RunReport{}, `{"command":"run","total":0,"records":0,"succeeded":0,"failed":0,"aborted":0,"skipped":0,"errors":{}}`},
		{&RunReport{Count: Count{Total: 9, Records: 5, Succeeded: 2, Failed: 3, Aborted: 1, Kinds: k, Skipped: 4, SkippedFailed: 1}, Replaced: 2, Dropped: 3, Foreign: 1, Interrupted: true, StoppedReading: true, FailedFast: true, Output: "o.jsonl"},
			`{"command":"run","total":9,"records":5,"succeeded":2,"failed":3,"aborted":1,"skipped":4,"skipped_failed":1,"replaced":2,"dropped":3,"foreign":1,"interrupted":true,"stopped_reading":true,"failed_fast":true,"errors":{"aborted":1,"tool_error":2}}`},
		{&MergeReport{Count: Count{Total: 2, Records: 2, Succeeded: 2}, Parts: 2},
			`{"command":"merge","total":2,"records":2,"succeeded":2,"failed":0,"aborted":0,"skipped":0,"parts":2,"errors":{}}`},
		{&MergeReport{}, `{"command":"merge","total":0,"records":0,"succeeded":0,"failed":0,"aborted":0,"skipped":0,"errors":{}}`},
		{&MergeReport{Eval: true, Count: Count{Total: 9, Records: 9, Succeeded: 6, Failed: 3, Aborted: 1, Kinds: map[message.ErrorKind]int{"budget": 2, "aborted": 1}}, Replaced: 3, ReplacedFailed: 1, Parts: 3},
			`{"command":"merge","eval":true,"total":9,"records":9,"succeeded":6,"failed":3,"aborted":1,"skipped":0,"replaced":3,"replaced_failed":1,"parts":3,"errors":{"aborted":1,"budget":2}}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.rep)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("\ngot  %s\nwant %s", got, tt.want)
		}
	}
}

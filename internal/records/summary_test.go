package records

import (
	"encoding/json"
	"testing"

	"github.com/kesoku/kesoku/message"
)

// TestSummarySentences pins the one line each command closes with.
func TestSummarySentences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sum  Summary
		want string
	}{
		{Summary{Command: CommandRun, Records: 3, Succeeded: 1, Failed: 2, Kinds: map[message.ErrorKind]int{"tool_error": 1, "aborted": 1}, Interrupted: true},
			"kesoku: 3 records: 1 succeeded, 2 failed (1 aborted, 1 tool_error); interrupted"},
		{Summary{Command: CommandRun, Records: 1, Succeeded: 1, Skipped: 3, SkippedFailed: 1, StoppedReading: true, Interrupted: true},
			"kesoku: 1 record: 1 succeeded; 3 skipped, finished by an earlier run (1 of them with an error); " +
				"interrupted: the requests not read by then have no record"},
		{Summary{Command: CommandRun, Records: 2, Succeeded: 2, Dropped: 1, Output: "out.jsonl", FailedFast: true},
			"kesoku: 2 records: 2 succeeded; 1 record of requests not in this run removed from out.jsonl; stopped at the first failure"},
		{Summary{Command: CommandRun, Records: 1, Succeeded: 1, Foreign: 2, Output: "out.jsonl"},
			"kesoku: 1 record: 1 succeeded; out.jsonl left as it is, not in request order: it holds 2 records that answer no request (a tool's own)"},
		{Summary{Command: CommandCollect, Records: 2, Succeeded: 1, Failed: 1, Kinds: map[message.ErrorKind]int{"tool_error": 1}, Skipped: 2, Output: "o.jsonl", Deleted: 3},
			"kesoku: 2 records: 1 succeeded, 1 failed (1 tool_error); 2 skipped, written to o.jsonl by an earlier collect; the 3 files uploaded for the batch deleted"},
		{Summary{Command: CommandMerge, Records: 7, Succeeded: 5, Failed: 2, Aborted: 1, Parts: 4, Replaced: 1},
			"kesoku: 7 records from 4 shards: 5 succeeded, 2 failed (1 aborted); 1 aborted record replaced by a resumed run's"},
		{Summary{Command: CommandMerge, Records: 1, Succeeded: 1, Parts: 1}, "kesoku: 1 record from 1 shard: 1 succeeded"},
		{Summary{Command: CommandMerge, Records: 3, Succeeded: 3, Parts: 1, Replaced: 3, ReplacedFailed: 1},
			"kesoku: 3 records from 1 shard: 3 succeeded; 3 records replaced by a resumed run's (2 aborted, 1 failed)"},
		{Summary{Command: CommandMerge, Records: 3, Succeeded: 3, Parts: 1, Replaced: 1, ReplacedFailed: 1},
			"kesoku: 3 records from 1 shard: 3 succeeded; 1 failed record replaced by a resumed run's"},
		{Summary{Command: CommandStatus, Total: 5, Parts: 2, Succeeded: 2, Failed: 1, Pending: 1, Unsent: 1},
			"kesoku: 5 requests in 2 parts: 2 succeeded, 1 failed, 1 in progress, 1 not sent"},
		{Summary{Command: CommandDiff, Total: 1, Same: 1}, "kesoku: 1 request, no differences"},
		{Summary{Command: CommandDiff}, "kesoku: 0 requests, no differences"},
		{Summary{Command: CommandDiff, Total: 120, Changed: 1, NewErrors: 2, Fixed: 1, OnlyOld: 1, OnlyNew: 3, Old: "g.jsonl", New: "n.jsonl"},
			"kesoku: 8 of 120 requests differ: 1 changed, 2 new errors, 1 fixed, 1 only in g.jsonl, 3 only in n.jsonl"},
		{Summary{Command: CommandDiff, Total: 2, NewErrors: 1}, "kesoku: 1 of 2 requests differs: 1 new error"},
		{Summary{Command: CommandDiff, Total: 1, Changed: 1}, "kesoku: 1 of 1 request differs: 1 changed"},
	}
	for _, tt := range tests {
		if got := tt.sum.String(); got != tt.want {
			t.Errorf("%s summary:\n got %q\nwant %q", tt.sum.Command, got, tt.want)
		}
	}
}

// TestSummaryHints: the caller's hints go where the sentence advises what
// to do next, in its words.
func TestSummaryHints(t *testing.T) {
	t.Parallel()
	h := Hints{Finish: "FINISH", Rerun: "RERUN", FailFast: "FAILFAST", Redo: "REDO"}
	for _, tt := range []struct {
		sum  Summary
		want string
	}{
		{Summary{Command: CommandRun, Records: 1, Succeeded: 1, StoppedReading: true, Interrupted: true},
			"kesoku: 1 record: 1 succeeded; interrupted: the requests not read by then have no record (FINISH)"},
		{Summary{Command: CommandRun, Records: 1, Succeeded: 1, FailedFast: true}, "kesoku: 1 record: 1 succeeded; FAILFAST"},
		// Every request read, some aborted: --resume runs those again.
		{Summary{Command: CommandRun, Records: 3, Succeeded: 1, Failed: 2, Aborted: 2, Kinds: map[message.ErrorKind]int{"aborted": 2}, Interrupted: true},
			"kesoku: 3 records: 1 succeeded, 2 failed (2 aborted); interrupted: REDO"},
		{Summary{Command: CommandRun, Records: 1, Succeeded: 1, Interrupted: true}, "kesoku: 1 record: 1 succeeded; interrupted"},
		{Summary{Command: CommandMerge, Records: 2, Succeeded: 1, Failed: 1, Aborted: 1, Parts: 2},
			"kesoku: 2 records from 2 shards: 1 succeeded, 1 failed (1 aborted: RERUN)"},
	} {
		if got := tt.sum.Text(h); got != tt.want {
			t.Errorf("%s summary:\n got %q\nwant %q", tt.sum.Command, got, tt.want)
		}
	}
}

// TestSummaryCounts: Add and Skip keep the counts a report reads.
func TestSummaryCounts(t *testing.T) {
	t.Parallel()
	var s Summary
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

// TestSummaryJSON pins what --summary json prints: the counts a script
// reads always there, zeros included.
func TestSummaryJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sum  Summary
		want string
	}{
		{Summary{Command: CommandRun, Total: 4, Records: 3, Succeeded: 1, Failed: 2, Aborted: 1, Skipped: 1, Kinds: map[message.ErrorKind]int{"tool_error": 1, "aborted": 1}, Interrupted: true, Output: "o.jsonl"},
			`{"command":"run","total":4,"records":3,"succeeded":1,"failed":2,"aborted":1,"skipped":1,"interrupted":true,"errors":{"aborted":1,"tool_error":1}}`},
		{Summary{Command: CommandMerge, Total: 2, Records: 2, Succeeded: 2, Parts: 2},
			`{"command":"merge","total":2,"records":2,"succeeded":2,"failed":0,"aborted":0,"skipped":0,"parts":2,"errors":{}}`},
		{Summary{Command: CommandDiff, Total: 5, Same: 1, Changed: 1, NewErrors: 1, OnlyNew: 2, Old: "g.jsonl", New: "n.jsonl"},
			`{"command":"diff","total":5,"same":1,"different":4,"changed":1,"new_errors":1,"fixed":0,"only_old":0,"only_new":2,"old":"g.jsonl","new":"n.jsonl"}`},
		{Summary{Command: CommandValidate, Total: 3, Succeeded: 2, Failed: 1, Kinds: map[message.ErrorKind]int{"invalid_args": 1}, Parts: 2, Unreadable: 1},
			`{"command":"validate","total":3,"valid":2,"failed":1,"files":2,"unreadable_files":1,"errors":{"invalid_args":1}}`},
		{Summary{Command: CommandValidate, Total: 1, Succeeded: 1, Parts: 1},
			`{"command":"validate","total":1,"valid":1,"failed":0,"files":1,"unreadable_files":0,"errors":{}}`},
		{Summary{Command: CommandValidate, Total: 5, Cases: 3, Succeeded: 4, Failed: 1, Kinds: map[message.ErrorKind]int{"unknown_tool": 1}, Parts: 2},
			`{"command":"validate","total":5,"cases":3,"valid":4,"failed":1,"files":2,"unreadable_files":0,"errors":{"unknown_tool":1}}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.sum)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.sum.Command, got, tt.want)
		}
	}
}

func TestValidateSentence(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sum  Summary
		want string
	}{
		{Summary{Command: CommandValidate, Total: 3, Succeeded: 3, Parts: 1}, "kesoku: 3 requests in 1 file: all valid"},
		{Summary{Command: CommandValidate, Total: 3, Succeeded: 2, Failed: 1, Parts: 2, Unreadable: 1}, "kesoku: 1 of 3 requests invalid; 1 of 2 files could not be read"},
		{Summary{Command: CommandValidate, Total: 1, Succeeded: 1, Parts: 2, Unreadable: 1}, "kesoku: 1 request valid; 1 of 2 files could not be read"},
		{Summary{Command: CommandValidate, Total: 3, Cases: 3, Succeeded: 3, Parts: 1}, "kesoku: 3 cases in 1 file: all valid"},
		{Summary{Command: CommandValidate, Total: 5, Cases: 3, Succeeded: 4, Failed: 1, Parts: 2}, "kesoku: 1 of 2 requests and 3 cases invalid"},
		{Summary{Command: CommandValidate, Total: 1, Cases: 1, Succeeded: 1, Parts: 2, Unreadable: 1}, "kesoku: 1 case valid; 1 of 2 files could not be read"},
	} {
		if got := tt.sum.String(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

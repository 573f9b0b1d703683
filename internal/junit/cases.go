package junit

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/kesoku/kesoku/message"
)

// CaseName names a request's testcase: its id and its tool.
func CaseName(id, tool string) string {
	if tool == "" {
		return id
	}
	return id + " (" + tool + ")"
}

// RecordCase is the testcase of a tool_result record: a failure for an
// error record (its kind, its message), skipped for an aborted one.
func RecordCase(rec *message.Record, classname string) *Case {
	c := &Case{Name: CaseName(rec.ParentID, rec.Name), Classname: classname}
	if rec.DurationMS != nil {
		c.Time = time.Duration(*rec.DurationMS) * time.Millisecond
	}
	if rec.Status == message.StatusAborted {
		c.Skipped = "aborted"
		if rec.Error != nil && rec.Error.Message != "" {
			c.Skipped = firstLine(rec.Error.Message)
		}
		return c
	}
	switch {
	case rec.Error != nil:
		c.Failures = []Failure{{Type: string(rec.Error.Kind), Message: firstLine(rec.Error.Message), Body: rec.Error.Message}}
	case rec.IsError:
		// A tool's own error result, without kesoku's error object: what
		// it said is its content.
		body := string(rec.Content)
		var s string
		if json.Unmarshal(rec.Content, &s) == nil {
			body = s
		}
		c.Failures = []Failure{{Type: string(message.KindToolError), Message: firstLine(body), Body: body}}
	}
	return c
}

// maxValue bounds each value a difference's failure shows, in its body;
// its message shows less.
const maxValue = 4 << 10

// Change is one place where two records of a request differ: its path
// (as jq writes it) and the values, as JSON, nil where absent.
type Change struct {
	Path     string
	Old, New json.RawMessage
}

// DiffFailure is the failure of a change of the kind kind (changed,
// new_error, fixed).
func DiffFailure(kind, request string, ch Change) Failure {
	old, new := showValue(ch.Old, maxMessage/3), showValue(ch.New, maxMessage/3)
	msg := fmt.Sprintf("%s: %s -> %s", ch.Path, old, new)
	var b strings.Builder
	fmt.Fprintf(&b, "request: %s\npath: %s\nold: %s\nnew: %s\n", request, ch.Path, showValue(ch.Old, maxValue), showValue(ch.New, maxValue))
	return Failure{Type: kind, Message: msg, Body: b.String()}
}

// OnlyFailure is the failure of a request that one file alone answers:
// kind only_old or only_new, file the one that does.
func OnlyFailure(kind, request, file string) Failure {
	msg := "only in " + file
	return Failure{Type: kind, Message: msg, Body: "request: " + request + "\n" + msg + "\n"}
}

func showValue(v json.RawMessage, n int) string {
	if v == nil {
		return "(absent)"
	}
	return cut(string(v), n)
}

// VerdictCase is the testcase of an eval's verdict record: named by its
// case (and repeat, when the case ran more than once), a failure for
// each check that failed (what was wanted, what came), skipped when the
// budget cut the run.
func VerdictCase(rec *message.Record, classname string, repeats bool) *Case {
	name := rec.ParentID
	if repeats {
		name = fmt.Sprintf("%s #%d", rec.ParentID, rec.Repeat)
	}
	c := &Case{Name: name, Classname: classname}
	if rec.DurationMS != nil {
		c.Time = time.Duration(*rec.DurationMS) * time.Millisecond
	}
	if rec.Error != nil && rec.Error.Kind == message.KindBudget {
		c.Skipped = firstLine(rec.Error.Message)
		return c
	}
	var v struct {
		Checks []struct {
			Check     string
			Passed    bool
			Want, Got json.RawMessage
		}
	}
	if err := json.Unmarshal(rec.Content, &v); err != nil {
		c.Failures = []Failure{{Type: "verdict", Message: "the verdict cannot be read: " + err.Error()}}
		return c
	}
	for _, ch := range v.Checks {
		if ch.Passed {
			continue
		}
		want, got := showValue(ch.Want, maxMessage/3), showValue(ch.Got, maxMessage/3)
		body := fmt.Sprintf("case: %s\ncheck: %s\nwant: %s\ngot: %s\n", name, ch.Check, showValue(ch.Want, maxValue), showValue(ch.Got, maxValue))
		c.Failures = append(c.Failures, Failure{Type: ch.Check, Message: fmt.Sprintf("%s: want %s, got %s", ch.Check, want, got), Body: body})
	}
	if len(c.Failures) == 0 && rec.IsError {
		c.Failures = []Failure{{Type: "verdict", Message: "failed"}}
	}
	return c
}

// RecordsCase is the failed testcase of a records' destination that could
// not take every record: the report's other testcases say what ran, and
// this one that the records file lacks some of it.
func RecordsCase(err error) *Case {
	return &Case{Name: "records", Classname: "kesoku", Failures: []Failure{{
		Type: "records", Message: "the records could not all be written: " + firstLine(err.Error()), Body: err.Error(),
	}}}
}

package records

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/message"
)

// Report is what a command that writes, reads or checks records says when
// it ends: a line for a person (Text), and an object for a program
// (--summary json, by MarshalJSON). Each command has its own: RunReport,
// MergeReport here, and beside their commands those of batch collect and
// status, diff and validate.
type Report interface {
	Text(h Hints) string
	json.Marshaler
}

// Hints are a closing line's advice on what to do next. They name a
// command's flags, which the caller knows and records does not; an empty
// hint is left out (FailFast: said without the flag).
type Hints struct {
	// Finish is how to finish the requests an interrupt left without a
	// record.
	Finish string
	// Rerun is how to run again the shards whose records were aborted.
	Rerun string
	// Redo is how to run again the requests an interrupt aborted.
	Redo string
	// FailFast says what stopped a run at its first failure.
	FailFast string
}

// Count counts the records a command wrote (or joined) and the requests it
// skipped as finished already: what run, batch collect and merge share.
type Count struct {
	// Total is how many requests the command accounts for: the records it
	// wrote and the requests it skipped.
	Total int
	// Records is how many records it wrote; Succeeded and Failed how many
	// of them succeeded and are errors (aborted ones included), Aborted
	// how many of those were cut short.
	Records   int
	Succeeded int
	Failed    int
	Aborted   int
	// Kinds counts the error records by kind.
	Kinds map[message.ErrorKind]int
	// Skipped is how many requests had a finished record already (run
	// --resume, a collect going on), SkippedFailed how many of those
	// records are errors.
	Skipped       int
	SkippedFailed int
}

// Add counts a record the command wrote.
func (c *Count) Add(rec *message.Record) {
	var kind message.ErrorKind
	if rec.Error != nil {
		kind = rec.Error.Kind
	}
	c.add(rec.IsError || rec.Error != nil, rec.Status == message.StatusAborted, kind)
}

func (c *Count) add(failed, aborted bool, kind message.ErrorKind) {
	c.Total++
	c.Records++
	if !failed {
		c.Succeeded++
		return
	}
	c.Failed++
	if aborted {
		c.Aborted++
	}
	if kind != "" {
		if c.Kinds == nil {
			c.Kinds = make(map[message.ErrorKind]int)
		}
		c.Kinds[kind]++
	}
}

// Skip counts a request skipped as finished already, with an error record
// when failed.
func (c *Count) Skip(failed bool) {
	c.Total++
	c.Skipped++
	if failed {
		c.SkippedFailed++
	}
}

// HasErrors reports whether the records the command accounts for hold an
// error: those it wrote, or those it skipped as finished.
func (c *Count) HasErrors() bool { return c.Failed > 0 || c.SkippedFailed > 0 }

// KindsOrNone are the counts by kind, an empty map for none: --summary
// json always has "errors", so that a script needs no default.
func (c *Count) KindsOrNone() map[message.ErrorKind]int {
	if c.Kinds == nil {
		return map[message.ErrorKind]int{}
	}
	return c.Kinds
}

// Text says the records written and how they went: "3 records: 1
// succeeded, 2 failed (1 aborted, 1 tool_error)".
func (c *Count) Text() string {
	s := fmt.Sprintf("%d %s: %d succeeded", c.Records, english.Plural(c.Records, "record", "records"), c.Succeeded)
	if c.Failed > 0 {
		kinds := slices.Sorted(maps.Keys(c.Kinds))
		said := make([]string, len(kinds))
		for i, k := range kinds {
			said[i] = fmt.Sprintf("%d %s", c.Kinds[k], k)
		}
		s += fmt.Sprintf(", %d failed (%s)", c.Failed, strings.Join(said, ", "))
	}
	return s
}

// CountJSON is the head of the object of a command that counts records:
// the counts always present, zeros included.
type CountJSON struct {
	Command       string `json:"command"`
	Total         int    `json:"total"`
	Records       int    `json:"records"`
	Succeeded     int    `json:"succeeded"`
	Failed        int    `json:"failed"`
	Aborted       int    `json:"aborted"`
	Skipped       int    `json:"skipped"`
	SkippedFailed int    `json:"skipped_failed,omitempty"`
}

// JSON is the head of the object of command, with c's counts.
func (c *Count) JSON(command string) CountJSON {
	return CountJSON{command, c.Total, c.Records, c.Succeeded, c.Failed, c.Aborted, c.Skipped, c.SkippedFailed}
}

// RunReport is what kesoku run did: its records counted, what a resumed
// run did to its file, and what stopped it.
type RunReport struct {
	Count
	// Replaced is how many records of the resumed file gave way to one of
	// this run; Dropped how many it removed as the records of no request
	// of its own (the request files changed since).
	Replaced, Dropped int
	// Foreign is how many records a resumed run's file holds that answer
	// no request (a tool's own): the file was left as it is, not
	// compacted.
	Foreign int
	// Interrupted says the run was interrupted; StoppedReading that the
	// interrupt stopped the reading of requests, so that those not read
	// have no record (--resume finishes them); FailedFast that --fail-fast
	// stopped it.
	Interrupted, StoppedReading, FailedFast bool
	// Deferred are the ids of the calls the run stopped at, waiting for
	// a person's answer (--on-ask defer).
	Deferred []string
	// Output is the records file (the sentence names it).
	Output string
}

// MarshalJSON writes the report as a program reads it.
func (r RunReport) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		CountJSON
		Replaced       int                       `json:"replaced,omitempty"`
		Dropped        int                       `json:"dropped,omitempty"`
		Foreign        int                       `json:"foreign,omitempty"`
		Interrupted    bool                      `json:"interrupted,omitempty"`
		StoppedReading bool                      `json:"stopped_reading,omitempty"`
		FailedFast     bool                      `json:"failed_fast,omitempty"`
		Deferred       []string                  `json:"deferred,omitempty"`
		Kinds          map[message.ErrorKind]int `json:"errors"`
	}{r.JSON("run"), r.Replaced, r.Dropped, r.Foreign, r.Interrupted, r.StoppedReading, r.FailedFast, r.Deferred, r.KindsOrNone()})
}

// String says in one line what the run did, without hints.
func (r *RunReport) String() string { return r.Text(Hints{}) }

// Text says in one line, for standard error, what the run did, with the
// hints h.
func (r *RunReport) Text(h Hints) string {
	var b strings.Builder
	b.WriteString("kesoku: " + r.Count.Text())
	if r.Skipped > 0 {
		fmt.Fprintf(&b, "; %d skipped, finished by an earlier run", r.Skipped)
		if r.SkippedFailed > 0 {
			fmt.Fprintf(&b, " (%d of them with an error)", r.SkippedFailed)
		}
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "; %d %s of requests not in this run removed from %s", r.Dropped, english.Plural(r.Dropped, "record", "records"), r.Output)
	}
	if r.Foreign > 0 {
		fmt.Fprintf(&b, "; %s left as it is, not in request order: it holds %d %s that %s no request (a tool's own)",
			r.Output, r.Foreign, english.Plural(r.Foreign, "record", "records"), english.Plural(r.Foreign, "answers", "answer"))
	}
	switch {
	case r.StoppedReading:
		b.WriteString("; interrupted: the requests not read by then have no record")
		if h.Finish != "" {
			b.WriteString(" (" + h.Finish + ")")
		}
	case r.Interrupted:
		b.WriteString("; interrupted")
		if r.Aborted > 0 && h.Redo != "" {
			b.WriteString(": " + h.Redo)
		}
	case r.FailedFast:
		b.WriteString("; " + cmp.Or(h.FailFast, "stopped at the first failure"))
	}
	return b.String()
}

// MergeReport is what kesoku merge did: the records it joined, from how
// many shards, and what gave way to a resumed shard's records.
type MergeReport struct {
	Count
	// Eval says the shards were kesoku eval's: each record counted is a
	// run (a transcript and its verdict), and what a resumed shard
	// replaced are verdicts the budget cut.
	Eval bool
	// Replaced is how many records gave way to a later one of their
	// request (the aborted or failed records of a shard its resumed run
	// finished); ReplacedFailed how many of those were error records.
	Replaced, ReplacedFailed int
	// Parts is how many shards it joined.
	Parts int
}

// MarshalJSON writes the report as a program reads it.
func (r MergeReport) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Command string `json:"command"`
		Eval    bool   `json:"eval,omitempty"`
		CountJSON
		Replaced       int                       `json:"replaced,omitempty"`
		ReplacedFailed int                       `json:"replaced_failed,omitempty"`
		Parts          int                       `json:"parts,omitempty"`
		Kinds          map[message.ErrorKind]int `json:"errors"`
	}{"merge", r.Eval, r.JSON(""), r.Replaced, r.ReplacedFailed, r.Parts, r.KindsOrNone()})
}

// String says in one line what the merge did, without hints.
func (r *MergeReport) String() string { return r.Text(Hints{}) }

// Text says in one line, for standard error, what the merge did, with
// the hints h.
func (r *MergeReport) Text(h Hints) string {
	var b strings.Builder
	b.WriteString("kesoku: ")
	if r.Eval {
		budget := r.Kinds[message.KindBudget]
		fmt.Fprintf(&b, "%d %s from %d %s: %d passed, %d failed", r.Records, english.Plural(r.Records, "run", "runs"),
			r.Parts, english.Plural(r.Parts, "shard", "shards"), r.Succeeded, r.Failed-budget)
		if budget > 0 {
			fmt.Fprintf(&b, ", %d cut by the budget", budget)
		}
		if r.Replaced > 0 {
			fmt.Fprintf(&b, "; %d budget %s replaced by a resumed eval's", r.Replaced, english.Plural(r.Replaced, "verdict", "verdicts"))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%d %s from %d %s: %d succeeded", r.Records, english.Plural(r.Records, "record", "records"),
		r.Parts, english.Plural(r.Parts, "shard", "shards"), r.Succeeded)
	if r.Failed > 0 {
		fmt.Fprintf(&b, ", %d failed", r.Failed)
		if r.Aborted > 0 {
			fmt.Fprintf(&b, " (%d aborted%s)", r.Aborted, hint(": ", h.Rerun))
		}
	}
	switch aborted := r.Replaced - r.ReplacedFailed; {
	case r.Replaced == 0:
	case r.ReplacedFailed == 0:
		fmt.Fprintf(&b, "; %d aborted %s replaced by a resumed run's", r.Replaced, english.Plural(r.Replaced, "record", "records"))
	case aborted == 0:
		fmt.Fprintf(&b, "; %d failed %s replaced by a resumed run's", r.Replaced, english.Plural(r.Replaced, "record", "records"))
	default:
		fmt.Fprintf(&b, "; %d %s replaced by a resumed run's (%d aborted, %d failed)", r.Replaced, english.Plural(r.Replaced, "record", "records"), aborted, r.ReplacedFailed)
	}
	return b.String()
}

// hint is h after sep, or nothing when there is no hint.
func hint(sep, h string) string {
	if h == "" {
		return ""
	}
	return sep + h
}

package batch

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// CollectReport is what kesoku batch collect did: the records it wrote,
// the requests an earlier collect had written, and the files of the batch
// it deleted once every request had its record.
type CollectReport struct {
	records.Count
	// Deleted is how many files kesoku had uploaded for the batch and
	// deleted.
	Deleted int
	// Output is the records file (the sentence names it).
	Output string
}

// MarshalJSON writes the report as a program reads it (--summary json).
func (r CollectReport) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		records.CountJSON
		Deleted int                       `json:"deleted_files,omitempty"`
		Kinds   map[message.ErrorKind]int `json:"errors"`
	}{r.JSON("batch collect"), r.Deleted, r.KindsOrNone()})
}

// Text says in one line, for standard error, what the collect did.
func (r *CollectReport) Text(records.Hints) string {
	var b strings.Builder
	b.WriteString("kesoku: " + r.Count.Text())
	if r.Skipped > 0 {
		fmt.Fprintf(&b, "; %d skipped, written to %s by an earlier collect", r.Skipped, r.Output)
		if r.SkippedFailed > 0 {
			fmt.Fprintf(&b, " (%d of them with an error)", r.SkippedFailed)
		}
	}
	if r.Deleted > 0 {
		fmt.Fprintf(&b, "; the %d %s uploaded for the batch deleted", r.Deleted, english.Plural(r.Deleted, "file", "files"))
	}
	return b.String()
}

// StatusReport is what the provider says of a batch's requests (kesoku
// batch status): no records, but requests answered (succeeded), errored,
// cancelled or expired (failed), still in progress (Pending), ended in a
// part whose provider gives no counts (Uncounted: its results say), and
// never sent (Unsent: a submit cut short), in how many parts.
type StatusReport struct {
	Total, Succeeded, Failed   int
	Pending, Uncounted, Unsent int
	Parts                      int
}

// MarshalJSON writes the report as a program reads it (--summary json):
// with the fields of a count of records, zeros, as it always had.
func (r StatusReport) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		records.CountJSON
		Pending   int                       `json:"pending,omitempty"`
		Uncounted int                       `json:"uncounted,omitempty"`
		Unsent    int                       `json:"unsent,omitempty"`
		Parts     int                       `json:"parts,omitempty"`
		Kinds     map[message.ErrorKind]int `json:"errors"`
	}{records.CountJSON{Command: "batch status", Total: r.Total, Succeeded: r.Succeeded, Failed: r.Failed},
		r.Pending, r.Uncounted, r.Unsent, r.Parts, map[message.ErrorKind]int{}})
}

// Text says in one line where the batch stands.
func (r *StatusReport) Text(records.Hints) string {
	var b strings.Builder
	fmt.Fprintf(&b, "kesoku: %d %s in %d %s: %d succeeded, %d failed, %d in progress", r.Total, english.Plural(r.Total, "request", "requests"),
		r.Parts, english.Plural(r.Parts, "part", "parts"), r.Succeeded, r.Failed, r.Pending)
	if r.Uncounted > 0 {
		fmt.Fprintf(&b, ", %d ended uncounted (collect says)", r.Uncounted)
	}
	if r.Unsent > 0 {
		fmt.Fprintf(&b, ", %d not sent", r.Unsent)
	}
	return b.String()
}

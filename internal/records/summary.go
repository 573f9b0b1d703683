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

// Command names the command a Summary is of, which decides its sentence.
type Command string

// The commands that end with a Summary.
const (
	CommandRun     Command = "run"
	CommandCollect Command = "batch collect"
	CommandStatus  Command = "batch status"
	CommandMerge   Command = "merge"
	CommandDiff    Command = "diff"
	// CommandValidate counts requests checked, not records: Succeeded
	// the valid ones, Failed the invalid ones (by kind), Parts the files
	// and Unreadable those that could not be read.
	CommandValidate Command = "validate"
)

// Summary counts what a command did with records — kesoku run, batch
// collect and status, merge and diff — and says it in one line (String): the one
// closing summary of every command that writes or compares records, with
// the counts a report for a program needs (total, succeeded, failed,
// skipped, errors by kind; for diff, same, different and in one file
// only).
type Summary struct {
	Command Command `json:"command"`
	// Eval says merge joined the shards of kesoku eval: each record it
	// counts is a run (a transcript and its verdict), and what a resumed
	// shard replaced are verdicts the budget cut.
	Eval bool `json:"eval,omitempty"`
	// Total is how many requests the command accounts for: the records it
	// wrote and the requests it skipped; for diff, the requests the two
	// files answer between them.
	Total int `json:"total"`
	// Records is how many records it wrote; Succeeded and Failed how many
	// of them succeeded and are errors (aborted ones included), Aborted
	// how many of those were cut short.
	Records   int `json:"records"`
	Succeeded int `json:"succeeded"`
	Failed    int `json:"failed"`
	Aborted   int `json:"aborted"`
	// Kinds counts the error records by kind.
	Kinds map[message.ErrorKind]int `json:"errors,omitempty"`
	// Skipped is how many requests had a finished record already (run
	// --resume, a collect going on), SkippedFailed how many of those
	// records are errors.
	Skipped       int `json:"skipped"`
	SkippedFailed int `json:"skipped_failed,omitempty"`
	// Replaced is how many records gave way to a later one of their
	// request: the aborted records of a shard its resumed run finished
	// (merge), the records a resumed run replaced (run --resume). Dropped
	// is how many a resumed run removed as the records of no request of
	// its own (the request files changed since).
	Replaced int `json:"replaced,omitempty"`
	// ReplacedFailed is how many of the Replaced were error records
	// (a resumed run runs them again), the rest being aborted ones.
	ReplacedFailed int `json:"replaced_failed,omitempty"`
	Dropped        int `json:"dropped,omitempty"`
	// Foreign is how many records a resumed run's file holds that answer
	// no request (a tool's own): the file was left as it is, not
	// compacted.
	Foreign int `json:"foreign,omitempty"`
	// Interrupted says the run was interrupted; StoppedReading that the
	// interrupt stopped the reading of requests, so that those not read
	// have no record (--resume finishes them); FailedFast that --fail-fast
	// stopped it.
	Interrupted    bool `json:"interrupted,omitempty"`
	StoppedReading bool `json:"stopped_reading,omitempty"`
	FailedFast     bool `json:"failed_fast,omitempty"`
	// Deleted is how many files kesoku had uploaded for a batch and
	// deleted, every record being written (collect).
	Deleted int `json:"deleted_files,omitempty"`
	// Unreadable is how many request files could not be read (validate).
	Unreadable int `json:"unreadable_files,omitempty"`
	// Cases is how many of Total are eval cases, the rest requests
	// (validate).
	Cases int `json:"cases,omitempty"`
	// Pending is how many requests of a batch the provider has not
	// answered yet, Uncounted how many of an ended part it gives no
	// counts of, Unsent how many were never sent to it (status).
	Pending   int `json:"pending,omitempty"`
	Uncounted int `json:"uncounted,omitempty"`
	Unsent    int `json:"unsent,omitempty"`

	// The requests diff compared: the same in both files, changed (with
	// NewErrors, succeeded before and an error now, and Fixed, the other
	// way round, apart), and answered by one file only.
	Same      int `json:"same,omitempty"`
	Changed   int `json:"changed,omitempty"`
	NewErrors int `json:"new_errors,omitempty"`
	Fixed     int `json:"fixed,omitempty"`
	OnlyOld   int `json:"only_old,omitempty"`
	OnlyNew   int `json:"only_new,omitempty"`
	// Torn are the names of the files whose last line is a record cut
	// short (a run killed while it wrote), left out of the comparison.
	Torn []string `json:"torn,omitempty"`

	// What the sentence names: the records file of a collect, how many
	// parts a merge joined (or a batch has), the two files a diff
	// compared.
	Output   string `json:"-"`
	Parts    int    `json:"parts,omitempty"`
	Old, New string `json:"-"`
}

// Add counts a record the command wrote.
func (s *Summary) Add(rec *message.Record) {
	var kind message.ErrorKind
	if rec.Error != nil {
		kind = rec.Error.Kind
	}
	s.add(rec.IsError || rec.Error != nil, rec.Status == message.StatusAborted, kind)
}

func (s *Summary) add(failed, aborted bool, kind message.ErrorKind) {
	s.Total++
	s.Records++
	if !failed {
		s.Succeeded++
		return
	}
	s.Failed++
	if aborted {
		s.Aborted++
	}
	if kind != "" {
		if s.Kinds == nil {
			s.Kinds = make(map[message.ErrorKind]int)
		}
		s.Kinds[kind]++
	}
}

// Skip counts a request skipped as finished already, with an error record
// when failed.
func (s *Summary) Skip(failed bool) {
	s.Total++
	s.Skipped++
	if failed {
		s.SkippedFailed++
	}
}

// HasErrors reports whether the records the command accounts for hold an
// error: those it wrote, or those it skipped as finished.
func (s *Summary) HasErrors() bool { return s.Failed > 0 || s.SkippedFailed > 0 }

// Different is how many requests diff found different.
func (s *Summary) Different() int {
	return s.Changed + s.NewErrors + s.Fixed + s.OnlyOld + s.OnlyNew
}

// MarshalJSON writes the summary as a program reads it (--summary json):
// the counts of what the command is about always present, zeros and an
// empty "errors" included, so that a script needs no defaults; the rest
// where it applies. Diff's counts are of requests compared: same,
// different (changed, new_errors and fixed of them), only_old, only_new;
// validate's of requests checked: valid, failed (invalid), and the files.
func (s Summary) MarshalJSON() ([]byte, error) {
	if s.Command == CommandDiff {
		return json.Marshal(struct {
			Command   Command  `json:"command"`
			Total     int      `json:"total"`
			Same      int      `json:"same"`
			Different int      `json:"different"`
			Changed   int      `json:"changed"`
			NewErrors int      `json:"new_errors"`
			Fixed     int      `json:"fixed"`
			OnlyOld   int      `json:"only_old"`
			OnlyNew   int      `json:"only_new"`
			Old       string   `json:"old"`
			New       string   `json:"new"`
			Torn      []string `json:"torn,omitempty"`
		}{s.Command, s.Total, s.Same, s.Different(), s.Changed, s.NewErrors, s.Fixed, s.OnlyOld, s.OnlyNew, s.Old, s.New, s.Torn})
	}
	kinds := s.Kinds
	if kinds == nil {
		kinds = map[message.ErrorKind]int{}
	}
	if s.Command == CommandValidate {
		// Requests checked, not records written: nothing ran.
		return json.Marshal(struct {
			Command    Command                   `json:"command"`
			Total      int                       `json:"total"`
			Cases      int                       `json:"cases,omitempty"`
			Valid      int                       `json:"valid"`
			Failed     int                       `json:"failed"`
			Files      int                       `json:"files"`
			Unreadable int                       `json:"unreadable_files"`
			Kinds      map[message.ErrorKind]int `json:"errors"`
		}{s.Command, s.Total, s.Cases, s.Succeeded, s.Failed, s.Parts, s.Unreadable, kinds})
	}
	// plain has Summary's fields without this method; the outer errors
	// wins over its omitempty one.
	type plain Summary
	return json.Marshal(struct {
		plain
		Kinds map[message.ErrorKind]int `json:"errors"`
	}{plain(s), kinds})
}

// Hints are a summary's advice on what to do next. They name a command's
// flags, which the caller knows and records does not; an empty hint is
// left out (FailFast: said without the flag).
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

// String says in one line what the command did, without hints.
func (s *Summary) String() string { return s.Text(Hints{}) }

// Text says in one line, for standard error, what the command did, with
// the hints h.
func (s *Summary) Text(h Hints) string {
	var b strings.Builder
	b.WriteString("kesoku: ")
	switch s.Command {
	case CommandDiff:
		s.diff(&b)
		return b.String()
	case CommandStatus:
		// What the provider says of each request, not records written.
		fmt.Fprintf(&b, "%d %s in %d %s: %d succeeded, %d failed, %d in progress", s.Total, english.Plural(s.Total, "request", "requests"),
			s.Parts, english.Plural(s.Parts, "part", "parts"), s.Succeeded, s.Failed, s.Pending)
		if s.Uncounted > 0 {
			fmt.Fprintf(&b, ", %d ended uncounted (collect says)", s.Uncounted)
		}
		if s.Unsent > 0 {
			fmt.Fprintf(&b, ", %d not sent", s.Unsent)
		}
		return b.String()
	case CommandValidate:
		s.validate(&b)
		return b.String()
	case CommandMerge:
		if s.Eval {
			fmt.Fprintf(&b, "%d %s from %d %s: %d passed, %d failed", s.Records, english.Plural(s.Records, "run", "runs"),
				s.Parts, english.Plural(s.Parts, "shard", "shards"), s.Succeeded, s.Failed-s.Kinds[message.KindBudget])
			if n := s.Kinds[message.KindBudget]; n > 0 {
				fmt.Fprintf(&b, ", %d cut by the budget", n)
			}
			if s.Replaced > 0 {
				fmt.Fprintf(&b, "; %d budget %s replaced by a resumed eval's", s.Replaced, english.Plural(s.Replaced, "verdict", "verdicts"))
			}
			return b.String()
		}
		fmt.Fprintf(&b, "%d %s from %d %s: %d succeeded", s.Records, english.Plural(s.Records, "record", "records"),
			s.Parts, english.Plural(s.Parts, "shard", "shards"), s.Succeeded)
		if s.Failed > 0 {
			fmt.Fprintf(&b, ", %d failed", s.Failed)
			if s.Aborted > 0 {
				fmt.Fprintf(&b, " (%d aborted%s)", s.Aborted, hint(": ", h.Rerun))
			}
		}
		switch aborted := s.Replaced - s.ReplacedFailed; {
		case s.Replaced == 0:
		case s.ReplacedFailed == 0:
			fmt.Fprintf(&b, "; %d aborted %s replaced by a resumed run's", s.Replaced, english.Plural(s.Replaced, "record", "records"))
		case aborted == 0:
			fmt.Fprintf(&b, "; %d failed %s replaced by a resumed run's", s.Replaced, english.Plural(s.Replaced, "record", "records"))
		default:
			fmt.Fprintf(&b, "; %d %s replaced by a resumed run's (%d aborted, %d failed)", s.Replaced, english.Plural(s.Replaced, "record", "records"), aborted, s.ReplacedFailed)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%d %s: %d succeeded", s.Records, english.Plural(s.Records, "record", "records"), s.Succeeded)
	if s.Failed > 0 {
		kinds := slices.Sorted(maps.Keys(s.Kinds))
		said := make([]string, len(kinds))
		for i, k := range kinds {
			said[i] = fmt.Sprintf("%d %s", s.Kinds[k], k)
		}
		fmt.Fprintf(&b, ", %d failed (%s)", s.Failed, strings.Join(said, ", "))
	}
	if s.Skipped > 0 {
		if s.Command == CommandCollect {
			fmt.Fprintf(&b, "; %d skipped, written to %s by an earlier collect", s.Skipped, s.Output)
		} else {
			fmt.Fprintf(&b, "; %d skipped, finished by an earlier run", s.Skipped)
		}
		if s.SkippedFailed > 0 {
			fmt.Fprintf(&b, " (%d of them with an error)", s.SkippedFailed)
		}
	}
	if s.Dropped > 0 {
		fmt.Fprintf(&b, "; %d %s of requests not in this run removed from %s", s.Dropped, english.Plural(s.Dropped, "record", "records"), s.Output)
	}
	if s.Foreign > 0 {
		fmt.Fprintf(&b, "; %s left as it is, not in request order: it holds %d %s that %s no request (a tool's own)",
			s.Output, s.Foreign, english.Plural(s.Foreign, "record", "records"), english.Plural(s.Foreign, "answers", "answer"))
	}
	switch {
	case s.StoppedReading:
		b.WriteString("; interrupted: the requests not read by then have no record")
		if h.Finish != "" {
			b.WriteString(" (" + h.Finish + ")")
		}
	case s.Interrupted:
		b.WriteString("; interrupted")
		if s.Aborted > 0 && h.Redo != "" {
			b.WriteString(": " + h.Redo)
		}
	case s.FailedFast:
		b.WriteString("; " + cmp.Or(h.FailFast, "stopped at the first failure"))
	}
	if s.Deleted > 0 {
		fmt.Fprintf(&b, "; the %d %s uploaded for the batch deleted", s.Deleted, english.Plural(s.Deleted, "file", "files"))
	}
	return b.String()
}

// validate is the sentence of validate.
func (s *Summary) validate(b *strings.Builder) {
	switch {
	case s.Failed == 0 && s.Unreadable == 0:
		fmt.Fprintf(b, "%s in %d %s: all valid", s.checked(), s.Parts, english.Plural(s.Parts, "file", "files"))
	case s.Failed == 0:
		fmt.Fprintf(b, "%s valid", s.checked())
	default:
		fmt.Fprintf(b, "%d of %s invalid", s.Failed, s.checked())
	}
	if s.Unreadable > 0 {
		fmt.Fprintf(b, "; %d of %d %s could not be read", s.Unreadable, s.Parts, english.Plural(s.Parts, "file", "files"))
	}
}

// checked says what validate checked: requests, an eval's cases, or both.
func (s *Summary) checked() string {
	requests := s.Total - s.Cases
	cases := english.Count(s.Cases, "case", "cases")
	switch {
	case s.Cases == 0:
		return english.Count(requests, "request", "requests")
	case requests == 0:
		return cases
	}
	return english.Count(requests, "request", "requests") + " and " + cases
}

// diff is the sentence of diff.
func (s *Summary) diff(b *strings.Builder) {
	n := s.Different()
	if n == 0 {
		fmt.Fprintf(b, "%d %s, no differences", s.Total, english.Plural(s.Total, "request", "requests"))
		return
	}
	var parts []string
	for _, k := range []struct {
		n   int
		say string
	}{
		{s.Changed, "changed"},
		{s.NewErrors, english.Plural(s.NewErrors, "new error", "new errors")},
		{s.Fixed, "fixed"},
		{s.OnlyOld, "only in " + s.Old},
		{s.OnlyNew, "only in " + s.New},
	} {
		if k.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", k.n, k.say))
		}
	}
	fmt.Fprintf(b, "%d of %d %s %s: %s", n, s.Total, english.Plural(s.Total, "request", "requests"), english.Plural(n, "differs", "differ"), strings.Join(parts, ", "))
}

// hint is h after sep, or nothing when there is no hint.
func hint(sep, h string) string {
	if h == "" {
		return ""
	}
	return sep + h
}

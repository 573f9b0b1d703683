package diff

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/records"
)

// Summary is what kesoku diff found: how many requests the two files
// answer between them (Total), and of those how many are the same, changed
// (with NewErrors, succeeded before and an error now, and Fixed, the other
// way round, apart), and answered by one file only.
type Summary struct {
	Total, Same               int
	Changed, NewErrors, Fixed int
	OnlyOld, OnlyNew          int
	// Torn are the names of the files whose last line is a record cut
	// short (a run killed while it wrote), left out of the comparison.
	Torn []string
	// Old and New are the names of the two files compared.
	Old, New string
}

// Different is how many requests differ.
func (s *Summary) Different() int {
	return s.Changed + s.NewErrors + s.Fixed + s.OnlyOld + s.OnlyNew
}

// MarshalJSON writes the summary as a program reads it (--summary json):
// the counts of requests compared, zeros included.
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Command   string   `json:"command"`
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
	}{"diff", s.Total, s.Same, s.Different(), s.Changed, s.NewErrors, s.Fixed, s.OnlyOld, s.OnlyNew, s.Old, s.New, s.Torn})
}

// String says in one line what diff found.
func (s *Summary) String() string { return s.Text(records.Hints{}) }

// Text says in one line, for standard error, what diff found.
func (s *Summary) Text(records.Hints) string {
	n := s.Different()
	if n == 0 {
		return fmt.Sprintf("kesoku: %d %s, no differences", s.Total, english.Plural(s.Total, "request", "requests"))
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
	return fmt.Sprintf("kesoku: %d of %d %s %s: %s", n, s.Total, english.Plural(s.Total, "request", "requests"), english.Plural(n, "differs", "differ"), strings.Join(parts, ", "))
}

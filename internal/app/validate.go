package app

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// ValidateCount is what kesoku validate checked: requests and an eval's
// cases, not records (nothing ran). Total is how many were checked, Cases
// how many of those are cases; Invalid how many would be refused, by kind;
// Files how many files were read, Unreadable how many of them could not
// be.
type ValidateCount struct {
	Total, Cases, Invalid int
	Kinds                 map[message.ErrorKind]int
	Files, Unreadable     int
}

// Problem counts a request or case that would be refused, of kind.
func (c *ValidateCount) Problem(kind message.ErrorKind) {
	c.Invalid++
	if c.Kinds == nil {
		c.Kinds = map[message.ErrorKind]int{}
	}
	c.Kinds[kind]++
}

// MarshalJSON writes the count as a program reads it (--summary json):
// requests checked, valid and failed (invalid), and the files.
func (c ValidateCount) MarshalJSON() ([]byte, error) {
	kinds := c.Kinds
	if kinds == nil {
		kinds = map[message.ErrorKind]int{}
	}
	return json.Marshal(struct {
		Command    string                    `json:"command"`
		Total      int                       `json:"total"`
		Cases      int                       `json:"cases,omitempty"`
		Valid      int                       `json:"valid"`
		Failed     int                       `json:"failed"`
		Files      int                       `json:"files"`
		Unreadable int                       `json:"unreadable_files"`
		Kinds      map[message.ErrorKind]int `json:"errors"`
	}{"validate", c.Total, c.Cases, c.Total - c.Invalid, c.Invalid, c.Files, c.Unreadable, kinds})
}

// Text says in one line what validate found.
func (c *ValidateCount) Text(records.Hints) string {
	var b strings.Builder
	b.WriteString("kesoku: ")
	switch {
	case c.Invalid == 0 && c.Unreadable == 0:
		fmt.Fprintf(&b, "%s in %d %s: all valid", c.checked(), c.Files, english.Plural(c.Files, "file", "files"))
	case c.Invalid == 0:
		fmt.Fprintf(&b, "%s valid", c.checked())
	default:
		fmt.Fprintf(&b, "%d of %s invalid", c.Invalid, c.checked())
	}
	if c.Unreadable > 0 {
		fmt.Fprintf(&b, "; %d of %d %s could not be read", c.Unreadable, c.Files, english.Plural(c.Files, "file", "files"))
	}
	return b.String()
}

// checked says what was checked: requests, an eval's cases, or both.
func (c *ValidateCount) checked() string {
	requests := c.Total - c.Cases
	cases := english.Count(c.Cases, "case", "cases")
	switch {
	case c.Cases == 0:
		return english.Count(requests, "request", "requests")
	case requests == 0:
		return cases
	}
	return english.Count(requests, "request", "requests") + " and " + cases
}

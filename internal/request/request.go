// Package request owns tool request files: their formats (YAML, JSON,
// JSON Lines), reading them with a position for every request and every
// message about one, a request at a time, and the limits that keep
// hostile input from taking the machine. A YAML or JSON file is checked
// whole before anything runs, its requests kept meanwhile in a spool of
// JSON Lines, which is then read as a JSON Lines file is.
package request

import "strconv"

// Position is where a request was written: file:line:column. The zero
// Position belongs to requests that come from no file (a model's calls).
type Position struct {
	File      string
	Line, Col int
}

// IsZero reports whether p names no place.
func (p Position) IsZero() bool { return p.File == "" && p.Line == 0 }

func (p Position) String() string {
	switch {
	case p.IsZero():
		return ""
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return p.File + ":" + strconv.Itoa(p.Line)
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// Request is one tool call to run: a request from a file, or a model's
// tool call in a session.
type Request struct {
	// ID is the request's id; it becomes the record's parent_id. Run gives
	// a request without one the id call_N, N its 1-based position in the
	// run.
	ID   string
	Name string
	Args map[string]any
	// CallID is a provider's own call id, copied to the record's call_id.
	CallID string
	// SessionID, when set, overrides Options.SessionID for this request's
	// record (a file's own session_id).
	SessionID string
	// Pos is where the request was written; zero for a model's calls.
	Pos Position
	// Err says the request itself is invalid (a bad line, a missing name):
	// it gets an invalid_request record and nothing runs.
	Err error
	// ArgsHash, when set, is records.ArgsHash(Args), made as the request
	// was read: a file's readers make it on every core, where the run
	// would make it on one.
	ArgsHash string

	// other marks a Message record that is no request (record.go):
	// Requests leaves it out.
	other bool
}

// Prefix puts the position before msg, as messages about a place in a
// file read: "requests.yaml:12:5: msg". A zero position adds nothing.
func (p Position) Prefix(msg string) string {
	if p.IsZero() {
		return msg
	}
	return p.String() + ": " + msg
}

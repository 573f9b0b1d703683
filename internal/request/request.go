// Package request owns tool request files: YAML, JSON and JSON Lines, read
// with a position for every request.
//
// It knows their formats (YAML, JSON, JSON Lines), reading them with a position for every request and every
// message about one, a request at a time, and the limits that keep
// hostile input from taking the machine. A YAML or JSON file is checked
// whole before anything runs, its requests kept meanwhile in a spool of
// JSON Lines, which is then read as a JSON Lines file is.
package request

import "github.com/kesoku/kesoku/internal/yamlpos"

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
	Pos yamlpos.Pos
	// Err says the request itself is invalid (a bad line, a missing name):
	// it gets an invalid_request record and nothing runs.
	Err error
	// ArgsHash, when set, is records.ArgsHash(Args), made as the request
	// was read: a file's readers make it on every core, where the run
	// would make it on one.
	ArgsHash string
	// Size is the length of the JSON text the request was read from (its
	// line of JSON Lines, or as a YAML or JSON file's request was spooled),
	// 0 when it came from none: what a consumer that holds many requests
	// at once bounds them by.
	Size int
	// More says that the reader has the next request at hand, read with
	// this one: a consumer that takes requests in batches may wait for it
	// without waiting on the input. A request piped in alone has it unset.
	More bool

	// other marks a Message record that is no request (record.go):
	// Requests leaves it out.
	other bool
}

// Package shared declares types that another package's tool takes, so
// that generated code must import it.
package shared

// Window is a range of lines.
type Window struct {
	// From is the first line.
	From int `json:"from"`
	// To is the last line, when given.
	To *int `json:"to,omitempty"`
}

// Unit is a unit of length, an enum by its constants.
type Unit string

// The units.
const (
	Metre Unit = "m"
	Foot  Unit = "ft"
)

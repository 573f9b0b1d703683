// Package tools holds the example module's own tools. kesoku gen writes
// kesoku_gen.go from their doc comments; a blank import of the package
// (main.go) registers them.
package tools

import (
	"strings"

	"github.com/kesoku/kesoku/registry"
)

// The module's own binary regenerates the registrations: built without
// them (kesoku_nogen), so that a stale kesoku_gen.go cannot stop it.
//go:generate go run -tags kesoku_nogen example.com/mytools gen .

// WordCount counts the words of a text.
//
// Words are separated by white space; with unique, each word counts once,
// whatever its case.
//
// Args:
//
//	text: The text to count the words of.
//	unique: Count each word once, ignoring case. Defaults to false.
//
//kesoku:tool
func WordCount(text string, unique bool) int {
	words := strings.Fields(text)
	if !unique {
		return len(words)
	}
	seen := map[string]bool{}
	for _, w := range words {
		seen[strings.ToLower(w)] = true
	}
	return len(seen)
}

// Stamped is a label with where the call that stamped it came from.
type Stamped struct {
	// Label is the label given.
	Label string `json:"label"`
	// Session is the session the call belongs to.
	Session string `json:"session"`
	// Call is the id of the tool call that asked for the stamp.
	Call string `json:"call"`
}

// Stamp stamps a label with the session and the tool call that asked for
// it.
//
// Args:
//
//	label: What to stamp.
//
//kesoku:tool
func Stamp(tc *registry.ToolContext, label string) Stamped {
	return Stamped{Label: label, Session: tc.SessionID, Call: tc.OriginalMsgID}
}

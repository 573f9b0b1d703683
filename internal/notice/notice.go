// Package notice is how the work below cmd tells the user something as it
// goes.
//
// A package below cmd never writes to the terminal: it tells a Teller
// what it has to say, at a Level, and cmd, which implements the Teller,
// alone decides what reaches the terminal, in which words, and how text
// from outside in it is escaped.
package notice

// Level is how much a notice matters to the person at the terminal.
type Level int

const (
	// Info says what is going on: for those who asked (-v).
	Info Level = iota
	// Warning says what the user should know, or what went wrong without
	// stopping the work: held back from those who asked for quiet (-q).
	Warning
	// Error says something went wrong (what stops the work, a failure
	// of the server's own): always said.
	Error
)

// Teller is told the notices of the work below cmd. A message is plain
// text, one or more lines, and may hold text from outside (a path, a
// server's words): the Teller makes it safe to show. Tell may be called
// from several goroutines at once.
type Teller interface {
	Tell(level Level, msg string)
}

// Discard is a Teller that tells no one.
var Discard Teller = discard{}

type discard struct{}

func (discard) Tell(Level, string) {}

// Func is what level's notices are told through, as a function: for the
// packages that take one.
func Func(t Teller, level Level) func(string) {
	return func(msg string) { t.Tell(level, msg) }
}

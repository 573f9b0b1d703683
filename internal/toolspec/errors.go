package toolspec

import (
	"errors"
	"fmt"
	"strings"
)

// ArgError is one problem with one argument. Its message names the argument
// by its path (`args.items[2].name`), what was expected and what came, and
// a likely correction where there is one, so that a model can fix its call
// in one try.
type ArgError struct {
	// Path is the argument's path from the arguments object: "a",
	// "items[2].name".
	Path string
	// Problem says what is wrong: "missing required argument", "unknown
	// argument", "wrong type", "not one of the allowed values", or a tool's
	// own words.
	Problem string
	// Expected and Got describe the mismatch, where there is one.
	Expected, Got string
	// Suggestion is a likely intended name or value ("did you mean").
	Suggestion string
	// Err is an underlying cause, from a tool that refused an argument.
	Err error
}

func (e *ArgError) Error() string {
	var b strings.Builder
	// A path that starts with a quoted key reads args["a b"], not
	// args.["a b"].
	sep := "."
	if strings.HasPrefix(e.Path, "[") {
		sep = ""
	}
	fmt.Fprintf(&b, "args%s%s: %s", sep, e.Path, e.Problem)
	if e.Expected != "" {
		fmt.Fprintf(&b, ": expected %s", e.Expected)
		if e.Got != "" {
			fmt.Fprintf(&b, ", got %s", e.Got)
		}
	} else if e.Got != "" {
		fmt.Fprintf(&b, ": got %s", e.Got)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Suggestion != "" {
		fmt.Fprintf(&b, " (did you mean %q?)", e.Suggestion)
	}
	return b.String()
}

func (e *ArgError) Unwrap() error { return e.Err }

// ArgsError gathers every problem with one call's arguments, so that all of
// them are reported at once.
type ArgsError struct {
	Tool     string
	Problems []*ArgError
	// Omitted counts the problems left out of Problems because there were
	// too many to be of use in one message.
	Omitted int
}

func (e *ArgsError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Error()
	}
	if e.Omitted > 0 {
		msgs = append(msgs, fmt.Sprintf("and %d more problems", e.Omitted))
	}
	return fmt.Sprintf("tool %q: %s", e.Tool, strings.Join(msgs, "; "))
}

// InvalidArg is for tools: it marks err as the fault of the argument named
// (a path outside the working directory, a malformed pattern) rather than
// of the tool, so that the record says invalid_args.
func InvalidArg(name string, err error) error {
	return &ArgError{Path: name, Problem: "invalid value", Err: err}
}

// IsInvalidArgs reports whether err says the arguments were at fault.
func IsInvalidArgs(err error) bool {
	var a *ArgError
	var as *ArgsError
	return errors.As(err, &a) || errors.As(err, &as)
}

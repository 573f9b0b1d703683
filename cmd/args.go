package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/request"
)

// Cobra's and pflag's words for a wrong command line ("requires at least
// 1 arg(s), only received 0", "unknown flag: --job") name neither the
// argument that is missing nor the flag that was meant. These say both,
// at every level of commands.

// commandName is c's path without the program's name: "batch status".
func commandName(c *cobra.Command) string {
	path := c.CommandPath()
	if !c.HasParent() {
		return path
	}
	_, rest, _ := strings.Cut(path, " ")
	return rest
}

// subcommandArgs is the Args of a command that groups others: an argument
// is a subcommand it does not have, and the nearest is suggested.
func subcommandArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return unknownCommand(c, args[0])
}

// unknownCommand is the error for a subcommand c does not have.
func unknownCommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if s := suggestCommand(c, name); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return usageErrf("%s", msg)
}

// suggestCommand is the subcommand (or, under the root, the help topic)
// of c that name is likely a typo or the beginning of; "" for none.
func suggestCommand(c *cobra.Command, name string) string {
	var names []string
	for _, sub := range c.Commands() {
		if sub.Hidden || !(sub.IsAvailableCommand() || isTopic(sub)) {
			continue
		}
		names = append(names, sub.Name())
		names = append(names, sub.Aliases...)
	}
	return suggest(name, names)
}

// suggest is the candidate name is a typo of, or else the one candidate
// it begins; "" for none.
func suggest(name string, candidates []string) string {
	if s := english.Suggest(name, candidates); s != "" {
		return s
	}
	found := ""
	for _, c := range candidates {
		if len(name) >= 2 && strings.HasPrefix(c, strings.ToLower(name)) {
			if found != "" {
				return "" // ambiguous
			}
			found = c
		}
	}
	return found
}

// noArgs is the Args of a command that takes none.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return usageErrf("%s takes no arguments, got %q", commandName(c), args[0])
}

// argSpec says what a command's arguments are, for the errors that name
// them.
type argSpec struct {
	// what names one argument: "request FILE".
	what string
	// min and max bound their number; max < 0 for no bound.
	min, max int
	// missing is what to say when there are fewer than min, after the
	// command's name; "" for "no <what>".
	missing func(args []string) string
	// hint follows "no <what>" in parentheses.
	hint string
	// tooMany is what to say when there are more than max, after the
	// command's name; "" for "takes one <what>, got N: ...".
	tooMany func(args []string) string
	// empty allows an argument that is "".
	empty bool
}

// args is the cobra.PositionalArgs of s: too few, too many and empty
// arguments are bad usage, told with the argument's name.
func (s argSpec) args(c *cobra.Command, args []string) error {
	name := commandName(c)
	for _, a := range args {
		if a == "" && !s.empty {
			return usageErrf("%s: the %s name is empty", name, s.what)
		}
	}
	switch {
	case len(args) < s.min:
		if s.missing != nil {
			return usageErrf("%s: %s", name, s.missing(args))
		}
		msg := fmt.Sprintf("%s: no %s", name, s.what)
		if s.hint != "" {
			msg += " (" + s.hint + ")"
		}
		return usageErrf("%s", msg)
	case s.max >= 0 && len(args) > s.max && s.tooMany != nil:
		return usageErrf("%s %s", name, s.tooMany(args))
	case s.max >= 0 && len(args) > s.max:
		want := "one"
		if s.max != 1 {
			want = fmt.Sprint(s.max)
		}
		return usageErrf("%s takes %s %s, got %d: %s", name, want, s.what, len(args), quoteArgs(args))
	}
	return nil
}

// quoteArgs lists args as a shell would need them written.
func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, " ")
}

// promptArgs are session's: one PROMPT, which may be empty.
var promptArgs = argSpec{what: "PROMPT", max: 1, empty: true, tooMany: func(args []string) string {
	return fmt.Sprintf("takes one PROMPT, not %d words: quote a prompt of several, as in kesoku session %q", len(args), strings.Join(args, " "))
}}.args

// stateArgs are batch status's and collect's: one state file.
var stateArgs = argSpec{what: "STATE file", min: 1, max: 1, hint: "the path batch submit printed"}.args

// requestFileArgs are the arguments of run and validate: request files.
var requestFileArgs = argSpec{what: "request FILE", min: 1, max: -1, hint: "give - for standard input"}.args

// flagError words pflag's error for a flag the command does not have,
// suggesting the flag that was likely meant: the nearest name (--job for
// --jobs), a long name given with one dash (-timeout), a shorthand in the
// other case (-J).
func flagError(c *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return usageErr(err)
	}
	fs := c.Flags()
	if group := ne.GetSpecifiedShortnames(); group != "" {
		if f := fs.Lookup(group); f != nil && !f.Hidden {
			return usageErrf("%w (did you mean --%s?)", err, f.Name)
		}
		letter := ne.GetSpecifiedName()
		for _, other := range []string{strings.ToLower(letter), strings.ToUpper(letter)} {
			if f := fs.ShorthandLookup(other); other != letter && f != nil && !f.Hidden {
				return usageErrf("%w (did you mean -%s, --%s?)", err, f.Shorthand, f.Name)
			}
		}
		return usageErr(err)
	}
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	if s := suggest(ne.GetSpecifiedName(), names); s != "" {
		return usageErrf("%w (did you mean --%s?)", err, s)
	}
	return usageErr(err)
}

// requestFormat checks what run and validate share: --format, and the
// FILE arguments reading standard input at most once. It returns the
// format --format forces ("" for none); its errors are bad usage.
func requestFormat(flag string, files []string) (request.Format, error) {
	format, err := request.ParseFormat(flag)
	if err != nil {
		return "", usageErrf("--format: %w", err)
	}
	if n := countStdin(files); n > 1 {
		return "", usageErrf(`"-" (standard input) given %d times`, n)
	}
	return format, nil
}

func countStdin(files []string) int {
	n := 0
	for _, f := range files {
		if f == "-" {
			n++
		}
	}
	return n
}

package cmd

import (
	"fmt"
	"strings"

	"github.com/kesoku/kesoku/internal/batch"
	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/openai"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
)

// worded is an error of a package below cmd in the words of the command
// line: the packages below say what is wrong in their own terms, and only
// cmd knows which flag sets what. The error itself stays in the chain for
// errors.Is and errors.As.
type worded struct {
	msg string
	err error
}

// reword is err said as format and args say it.
func reword(err error, format string, args ...any) error {
	return &worded{msg: fmt.Sprintf(format, args...), err: err}
}

func (w *worded) Error() string { return w.msg }
func (w *worded) Unwrap() error { return w.err }

// errorText is err's message for a terminal: the typed errors of the
// packages below, wherever they are in its chain, said in the command
// line's words from what they carry (which setting, which limit) — never
// by editing their text. A wrapper around one keeps its own words, the
// text it writes around its inner error's (as fmt.Errorf's %w does); a
// wrapper whose text does not hold its inner error's (it escaped or cut
// it) gives way to the worded error, said whole.
func errorText(err error) string {
	if s, ok := words(err); ok {
		return s
	}
	switch x := err.(type) {
	case interface{ Unwrap() error }:
		if inner := x.Unwrap(); inner != nil {
			return around(err, []error{inner})
		}
	case interface{ Unwrap() []error }:
		return around(err, x.Unwrap())
	}
	return err.Error()
}

// around is the text of err, a wrapper of inner, with each inner error's
// text said by errorText.
func around(err error, inner []error) string {
	whole := err.Error()
	var b strings.Builder
	rest, changed := whole, false
	for _, e := range inner {
		if e == nil {
			continue
		}
		own, said := e.Error(), errorText(e)
		if said == own {
			continue
		}
		i := strings.Index(rest, own)
		if i < 0 {
			// The wrapper said its inner error its own way: what cmd
			// says of it is worth more than the wrapper's words.
			return said
		}
		b.WriteString(rest[:i])
		b.WriteString(said)
		rest, changed = rest[i+len(own):], true
	}
	if !changed {
		return whole
	}
	b.WriteString(rest)
	return b.String()
}

// words is err, one of the typed errors of the packages below, in the
// command line's words, from what it carries; false for any other error.
func words(err error) (string, bool) {
	switch e := err.(type) {
	case *worded:
		// Worded by cmd already, whatever it holds.
		return e.msg, true
	case *llm.IdleError:
		return fmt.Sprintf("%s: the API sent nothing for %v (--idle-timeout)", e.Provider, e.Timeout), true
	case *llm.DeadlineError:
		return fmt.Sprintf("%s: the API did not finish answering within %v (--api-timeout)", e.Provider, e.Deadline), true
	case *llm.MaxTurnsError:
		return fmt.Sprintf("the model did not answer within %d %s (--max-turns); it still asked for tools", e.Turns, english.Plural(e.Turns, "turn", "turns")), true
	case *llm.CutError:
		if llm.CutByTokenLimit(e.Reason) {
			return fmt.Sprintf("the answer was cut short: it reached the output token limit (%s); raise --max-tokens", e.Reason), true
		}
	case *llm.RequestError:
		return e.Words("--base-url"), true
	case *openai.TooManyToolsError:
		return fmt.Sprintf("openai takes at most %d tools in a request, and %d are offered: name fewer with --tools (MCP servers' tools count too)", openai.MaxTools, e.Offered), true
	case *batch.OtherBatchError:
		return fmt.Sprintf("%s is the state of another batch (of %s, to %s): give -o a new file, or remove it", e.Path, e.File, e.Model), true
	case *records.UnfinishedError:
		advice := "run it again with --resume"
		if e.Torn {
			advice = "run its shard again with --resume, which finishes it"
		}
		return e.Msg + " " + advice, true
	case *request.FormatError:
		return fmt.Sprintf("%s: unknown extension %q: want .yaml, .yml, .json, .jsonl or .ndjson, or say --format", e.Name, e.Ext), true
	case *request.ParseError:
		if e.Format != "" {
			return e.Pos.String() + ": " + parseErrorMsg(e), true
		}
	}
	return "", false
}

// parseErrorMsg is a request file's parse error without its place, and
// the format to say when the file seems to be in another.
func parseErrorMsg(e *request.ParseError) string {
	if e.Format != "" {
		return e.Msg + ", or say --format " + string(e.Format)
	}
	return e.Msg
}

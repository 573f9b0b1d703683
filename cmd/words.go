package cmd

import (
	"errors"
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

// errorText is err's message with the typed errors of the packages below
// said in the command line's words, wherever they are in its chain: the
// messages that wrap one quote its text whole, which is replaced.
func errorText(err error) string {
	msg := err.Error()
	say := func(old, words string) { msg = strings.Replace(msg, old, words, 1) }
	if e, ok := errors.AsType[*llm.IdleError](err); ok {
		say(e.Error(), fmt.Sprintf("%s: the API sent nothing for %v (--idle-timeout)", e.Provider, e.Timeout))
	}
	if e, ok := errors.AsType[*llm.DeadlineError](err); ok {
		say(e.Error(), fmt.Sprintf("%s: the API did not finish answering within %v (--api-timeout)", e.Provider, e.Deadline))
	}
	if e, ok := errors.AsType[*llm.MaxTurnsError](err); ok {
		say(e.Error(), fmt.Sprintf("the model did not answer within %d %s (--max-turns); it still asked for tools", e.Turns, english.Plural(e.Turns, "turn", "turns")))
	}
	if e, ok := errors.AsType[*llm.CutError](err); ok && llm.CutByTokenLimit(e.Reason) {
		say(e.Error(), fmt.Sprintf("the answer was cut short: it reached the output token limit (%s); raise --max-tokens", e.Reason))
	}
	if e, ok := errors.AsType[*llm.RequestError](err); ok {
		say(e.Error(), e.Words("--base-url"))
	}
	if e, ok := errors.AsType[*openai.TooManyToolsError](err); ok {
		say(e.Error(), fmt.Sprintf("openai takes at most %d tools in a request, and %d are offered: name fewer with --tools (MCP servers' tools count too)", openai.MaxTools, e.Offered))
	}
	if e, ok := errors.AsType[*batch.OtherBatchError](err); ok {
		say(e.Error(), fmt.Sprintf("%s is the state of another batch (of %s, to %s): give -o a new file, or remove it", e.Path, e.File, e.Model))
	}
	if e, ok := errors.AsType[*records.UnfinishedError](err); ok {
		advice := "run it again with --resume"
		if e.Torn {
			advice = "run its shard again with --resume, which finishes it"
		}
		say(e.Error(), e.Msg+" "+advice)
	}
	if e, ok := errors.AsType[*request.FormatError](err); ok {
		say(e.Error(), fmt.Sprintf("%s: unknown extension %q: want .yaml, .yml, .json, .jsonl or .ndjson, or say --format", e.Name, e.Ext))
	}
	if e, ok := errors.AsType[*request.ParseError](err); ok && e.Format != "" {
		say(e.Error(), e.Pos.String()+": "+parseErrorMsg(e))
	}
	return msg
}

// parseErrorMsg is a request file's parse error without its place, and
// the format to say when the file seems to be in another.
func parseErrorMsg(e *request.ParseError) string {
	if e.Format != "" {
		return e.Msg + ", or say --format " + string(e.Format)
	}
	return e.Msg
}

package request

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// ArgsError says that the arguments of a tool call were no JSON object:
// what a model sent could not be read. The call does not run, and its
// record is an invalid_args error that tells the model to send them again
// — the same record in the session that got the call and in a replay of
// its transcript, whose tool_call record keeps such arguments as a JSON
// string.
type ArgsError struct {
	Pos yamlpos.Pos
	// Raw is what came as the arguments.
	Raw string
}

func (e *ArgsError) Error() string { return e.Pos.Prefix(e.Reason()) }

// Is says an ArgsError is records.ErrInvalidArgs: its record is an
// invalid_args error.
func (e *ArgsError) Is(target error) bool { return target == records.ErrInvalidArgs }

// Reason is what is wrong, without the position.
func (e *ArgsError) Reason() string {
	raw := e.Raw
	var v any
	what := "they are not a JSON object"
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		what = "they are not valid JSON (" + err.Error() + ")"
	}
	if len(raw) > 200 {
		raw = raw[:200] + "…"
	}
	return fmt.Sprintf("not run: the arguments you sent could not be read: %s; you sent %s; send the call again with one JSON object of arguments", what, strconv.Quote(raw))
}

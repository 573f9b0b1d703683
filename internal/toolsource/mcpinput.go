package toolsource

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxRounds bounds the round trips of one call: a server that answers
// input_required for ever ends the call rather than holding it.
const maxRounds = 10

// InputRequiredError says that a server answered a call with a request
// for input (MCP's multi-round-trip input_required) that kesoku cannot
// give: what a person would answer (an elicitation), a model's answer
// (sampling), the client's roots, none of which kesoku declares. Or that
// the server kept asking past the rounds a call may take.
type InputRequiredError struct {
	// Server is the server's name and place.
	Server string
	// Asked are the inputs asked for, each as "KEY: WHAT", sorted by key.
	Asked []string
	// Rounds is set when the server asked again for maxRounds rounds.
	Rounds int
}

func (e *InputRequiredError) Error() string {
	if e.Rounds > 0 {
		return fmt.Sprintf("%s: the call still asked for more after %d round trips (input_required), and was given up", e.Server, e.Rounds)
	}
	return fmt.Sprintf("%s: the server asked for input kesoku cannot give (input_required): %s", e.Server, strings.Join(e.Asked, "; "))
}

// callRounds calls a tool and takes it through the round trips of a
// multi-round-trip result, as the protocol says: a result that asks for
// nothing but carries a requestState is retried as a new request (a new
// JSON-RPC id) that echoes the state exactly, and carries nothing of
// another call's. A result that asks for input kesoku cannot give ends
// the call with an *InputRequiredError naming what was asked.
func (s *server) callRounds(ctx context.Context, session *mcp.ClientSession, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	for round := 1; ; round++ {
		res, err := session.CallTool(ctx, params)
		if err != nil || (!res.NeedsInput() && res.RequestState == "") {
			return res, err
		}
		if len(res.InputRequests) > 0 {
			return nil, &InputRequiredError{Server: s.decl.where(), Asked: asked(res.InputRequests)}
		}
		if round >= maxRounds {
			return nil, &InputRequiredError{Server: s.decl.where(), Rounds: round}
		}
		next := *params
		next.RequestState, next.InputResponses = res.RequestState, nil
		params = &next
	}
}

// asked says what each input request asks for, in a few words: the
// method, and for an elicitation its message.
func asked(reqs mcp.InputRequestMap) []string {
	keys := slices.Sorted(maps.Keys(reqs))
	out := make([]string, 0, len(keys))
	for _, k := range keys {
		var what string
		switch r := reqs[k].(type) {
		case *mcp.ElicitParams:
			what = "an answer from a person (elicitation/create)"
			if r.URL != "" {
				what = "a person to visit " + strconv.Quote(r.URL) + " (elicitation/create)"
			}
			if r.Message != "" {
				what += ": " + strconv.Quote(r.Message)
			}
		case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
			what = "a model's answer (sampling/createMessage)"
		case *mcp.ListRootsParams:
			what = "the client's roots (roots/list)"
		default:
			what = fmt.Sprintf("%T", r)
		}
		out = append(out, strconv.Quote(k)+": "+what)
	}
	return out
}

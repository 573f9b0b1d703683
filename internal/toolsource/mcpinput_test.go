package toolsource

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// roundTrips is an MCP server of the stateless revision, by hand (the
// SDK's server cannot send a requestState without inputRequests), whose
// tools answer with input_required: resume asks for nothing but carries a
// state twice before it answers; confirm asks a person; forever never
// ends. It keeps the tools/call requests it received.
type roundTrips struct {
	mu    sync.Mutex
	calls []roundTripCall
}

type roundTripCall struct {
	ID                     string
	Name, State            string
	InputResponses         json.RawMessage
	HasState, HasResponses bool
}

func (rt *roundTrips) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name           string          `json:"name"`
			RequestState   *string         `json:"requestState"`
			InputResponses json.RawMessage `json:"inputResponses"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if req.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	answer := func(result any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
	obj := map[string]any{"type": "object"}
	switch req.Method {
	case "server/discover":
		answer(map[string]any{"resultType": "complete", "supportedVersions": []string{"2026-07-28"},
			"capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "rounds", "version": "1"}})
	case "tools/list":
		answer(map[string]any{"resultType": "complete", "tools": []any{
			map[string]any{"name": "resume", "inputSchema": obj},
			map[string]any{"name": "confirm", "inputSchema": obj},
			map[string]any{"name": "forever", "inputSchema": obj},
		}})
	case "tools/call":
		state := ""
		if req.Params.RequestState != nil {
			state = *req.Params.RequestState
		}
		rt.mu.Lock()
		rt.calls = append(rt.calls, roundTripCall{ID: string(req.ID), Name: req.Params.Name, State: state,
			HasState: req.Params.RequestState != nil, HasResponses: req.Params.InputResponses != nil})
		rt.mu.Unlock()
		switch {
		case req.Params.Name == "resume" && state == "":
			answer(map[string]any{"resultType": "input_required", "requestState": "opaque \"state\" 1"})
		case req.Params.Name == "resume" && state == "opaque \"state\" 1":
			answer(map[string]any{"resultType": "input_required", "requestState": "opaque \"state\" 2"})
		case req.Params.Name == "resume" && state == "opaque \"state\" 2":
			answer(map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": "resumed"}}})
		case req.Params.Name == "confirm":
			answer(map[string]any{"resultType": "input_required", "requestState": "c", "inputRequests": map[string]any{
				"go_ahead": map[string]any{"method": "elicitation/create", "params": map[string]any{
					"mode": "form", "message": "Delete the branch?",
					"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}},
				}},
			}})
		case req.Params.Name == "forever":
			answer(map[string]any{"resultType": "input_required", "requestState": "again"})
		default:
			answer(map[string]any{"resultType": "complete", "isError": true, "content": []any{map[string]any{"type": "text", "text": "unexpected state " + state}}})
		}
	default:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
	}
}

func (rt *roundTrips) of(name string) []roundTripCall {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var out []roundTripCall
	for _, c := range rt.calls {
		if c.Name == name {
			out = append(out, c)
		}
	}
	return out
}

// TestInputRequired: a call answered with input_required is taken through
// its round trips as the protocol says — each retry a new request with a
// JSON-RPC id of its own, echoing the state exactly, with no answers it
// was not asked for — and a request for input kesoku cannot give (a
// person's answer) ends the call at once with an error naming what was
// asked; a server that never stops asking is given up after a bounded
// number of rounds. None of it hangs.
func TestInputRequired(t *testing.T) {
	rt := &roundTrips{}
	srv := httptest.NewServer(rt)
	t.Cleanup(srv.Close)
	set := httpServer(t, Options{}, srv.URL+"/mcp")

	v, err := call(t, set, "web__resume", map[string]any{})
	if err != nil || v != "resumed" {
		t.Fatalf("resume: %v, %v", v, err)
	}
	calls := rt.of("resume")
	if len(calls) != 3 {
		t.Fatalf("resume took %d requests, want 3: %+v", len(calls), calls)
	}
	ids := map[string]bool{}
	for i, c := range calls {
		ids[c.ID] = true
		want := []string{"", `opaque "state" 1`, `opaque "state" 2`}[i]
		if c.State != want || c.HasState != (i > 0) || c.HasResponses {
			t.Errorf("request %d: state %q (sent %v), input responses %v; want state %q", i, c.State, c.HasState, c.HasResponses, want)
		}
	}
	if len(ids) != 3 {
		t.Errorf("the retries reused a JSON-RPC id: %+v", calls)
	}

	_, err = call(t, set, "web__confirm", map[string]any{})
	var ir *InputRequiredError
	if !errors.As(err, &ir) || !strings.Contains(err.Error(), `"go_ahead": an answer from a person (elicitation/create): "Delete the branch?"`) || !strings.HasPrefix(err.Error(), "mcp server web") {
		t.Errorf("confirm: %v", err)
	}
	if n := len(rt.of("confirm")); n != 1 {
		t.Errorf("confirm: %d requests, want 1: nothing to answer with", n)
	}

	_, err = call(t, set, "web__forever", map[string]any{})
	if !errors.As(err, &ir) || ir.Rounds != maxRounds {
		t.Errorf("forever: %v", err)
	}
	if n := len(rt.of("forever")); n != maxRounds {
		t.Errorf("forever: %d requests, want %d", n, maxRounds)
	}
}

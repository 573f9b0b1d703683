package records

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// TestPack: what a call came back with becomes the record of the one
// mapping, whoever made the call (a run, kesoku analyze, batch collect):
// the same fields and the same error kinds.
func TestPack(t *testing.T) {
	t.Parallel()
	p := &Packer{SessionID: "s", Timeout: time.Second}
	type shape struct {
		Name, Session, Content string
		Status                 message.Status
		Kind                   message.ErrorKind
		Message                string
		IsError                bool
	}
	tests := []struct {
		name string
		o    Outcome
		want shape
	}{
		{"a result", Outcome{Value: "<b>"}, shape{Name: "t", Session: "s", Status: "responded", Content: `"<b>"`}},
		{"the arguments' fault", Outcome{Err: registry.InvalidArg("path", errors.New("no"))},
			shape{Name: "t", Session: "s", Status: "responded", Kind: "invalid_args", Message: `args.path: invalid value: no`, IsError: true}},
		{"a tool error", Outcome{Err: errors.New("down")}, shape{Name: "t", Session: "s", Status: "responded", Kind: "tool_error", Message: "down", IsError: true}},
		{"interrupted", Outcome{Err: context.Canceled, Cut: true},
			shape{Name: "t", Session: "s", Status: "aborted", Kind: "aborted", Message: "interrupted while running: context canceled", IsError: true}},
		{"cut by --fail-fast", Outcome{Err: context.Canceled, Cut: true, ByFailFast: true},
			shape{Name: "t", Session: "s", Status: "aborted", Kind: "aborted", Message: "cancelled: an earlier call failed, and the run stops at the first failure: context canceled", IsError: true}},
		{"timed out", Outcome{Err: context.DeadlineExceeded, TimedOut: true, Timeout: time.Second},
			shape{Name: "t", Session: "s", Status: "responded", Kind: "timeout", Message: "timed out after 1s (the timeout for each call)", IsError: true}},
		{"timed out under the tool's own bound", Outcome{Err: context.DeadlineExceeded, TimedOut: true, Timeout: time.Minute},
			shape{Name: "t", Session: "s", Status: "responded", Kind: "timeout", Message: "timed out after 1m0s (the tool's own timeout)", IsError: true}},
		{"a panic", Outcome{Panicked: "panic: boom"}, shape{Name: "t", Session: "s", Status: "responded", Kind: "panic", Message: "panic: boom", IsError: true}},
		{"an unknown tool", Outcome{Err: registry.New().UnknownTool("t")},
			shape{Name: "t", Session: "s", Status: "responded", Kind: "unknown_tool", Message: `unknown tool "t"`, IsError: true}},
		{"a result that is no JSON", Outcome{Value: func() {}},
			shape{Name: "t", Session: "s", Status: "responded", Kind: "tool_error", Message: `tool "t" returned a value that is not JSON: json: unsupported type: func()`, IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := p.Pack(Call{ID: "call_1", Name: "t", CallID: "c1"}, tt.o, time.Millisecond)
			got := shape{Name: rec.Name, Session: rec.SessionID, Content: string(rec.Content), Status: rec.Status, IsError: rec.IsError}
			if rec.Error != nil {
				got.Kind, got.Message = rec.Error.Kind, rec.Error.Message
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("record mismatch (-want +got):\n%s", diff)
			}
			if rec.ParentID != "call_1" || rec.CallID != "c1" || rec.Role != message.RoleTool || rec.Type != message.TypeToolResult ||
				rec.DurationMS == nil || *rec.DurationMS != 1 || rec.CreatedAt.IsZero() {
				t.Errorf("record %+v lacks what a run's records have", rec)
			}
		})
	}
	// A request's own session wins.
	if rec := p.Pack(Call{Name: "t", SessionID: "mine"}, Outcome{Value: 1}, 0); rec.SessionID != "mine" {
		t.Errorf("session %q, want the call's own", rec.SessionID)
	}
}

// TestBuilderKinds: every error kind a tool_result can have, each way a
// command comes to one, in one table — the builder is the one place kinds
// are chosen, for a run's calls, its refusals, a session's calls that never
// ran or never came back, and mcp serve's unknown tools.
func TestBuilderKinds(t *testing.T) {
	t.Parallel()
	p := &Packer{SessionID: "s", Timeout: time.Second}
	c := Call{ID: "call_1", Name: "t", CallID: "c1"}
	unknown := registry.New().UnknownTool("t")
	badArgs := registry.InvalidArg("path", errors.New("no"))
	type shape struct {
		Kind    message.ErrorKind
		Status  message.Status
		Message string
	}
	for _, tt := range []struct {
		name string
		rec  *message.Record
		want shape
	}{
		{"a malformed request", p.Refused(c, InvalidRequest(errors.New("r.yaml:1:1: not a mapping")), ""),
			shape{"invalid_request", "responded", "r.yaml:1:1: not a mapping"}},
		{"a call of a cut turn", p.Refused(c, ErrInvalidRequest, "not run: your turn was cut short"),
			shape{"invalid_request", "responded", "not run: your turn was cut short"}},
		{"a tool that is not there", p.Refused(c, unknown, ""), shape{"unknown_tool", "responded", `unknown tool "t"`}},
		{"a request that names no tool there", p.Refused(c, InvalidRequest(unknown), ""), shape{"unknown_tool", "responded", `unknown tool "t"`}},
		{"a tool a server does not offer", p.Refused(c, fmt.Errorf("%w: t", ErrUnknownTool), "t is not offered"),
			shape{"unknown_tool", "responded", "t is not offered"}},
		{"a tool's unknown tool, as it ran", p.Pack(c, Outcome{Err: unknown}, 0), shape{"unknown_tool", "responded", `unknown tool "t"`}},
		{"arguments refused before the call", p.Refused(c, InvalidArgs(errors.New("args.a: missing")), ""),
			shape{"invalid_args", "responded", "args.a: missing"}},
		{"arguments that were no JSON object", p.Refused(c, InvalidRequest(fmt.Errorf("%w", ErrInvalidArgs)), "send them again"),
			shape{"invalid_args", "responded", "send them again"}},
		{"arguments refused as the call ran", p.Pack(c, Outcome{Err: badArgs}, 0), shape{"invalid_args", "responded", "args.path: invalid value: no"}},
		{"arguments refused as the run was cut", p.Pack(c, Outcome{Err: badArgs, Cut: true}, 0), shape{"invalid_args", "responded", "args.path: invalid value: no"}},
		{"a tool's error", p.Pack(c, Outcome{Err: errors.New("down")}, 0), shape{"tool_error", "responded", "down"}},
		{"a tool's own refusal before the call", p.Refused(c, errors.New("no such file"), ""), shape{"tool_error", "responded", "no such file"}},
		{"a panic", p.Pack(c, Outcome{Panicked: "panic: boom"}, 0), shape{"panic", "responded", "panic: boom"}},
		{"a timeout", p.Pack(c, Outcome{Err: context.DeadlineExceeded, TimedOut: true, Timeout: time.Second}, 0),
			shape{"timeout", "responded", "timed out after 1s (the timeout for each call)"}},
		{"an interrupt", p.Pack(c, Outcome{Err: context.Canceled, Cut: true}, 0),
			shape{"aborted", "aborted", "interrupted while running: context canceled"}},
		{"an unknown tool as the run was cut", p.Pack(c, Outcome{Err: unknown, Cut: true}, 0),
			shape{"aborted", "aborted", `interrupted while running: unknown tool "t"`}},
		{"an interrupt before the call", p.Aborted(c, "interrupted before it ran", 0), shape{"aborted", "aborted", "interrupted before it ran"}},
		{"a session's call left unanswered", p.Unanswered(c), shape{"aborted", "aborted", UnansweredMessage}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := tt.rec
			if rec.Error == nil || !rec.IsError {
				t.Fatalf("record %+v: no error", rec)
			}
			got := shape{rec.Error.Kind, rec.Status, rec.Error.Message}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("record mismatch (-want +got):\n%s", diff)
			}
			if rec.ParentID != "call_1" || rec.CallID != "c1" || rec.Name != "t" || rec.SessionID != "s" ||
				rec.Role != message.RoleTool || rec.Type != message.TypeToolResult || rec.DurationMS == nil {
				t.Errorf("record %+v lacks what every tool_result has", rec)
			}
		})
	}
}

// TestEncodeContentIsMarshal holds the shortcuts of encodeContent to what
// marshal (encoding/json without HTML escaping) writes for the same value.
func TestEncodeContentIsMarshal(t *testing.T) {
	t.Parallel()
	for _, v := range []any{nil, 0, -7, int64(1) << 62, true, false,
		"", "plain", "<html>&", "line\nbreak\t\x00", "é\u2028\u2029", "\xff\xfe", `"\`,
		json.RawMessage(`{"a":[1,2]}`), 1.5, []any{"x", 1.0}} {
		want, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeContent(v)
		if err != nil {
			t.Errorf("encodeContent(%#v): %v", v, err)
			continue
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("encodeContent(%#v) mismatch (-want +got):\n%s", v, diff)
		}
	}
}

func TestCutKeepsRunesWhole(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", 100) // two bytes each
	for limit := int64(1); limit < 60; limit++ {
		head, tail := cut(s, limit)
		if !utf8Valid(head) || !utf8Valid(tail) || int64(len(head)+len(tail)) > limit {
			t.Fatalf("cut(%d) = %d+%d bytes, valid %v %v", limit, len(head), len(tail), utf8Valid(head), utf8Valid(tail))
		}
	}
}

func utf8Valid(s string) bool {
	return json.Valid([]byte(fmt.Sprintf("%q", s))) && strings.ToValidUTF8(s, "?") == s
}

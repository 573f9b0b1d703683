package llm

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/message"
)

// deferredTranscript is a session that stopped at its second call of a
// turn: the first ran, the second was deferred, the third waits after it.
func deferredTranscript() []*message.Record {
	rec := func(id, parent string, role message.Role, typ message.Type, name, content string) *message.Record {
		r := &message.Record{ID: id, SessionID: "s", ParentID: parent, Role: role, Type: typ, Status: message.StatusResponded, Name: name, CallID: id}
		if content != "" {
			r.Content = json.RawMessage(content)
		}
		return r
	}
	deferred := rec("r5", "c2", message.RoleTool, message.TypeToolResult, "write_file", "")
	deferred.Status, deferred.IsError = message.StatusDeferred, true
	deferred.Error = &message.ErrorInfo{Kind: message.KindDeferred, Message: "waits"}
	after := rec("r6", "c3", message.RoleTool, message.TypeToolResult, "write_file", "")
	after.Status, after.IsError = message.StatusAborted, true
	after.Error = &message.ErrorInfo{Kind: message.KindAborted, Message: deferStopMessage}
	return []*message.Record{
		rec("r0", "", message.RoleUser, message.TypeText, "", `"go"`),
		rec("c1", "r0", message.RoleAssistant, message.TypeToolCall, "read_file", `{"path":"a"}`),
		rec("c2", "c1", message.RoleAssistant, message.TypeToolCall, "write_file", `{"path":"b"}`),
		rec("c3", "c2", message.RoleAssistant, message.TypeToolCall, "write_file", `{"path":"c"}`),
		rec("r4", "c1", message.RoleTool, message.TypeToolResult, "read_file", `"text"`),
		deferred, after,
	}
}

// A transcript that stopped at a deferred call ends with the turn held:
// the calls that wait run before anything is sent, the one that ran does
// not run again.
func TestResumeHoldsADeferredTurn(t *testing.T) {
	t.Parallel()
	s := NewSession(SessionOptions{Store: &memStore{}})
	if err := s.Resume(context.Background(), deferredTranscript()); err != nil {
		t.Fatal(err)
	}
	if s.held == nil {
		t.Fatal("the deferred turn was not held")
	}
	var waiting []string
	for i, r := range s.held.results {
		if r == nil {
			waiting = append(waiting, s.held.calls[i].rec.ID)
		}
	}
	if strings.Join(waiting, ",") != "c2,c3" {
		t.Errorf("calls to run %v, want c2 and c3 (c1 ran)", waiting)
	}
	if last := s.history[len(s.history)-1]; last.Role != message.RoleAssistant {
		t.Errorf("the history ends with %s: the deferred results would be sent", last.Role)
	}
	if !AwaitsModel(deferredTranscript()) {
		t.Error("a held turn needs no new prompt to go on")
	}
}

// Once the held calls ran, their results answer them: a later resume
// sends those, not the deferred ones.
func TestResumeAfterHeldCallsRan(t *testing.T) {
	t.Parallel()
	recs := deferredTranscript()
	done := func(id, parent, content string) *message.Record {
		return &message.Record{ID: id, SessionID: "s", ParentID: parent, Role: message.RoleTool, Type: message.TypeToolResult,
			Status: message.StatusResponded, Name: "write_file", CallID: parent, Content: json.RawMessage(content)}
	}
	recs = append(recs, done("r7", "c2", `"wrote b"`), done("r8", "c3", `"wrote c"`),
		&message.Record{ID: "r9", SessionID: "s", ParentID: "r8", Role: message.RoleAssistant, Type: message.TypeText, Status: message.StatusResponded, Content: json.RawMessage(`"done"`)})
	s := NewSession(SessionOptions{Store: &memStore{}})
	if err := s.Resume(context.Background(), recs); err != nil {
		t.Fatal(err)
	}
	if s.held != nil {
		t.Fatal("a turn whose calls ran is held again")
	}
	var got []string
	for _, m := range s.history {
		for _, p := range m.Parts {
			if p.ToolResult != nil {
				got = append(got, string(p.ToolResult.Content))
			}
		}
	}
	if want := `"text","wrote b","wrote c"`; strings.Join(got, ",") != want {
		t.Errorf("results sent %s, want %s", strings.Join(got, ","), want)
	}
}

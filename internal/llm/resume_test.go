package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/message"
)

// memStore keeps records in memory.
type memStore struct {
	mu   sync.Mutex
	recs []*message.Record
}

func (m *memStore) Append(_ context.Context, recs ...*message.Record) error {
	m.mu.Lock()
	m.recs = append(m.recs, recs...)
	m.mu.Unlock()
	return nil
}

// transcriptFrom turns fuzz bytes into a transcript: every byte is one
// record of some kind, in any order a crash, a kill, a hand edit or a bug
// could leave.
func transcriptFrom(data []byte) []*message.Record {
	var recs []*message.Record
	var calls []*message.Record
	last := ""
	add := func(rec *message.Record) {
		rec.ID = fmt.Sprintf("r%d", len(recs))
		rec.SessionID = "s"
		if rec.ParentID == "" {
			rec.ParentID = last
		}
		rec.Status = message.StatusResponded
		recs = append(recs, rec)
		last = rec.ID
	}
	for i, b := range data {
		pick := func() *message.Record {
			if len(calls) == 0 {
				return nil
			}
			return calls[int(b>>3)%len(calls)]
		}
		switch b % 8 {
		case 0:
			add(&message.Record{Role: message.RoleUser, Type: message.TypeText, Content: json.RawMessage(`"hi"`)})
		case 1:
			text := `"ok"`
			if b&0x80 != 0 {
				text = `"\n\n"` // whitespace alone, as Claude sends it at times
			}
			add(&message.Record{Role: message.RoleAssistant, Type: message.TypeText, Content: json.RawMessage(text)})
		case 2, 3:
			rec := &message.Record{Role: message.RoleAssistant, Type: message.TypeToolCall, Name: "t",
				CallID: fmt.Sprintf("c%d", i), Content: json.RawMessage(`{"x":1}`)}
			switch {
			case b&0x40 != 0:
				rec.CallID = "" // a call kesoku knows only by its record
			case b&0x80 != 0:
				rec.CallID = fmt.Sprintf("c.%d", b&0x3) // out of pattern, and shared
			}
			add(rec)
			calls = append(calls, rec)
		case 4, 5:
			if c := pick(); c != nil {
				add(&message.Record{Role: message.RoleTool, Type: message.TypeToolResult, Name: c.Name,
					CallID: c.CallID, ParentID: c.ID, Content: json.RawMessage(`1`)})
			}
		case 6:
			add(&message.Record{Role: message.RoleTool, Type: message.TypeToolResult, Name: "t",
				CallID: "nowhere", ParentID: "no-such-call", Content: json.RawMessage(`1`)})
		case 7:
			// Records of a kind the loop does not write: skipped.
			add(&message.Record{Role: message.RoleTool, Type: message.TypeText, Content: json.RawMessage(`"?"`)})
		}
	}
	return recs
}

// checkAnswered checks the invariant both providers hold a history to:
// every model turn with tool calls is followed by one user message with
// exactly one result per call, in the order of the calls, and results
// appear nowhere else.
func checkAnswered(t *testing.T, msgs []Message) {
	t.Helper()
	for i, m := range msgs {
		var calls []string
		for _, p := range m.Parts {
			if p.ToolResult != nil && (m.Role != message.RoleUser || i == 0 || !hasCalls(msgs[i-1])) {
				t.Fatalf("message %d: a result that answers no call turn", i)
			}
			if p.ToolCall != nil {
				calls = append(calls, p.ToolCall.ID)
			}
		}
		if len(calls) == 0 {
			continue
		}
		if i+1 >= len(msgs) {
			t.Fatalf("message %d: calls %v left unanswered at the end", i, calls)
		}
		next := msgs[i+1]
		if next.Role != message.RoleUser || len(next.Parts) != len(calls) {
			t.Fatalf("message %d: calls %v answered by %+v", i, calls, next)
		}
		for j, p := range next.Parts {
			if p.ToolResult == nil || p.ToolResult.CallID != calls[j] || p.ToolResult.CallID == "" {
				t.Fatalf("message %d: result %d is %+v, want the answer to %s", i, j, p, calls[j])
			}
		}
	}
}

// checkValid checks what Claude holds a history to beyond the answers:
// no text of whitespace alone, and call ids unique and in its pattern.
func checkValid(t *testing.T, msgs []Message) {
	t.Helper()
	seen := map[string]bool{}
	for i, m := range msgs {
		for _, p := range m.Parts {
			if p.ToolCall == nil && p.ToolResult == nil && p.Blob == nil && p.Text != "" && strings.TrimSpace(p.Text) == "" {
				t.Fatalf("message %d: whitespace text %q", i, p.Text)
			}
			if p.ToolCall == nil {
				continue
			}
			if id := p.ToolCall.ID; seen[id] || !validCallID(id) {
				t.Fatalf("message %d: call id %q is a duplicate or out of pattern", i, id)
			}
			seen[p.ToolCall.ID] = true
		}
	}
}

func TestCallIDs(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 70)
	var ids callIDs
	var got []string
	for _, id := range []string{"toolu_01", "call.1", "call_1", "call.1", "toolu_01", "", "a b", long, long} {
		got = append(got, ids.assign(id))
	}
	want := []string{"toolu_01", "call_1", "call_1_2", "call_1_3", "toolu_01_2", "call", "a_b", long[:38] + "_2", long[:38] + "_3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ids mismatch (-want +got):\n%s", diff)
	}
}

func hasCalls(m Message) bool {
	for _, p := range m.Parts {
		if p.ToolCall != nil {
			return true
		}
	}
	return false
}

func FuzzResume(f *testing.F) {
	for _, seed := range [][]byte{
		{0, 2, 2, 4, 12, 1},          // a turn with two calls, both answered
		{0, 2, 2, 4},                 // the second call's result lost
		{0, 2, 3, 0},                 // calls left unanswered, then a new prompt
		{0, 2, 6, 4, 4, 1},           // a stray result and a duplicate
		{0, 1, 2, 2, 7, 12, 4, 2, 1}, // text, calls, a record of another kind
		{0x42, 0x42, 0x44},           // calls known only by their records
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recs := transcriptFrom(data)
		if len(recs) == 0 {
			return
		}
		store := &memStore{}
		s := NewSession(SessionOptions{Store: store})
		if err := s.Resume(context.Background(), recs); err != nil {
			t.Fatal(err)
		}
		checkAnswered(t, s.History())
		checkValid(t, s.History())
		h := s.History()
		if got, want := AwaitsModel(recs), len(h) > 0 && h[len(h)-1].Role == message.RoleUser; got != want {
			t.Fatalf("AwaitsModel = %v, but the history ends with %+v", got, h[len(h)-1])
		}
		if s.ID() != "s" {
			t.Fatalf("session id %q, want the transcript's", s.ID())
		}
		for _, fix := range store.recs {
			if fix.Status != message.StatusAborted || fix.Error == nil || fix.Error.Kind != message.KindAborted || fix.ParentID == "" {
				t.Fatalf("appended record %+v is not an aborted result", fix)
			}
		}
		// Resumed again with what was appended, nothing more is needed.
		again := &memStore{}
		s2 := NewSession(SessionOptions{Store: again})
		if err := s2.Resume(context.Background(), append(recs, store.recs...)); err != nil {
			t.Fatal(err)
		}
		if len(again.recs) != 0 {
			t.Fatalf("a second resume appended %d records", len(again.recs))
		}
		checkAnswered(t, s2.History())
	})
}

func TestSessionIDOf(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		recs []*message.Record
		want string
	}{
		"none":          {nil, ""},
		"no id":         {[]*message.Record{{ID: "a"}}, ""},
		"first with id": {[]*message.Record{{ID: "a"}, {ID: "b", SessionID: "s1"}, {ID: "c", SessionID: "s2"}}, "s1"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := SessionIDOf(tt.recs); got != tt.want {
				t.Errorf("SessionIDOf = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFairShare(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		sizes  []int64
		budget int64
		want   int64
	}{
		{[]int64{10, 20, 30}, 100, 30},   // everything fits
		{[]int64{10, 100, 100}, 110, 50}, // the small one whole, the large ones alike
		{[]int64{100, 100}, 0, 0},
		{[]int64{5, 5, 1000}, 100, 90},
	} {
		if got := fairShare(tt.sizes, tt.budget); got != tt.want {
			t.Errorf("fairShare(%v, %d) = %d, want %d", tt.sizes, tt.budget, got, tt.want)
		}
	}
}

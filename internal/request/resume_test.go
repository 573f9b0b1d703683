package request

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/message"
)

func TestReadFinished(t *testing.T) {
	t.Parallel()
	recIn := func(session, parent string, typ message.Type, status message.Status) string {
		ms := int64(3)
		r := &message.Record{ID: "r-" + parent, SessionID: session, ParentID: parent, Role: message.RoleTool, Type: typ, Status: status,
			Name: "t", Content: json.RawMessage(`{"x": ["\"quoted\"", 1.5e3, null, true, {"deep": [[]]}]}`), CreatedAt: time.Now(), DurationMS: &ms}
		if status == message.StatusAborted {
			rec := *r
			rec.Content, rec.IsError = nil, true
			rec.Error = &message.ErrorInfo{Kind: message.KindAborted, Message: "interrupted \u2028 \\ \""}
			r = &rec
		}
		b, err := message.AppendRecord(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	rec := func(parent string, typ message.Type, status message.Status) string {
		return recIn("s", parent, typ, status)
	}
	tests := []struct {
		name    string
		data    string
		want    []string
		session string
		wantErr string
	}{
		{"finished, aborted and other records", rec("a", message.TypeToolResult, message.StatusResponded) +
			rec("b", message.TypeToolResult, message.StatusAborted) +
			recIn("other", "c", message.TypeToolCall, message.StatusResponded) +
			"\n" + rec("d", message.TypeToolResult, message.StatusResponded), []string{"a", "d"}, "s", ""},
		{"a torn last line", rec("a", message.TypeToolResult, message.StatusResponded) + `{"id":"x","parent_id":"e","ty`, []string{"a"}, "s", ""},
		{"a bad line in the middle", rec("a", message.TypeToolResult, message.StatusResponded) + "{oops\n" + rec("d", message.TypeToolResult, message.StatusResponded), nil, "", "out.jsonl:2: not a record"},
		{"a long record", strings.Replace(rec("a", message.TypeToolResult, message.StatusResponded), `"x"`, `"`+strings.Repeat("x", 200<<10)+`"`, 1), []string{"a"}, "s", ""},
		{"sessions that differ", rec("a", message.TypeToolResult, message.StatusResponded) + recIn("t", "b", message.TypeToolResult, message.StatusAborted),
			[]string{"a"}, "", ""},
		{"no records", "", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "out.jsonl")
			if err := os.WriteFile(path, []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			set, session, err := ReadFinished(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, id := range []string{"a", "b", "c", "d", "e"} {
				if set.Has(id) {
					got = append(got, id)
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("finished ids mismatch (-want +got):\n%s", diff)
			}
			if session != tt.session {
				t.Errorf("session = %q, want %q", session, tt.session)
			}
		})
	}
	if set, session, err := ReadFinished(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || set.Len() != 0 || session != "" {
		t.Errorf("a file that does not exist: %v, %d ids, session %q", err, set.Len(), session)
	}
}

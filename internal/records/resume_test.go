package records

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
		b, err := AppendRecord(nil, r)
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
			fin, err := readFinishedFile(path)
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
				if fin.Has(id) {
					got = append(got, id)
				}
			}
			slices.Sort(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("finished ids mismatch (-want +got):\n%s", diff)
			}
			if fin.Session != tt.session {
				t.Errorf("session = %q, want %q", fin.Session, tt.session)
			}
		})
	}
	if fin, err := readFinishedFile(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || fin.Len() != 0 || fin.Session != "" {
		t.Errorf("a file that does not exist: %v, %+v", err, fin)
	}
}

// TestFinishedCheck pins what --resume does with a request whose id has a
// finished record: skip it only when the record answered this request.
func TestFinishedCheck(t *testing.T) {
	t.Parallel()
	args := map[string]any{"a": int64(1), "b": []any{"x", 2.5, nil, true, map[string]any{"k": "v"}}}
	same := map[string]any{"b": []any{"x", 2.5, nil, true, map[string]any{"k": "v"}}, "a": 1.0}
	head := func(id, name, hash string, status message.Status, isErr bool, pos int64) Head {
		return Head{ParentID: id, Name: name, ArgsHash: hash, Type: message.TypeToolResult, Status: status, IsError: isErr, Position: pos}
	}
	// Each case asks a Finished of its own: Check notes what the run did
	// with the id, and an id is asked once.
	newFinished := func() *Finished {
		fin := NewFinished()
		fin.Add(head("ok", "t", ArgsHash(args), message.StatusResponded, false, 1))
		fin.Add(head("failed", "t", ArgsHash(args), message.StatusResponded, true, 2))
		fin.Add(head("aborted", "t", ArgsHash(args), message.StatusAborted, true, 3))
		fin.Add(head("old", "t", "", message.StatusResponded, false, 0))
		fin.Add(head("later", "t", ArgsHash(args), message.StatusResponded, true, 5))
		fin.Add(head("later", "t", ArgsHash(args), message.StatusResponded, false, 5))
		fin.Add(Head{ParentID: "call", Name: "t", Type: message.TypeToolCall, Status: message.StatusResponded})
		// An id given twice: the second request's record (a duplicate's
		// refusal) answered another request than the id's first.
		fin.Add(head("twice", "t", ArgsHash(args), message.StatusResponded, false, 7))
		fin.Add(head("twice", "t", ArgsHash(same), message.StatusResponded, true, 8))
		fin.Add(head("twiceAborted", "t", ArgsHash(args), message.StatusAborted, true, 9))
		fin.Add(head("twiceAborted", "t", ArgsHash(args), message.StatusResponded, true, 10))
		// Written before records had positions: the last finished counts.
		fin.Add(head("legacy", "t", ArgsHash(args), message.StatusResponded, false, 0))
		fin.Add(head("legacy", "t", ArgsHash(args), message.StatusResponded, true, 0))
		return fin
	}
	tests := []struct {
		id, name string
		args     map[string]any
		want     Resumption
	}{
		{"ok", "t", args, Succeeded},
		{"ok", "t", same, Succeeded},
		{"ok", "other", args, Changed},
		{"ok", "t", map[string]any{"a": int64(2)}, Changed},
		{"ok", "t", nil, Changed},
		{"failed", "t", args, Failed},
		{"failed", "t", same, Failed},
		{"failed", "u", args, Changed},
		{"aborted", "t", args, NotFinished},
		{"none", "t", args, Unknown},
		{"call", "t", args, Unknown},
		// A record written before records had args_hash: its name decides.
		{"old", "t", map[string]any{"z": "anything"}, Succeeded},
		{"old", "other", args, Changed},
		// The last finished record of an id's request counts.
		{"later", "t", args, Succeeded},
		{"twice", "t", args, Succeeded},
		{"twiceAborted", "t", args, NotFinished},
		{"legacy", "t", args, Failed},
	}
	for _, tt := range tests {
		fin := newFinished()
		got := fin.Check(tt.id, tt.name, ArgsHash(tt.args), 1)
		if got != tt.want {
			t.Errorf("Check(%s, %s, %v) = %d, want %d", tt.id, tt.name, tt.args, got, tt.want)
		}
	}
	if fin := newFinished(); fin.Len() != 6 || !fin.Has("twice") || fin.Has("aborted") || fin.Has("twiceAborted") {
		t.Errorf("Len = %d; Has(twice) %v, Has(aborted) %v, Has(twiceAborted) %v; want 6, true, false, false",
			fin.Len(), fin.Has("twice"), fin.Has("aborted"), fin.Has("twiceAborted"))
	}
	// An id asked twice: the second request of it is a duplicate, and so
	// is one after another shard's request of it.
	fin := newFinished()
	if got := []Resumption{fin.Check("ok", "t", ArgsHash(args), 1), fin.Check("ok", "t", ArgsHash(args), 2)}; got[0] != Succeeded || got[1] != Again {
		t.Errorf("an id checked twice: %v, want Succeeded then Again", got)
	}
	fin.Pass("failed")
	if got := fin.Check("failed", "t", ArgsHash(args), 3); got != Again {
		t.Errorf("an id after another shard's request of it: %v, want Again", got)
	}
	var none *Finished
	if none.Check("ok", "t", "", 1) != Unknown {
		t.Error("no Finished (no --resume) finished a request")
	}
}

// TestArgsHash pins the canonical form the hash is taken over: the same
// arguments however a file writes them, different ones apart.
func TestArgsHash(t *testing.T) {
	t.Parallel()
	if got := ArgsHash(nil); got != ArgsHash(map[string]any{}) || len(got) != 16 {
		t.Errorf("ArgsHash(nil) = %q; want 16 hex digits, as for no arguments", got)
	}
	alike := [][2]map[string]any{
		{{"a": int64(1)}, {"a": 1.0}},
		{{"a": int64(1)}, {"a": uint64(1)}},
		{{"a": int64(1), "b": "x"}, {"b": "x", "a": int64(1)}},
	}
	for _, p := range alike {
		if ArgsHash(p[0]) != ArgsHash(p[1]) {
			t.Errorf("%v and %v hash apart", p[0], p[1])
		}
	}
	apart := [][2]map[string]any{
		{{"a": int64(1)}, {"a": "1"}},
		{{"a": 1.5}, {"a": int64(1)}},
		{{"a": []any{"b", "c"}}, {"a": []any{"bc"}}},
		{{"ab": "c"}, {"a": "bc"}},
		{{"a": nil}, {}},
		{{"a": true}, {"a": false}},
		{{"a": map[string]any{}}, {"a": []any{}}},
	}
	for _, p := range apart {
		if ArgsHash(p[0]) == ArgsHash(p[1]) {
			t.Errorf("%v and %v hash alike", p[0], p[1])
		}
	}
}

// TestReadFinishedSkipsByteOrderMarks reads a records file that an editor
// saved with a byte order mark, and one made by joining two such files:
// the marks are no part of the records.
func TestReadFinishedSkipsByteOrderMarks(t *testing.T) {
	t.Parallel()
	line := func(parent string) string {
		b, err := AppendRecord(nil, &message.Record{ID: "r" + parent, SessionID: "s", ParentID: parent, Role: message.RoleTool,
			Type: message.TypeToolResult, Status: message.StatusResponded, Name: "t", CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	path := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(path, []byte("\uFEFF"+line("a")+"\uFEFF"+line("b")), 0o644); err != nil {
		t.Fatal(err)
	}
	fin, err := readFinishedFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fin.Has("a") || !fin.Has("b") || fin.Len() != 2 {
		t.Errorf("finished %d ids (a: %v, b: %v), want a and b", fin.Len(), fin.Has("a"), fin.Has("b"))
	}
}

// TestReadFinishedOfADirectory says what is wrong once.
func TestReadFinishedOfADirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := readFinishedFile(dir)
	if err == nil || err.Error() != dir+" is a directory" {
		t.Errorf("error = %v, want %q", err, dir+" is a directory")
	}
}

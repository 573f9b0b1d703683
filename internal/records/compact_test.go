package records

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/message"
)

// line is a record line of request id at position pos (0: none, as
// records were written before positions), with what as its content, or
// the status aborted for what "aborted" or an error for "error".
func line(id string, pos int64, what string) string {
	r := &message.Record{ID: "r-" + id + "-" + what, SessionID: "s", ParentID: id, Role: message.RoleTool, Type: message.TypeToolResult,
		Status: message.StatusResponded, Name: "t", Position: pos, CreatedAt: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)}
	switch what {
	case "aborted":
		r.Status, r.IsError, r.Error = message.StatusAborted, true, &message.ErrorInfo{Kind: message.KindAborted, Message: "interrupted"}
	case "error":
		r.IsError, r.Error = true, &message.ErrorInfo{Kind: message.KindToolError, Message: "no"}
	default:
		r.Content = []byte(fmt.Sprintf("%q", what))
	}
	b, err := AppendRecord(nil, r)
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// step is what the resumed run does with one request: its id, its
// position in the run, and the record it writes ("" for none: skipped).
type step struct {
	id   string
	pos  int64
	what string
}

// TestCompact resumes a file as a run would (Check, then the new records)
// and compacts it: one record per request, in request order.
func TestCompact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		old   string
		run   []step
		want  []string // id@position=what of every record, in order
		c     Compaction
		check func(*testing.T, *Finished)
	}{
		{
			name: "aborted records replaced",
			old:  line("a", 1, "1") + line("b", 2, "error") + line("c", 3, "aborted") + line("d", 4, "aborted"),
			run:  []step{{"a", 1, ""}, {"b", 2, ""}, {"c", 3, "3"}, {"d", 4, "4"}},
			want: []string{"a@1=1", "b@2=error", "c@3=3", "d@4=4"},
			c:    Compaction{Replaced: 2, Rewritten: true},
		},
		{
			name: "resumed twice without a compaction between",
			old:  line("a", 1, "1") + line("b", 2, "aborted") + line("c", 3, "aborted") + line("b", 2, "2") + line("c", 3, "aborted"),
			run:  []step{{"a", 1, ""}, {"b", 2, ""}, {"c", 3, "3"}},
			want: []string{"a@1=1", "b@2=2", "c@3=3"},
			c:    Compaction{Replaced: 3, Rewritten: true},
		},
		{
			name: "the requests reordered: each record goes to its request's place",
			old:  line("a", 1, "1") + line("b", 2, "2") + line("c", 3, "aborted"),
			run:  []step{{"c", 1, "3"}, {"b", 2, ""}, {"a", 3, ""}},
			want: []string{"c@1=3", "b@2=2", "a@3=1"},
			c:    Compaction{Replaced: 1, Rewritten: true},
		},
		{
			name: "records written before positions",
			old:  line("a", 0, "1") + line("b", 0, "aborted") + line("a", 0, "error"),
			run:  []step{{"a", 1, ""}, {"b", 2, "2"}},
			want: []string{"a@1=error", "b@2=2"},
			c:    Compaction{Replaced: 2, Rewritten: true},
		},
		{
			name: "an id given twice",
			old:  line("x", 1, "1") + line("x", 2, "error") + line("y", 3, "aborted"),
			run:  []step{{"x", 1, ""}, {"x", 2, "error"}, {"y", 3, "3"}},
			want: []string{"x@1=1", "x@2=error", "y@3=3"},
			c:    Compaction{Replaced: 2, Rewritten: true},
		},
		{
			name: "records of requests no longer in the run",
			old:  line("a", 1, "1") + line("gone", 2, "2") + line("c", 3, "aborted"),
			run:  []step{{"a", 1, ""}, {"c", 2, "3"}},
			want: []string{"a@1=1", "c@2=3"},
			c:    Compaction{Replaced: 1, Dropped: 1, Rewritten: true},
		},
		{
			name: "nothing to do",
			old:  line("a", 1, "1") + line("b", 2, "error"),
			run:  []step{{"a", 1, ""}, {"b", 2, ""}},
			want: []string{"a@1=1", "b@2=error"},
			c:    Compaction{},
		},
		{
			name: "only new records after the old, in order",
			old:  line("a", 1, "1"),
			run:  []step{{"a", 1, ""}, {"b", 2, "2"}},
			want: []string{"a@1=1", "b@2=2"},
			c:    Compaction{},
		},
		{
			name: "a shard's share",
			old:  line("a", 1, "1") + line("c", 3, "aborted"),
			run:  []step{{"a", 1, ""}, {"c", 3, "3"}, {"e", 5, "5"}},
			want: []string{"a@1=1", "c@3=3", "e@5=5"},
			c:    Compaction{Replaced: 1, Rewritten: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, "out.jsonl")
			if err := os.WriteFile(path, []byte(tt.old), 0o640); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(path)
			res, err := Resume(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Close()
			for _, s := range tt.run {
				res.Finished.Check(s.id, "t", "", s.pos)
				if s.what != "" {
					if err := res.Write(parse(t, line(s.id, s.pos, s.what))); err != nil {
						t.Fatal(err)
					}
				}
			}
			c, err := res.Compact(nil)
			if err != nil {
				t.Fatal(err)
			}
			if c != tt.c {
				t.Errorf("compaction %+v, want %+v", c, tt.c)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			err = Read(strings.NewReader(string(data)), path, func(r *message.Record) error {
				what := strings.Trim(string(r.Content), `"`)
				if r.Error != nil {
					what = string(r.Error.Kind)
					if r.Error.Kind == message.KindToolError {
						what = "error"
					}
				}
				got = append(got, fmt.Sprintf("%s@%d=%s", r.ParentID, r.Position, what))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if !tt.c.Rewritten && len(tt.run) > 0 && tt.run[len(tt.run)-1].what == "" && string(data) != string(before) {
				t.Errorf("nothing to compact, but the file changed:\n%s", data)
			}
			if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o640 {
				t.Errorf("the file's mode %v (%v), want it kept", st.Mode(), err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
				t.Errorf("files left beside: %v", left)
			}
			// The file is free once compacted.
			w, err := Append(path)
			if err != nil {
				t.Fatalf("after Compact: %v", err)
			}
			w.Close()
		})
	}
}

func parse(t *testing.T, text string) *message.Record {
	t.Helper()
	var rec *message.Record
	if err := Read(strings.NewReader(text), "line", func(r *message.Record) error { rec = r; return nil }); err != nil {
		t.Fatal(err)
	}
	return rec
}

// TestCompactLeavesAToolsRecords: a file that holds records a tool wrote
// through its Store (no request's) is left as it is, the resumed run's
// records after the earlier's, rather than lose them.
func TestCompactLeavesAToolsRecords(t *testing.T) {
	t.Parallel()
	note := `{"id":"n","session_id":"s","parent_id":"a","role":"tool","type":"text","status":"responded","content":"a note","created_at":"2026-11-30T00:00:00Z"}` + "\n"
	for name, tc := range map[string]struct {
		old   string
		write func(*Resumed)
	}{
		"in the earlier run's": {old: line("a", 1, "1") + note + line("b", 2, "aborted")},
		"in the resumed run's": {old: line("a", 1, "1") + line("b", 2, "aborted"), write: func(res *Resumed) {
			res.Append(context.Background(), parse(t, note))
		}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "out.jsonl")
			if err := os.WriteFile(path, []byte(tc.old), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := Resume(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			res.Finished.Check("a", "t", "", 1)
			res.Finished.Check("b", "t", "", 2)
			if tc.write != nil {
				tc.write(res)
			}
			res.Write(parse(t, line("b", 2, "2")))
			c, err := res.Compact(nil)
			if err != nil || c.Foreign != 1 || c.Rewritten {
				t.Fatalf("Compact = %+v, %v; want the file left, saying why", c, err)
			}
			data, _ := os.ReadFile(path)
			if !strings.Contains(string(data), `"a note"`) || !strings.HasSuffix(string(data), line("b", 2, "2")) {
				t.Errorf("file %s", data)
			}
		})
	}
}

// TestCompactHoldsTheLock: while a compaction writes the new file, another
// writer is refused the file, under its old name and its new.
func TestCompactHoldsTheLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.jsonl")
	if err := os.WriteFile(path, []byte(line("a", 1, "aborted")), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Resume(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Finished.Check("a", "t", "", 1)
	res.Write(parse(t, line("a", 1, "1")))
	if w, err := Append(path); err == nil {
		w.Close()
		t.Fatal("a second writer while the resumed run holds the file")
	}
	if _, err := res.Compact(nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != line("a", 1, "1") {
		t.Errorf("compacted %q", data)
	}
}

// TestCompactEndsAShardAnew: a shard resumed once more (its aborted
// records run again) ends with one shard_end line, the new one, after its
// records; the earlier run's is taken away.
func TestCompactEndsAShardAnew(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "part-1.jsonl")
	oldEnd := end(1, 2, 4)
	if err := os.WriteFile(path, []byte(line("a", 1, "1")+line("c", 3, "aborted")+oldEnd+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Resume(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Finished.Check("a", "t", "", 1)
	res.Finished.Check("c", "t", "", 3)
	if err := res.Write(parse(t, line("c", 3, "3"))); err != nil {
		t.Fatal(err)
	}
	e := ShardEndRecord("s", ShardEnd{Shard: 1, Shards: 2, Requests: 4})
	if _, err := res.Compact(e); err != nil {
		t.Fatal(err)
	}
	newEnd, _ := AppendRecord(nil, e)
	data, _ := os.ReadFile(path)
	if want := line("a", 1, "1") + line("c", 3, "3") + string(newEnd) + "\n"; string(data) != want {
		t.Errorf("the file holds\n%s\nwant\n%s", data, want)
	}
}

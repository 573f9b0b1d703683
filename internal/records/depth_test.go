package records

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kesoku/kesoku/message"
)

// nested is a value nested n levels deep: [[[...]]].
func nested(n int) any {
	v := any([]any{})
	for range n - 1 {
		v = []any{v}
	}
	return v
}

// TestPackRefusesContentTooDeep: a result nested deeper than a record
// can hold is an error record of its own request (the run goes on), and
// one as deep as it can hold is written and read back by every reader of
// records: Head and Record (diff, --resume, compaction), Merge.
func TestPackRefusesContentTooDeep(t *testing.T) {
	t.Parallel()
	p := &Packer{SessionID: "s"}
	call := Call{ID: "call_1", Name: "deep"}

	rec := p.Pack(call, Outcome{Value: nested(MaxContentDepth + 1)}, time.Millisecond)
	if !rec.IsError || rec.Error == nil || rec.Error.Kind != message.KindToolError || !strings.Contains(rec.Error.Message, "9,999 levels") {
		t.Fatalf("a result too deep: is_error %v, error %+v", rec.IsError, rec.Error)
	}
	if len(rec.Content) > 0 {
		t.Errorf("the error record holds the content (%d bytes)", len(rec.Content))
	}

	rec = p.Pack(call, Outcome{Value: nested(MaxContentDepth)}, time.Millisecond)
	if rec.IsError {
		t.Fatalf("a result as deep as a record holds: %+v", rec.Error)
	}
	rec.ID, rec.Position = "r1", 1
	line, err := AppendRecord(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	rd := NewReader(bytes.NewReader(append(line, '\n')), "out.jsonl")
	if !rd.Scan() {
		t.Fatal(rd.Err())
	}
	if _, err := rd.Head(); err != nil {
		t.Errorf("Head of the record written: %v", err)
	}
	if _, err := rd.Record(); err != nil {
		t.Errorf("Record of the record written: %v", err)
	}
	part := filepath.Join(t.TempDir(), "part-1.jsonl")
	if err := os.WriteFile(part, []byte(string(line)+"\n"+end(1, 1, 1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Merge([]string{part}, &out); err != nil {
		t.Errorf("Merge of the record written: %v", err)
	}
	if _, err := readFinishedFile(part); err != nil {
		t.Errorf("--resume of the record written: %v", err)
	}
}

// TestAppendRecordRefusesContentTooDeep: a record whose content is
// deeper than the readers of records read is never written (as a line
// that --resume, merge and diff would then refuse).
func TestAppendRecordRefusesContentTooDeep(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", MaxContentDepth+1) + strings.Repeat("]", MaxContentDepth+1)
	rec := &message.Record{ID: "r", SessionID: "s", ParentID: "p", Role: message.RoleTool, Type: message.TypeToolResult, Content: []byte(deep)}
	_, err := AppendRecord(nil, rec)
	if !errors.As(err, new(*DepthError)) {
		t.Errorf("AppendRecord of content %d levels deep: %v", MaxContentDepth+1, err)
	}
}

// TestMaxDepthIsWhatTheReadersRead: a line MaxDepth levels deep is read
// by the readers of records, one level deeper is not. Should the JSON
// libraries under them change their limit, this says so.
func TestMaxDepthIsWhatTheReadersRead(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		depth int
		ok    bool
	}{{MaxDepth, true}, {MaxDepth + 1, false}} {
		// {"content":[[...]]}: the record's object and depth-1 arrays.
		text := `{"type":"tool_result","content":` + strings.Repeat("[", tt.depth-1) + strings.Repeat("]", tt.depth-1) + "}\n"
		rd := NewReader(strings.NewReader(text), "f")
		rd.Scan()
		_, herr := rd.Head()
		_, rerr := rd.Record()
		if (herr == nil) != tt.ok || (rerr == nil) != tt.ok {
			t.Errorf("a line %d levels deep: Head %v, Record %v; want read: %v", tt.depth, herr, rerr, tt.ok)
		}
	}
}

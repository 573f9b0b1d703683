package records

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kesoku/kesoku/message"
)

func TestApprove(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.jsonl")
	var p Packer
	ok := p.Pack(Call{ID: "a", Name: "sum"}, Outcome{Value: 3}, time.Millisecond)
	deferred := p.Deferred(Call{ID: "b", Name: "write_file"}, `ask rule "write_file" (--ask); --on-ask defer`, "waits")
	deferred.ArgsHash = "0123456789abcdef"
	var data []byte
	for i, rec := range []*message.Record{ok, deferred} {
		rec.ID, rec.Position = message.NewID(), int64(i+1)
		var err error
		if data, err = AppendRecord(data, rec); err != nil {
			t.Fatal(err)
		}
		data = append(data, '\n')
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}

	// An id that is no deferred call answers nothing.
	_, err := Approve(path, []string{"b", "a"}, true)
	var nd *NoDeferredError
	if !errors.As(err, &nd) || len(nd.IDs) != 1 || nd.IDs[0] != "a" || len(nd.Deferred) != 1 || nd.Deferred[0].ID != "b" {
		t.Fatalf("approving a finished call: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != string(data) {
		t.Fatalf("the file changed on a refusal:\n%s", got)
	}

	done, err := Approve(path, []string{"b"}, true)
	if err != nil || len(done) != 1 || done[0].Approval != message.ApprovalApproved {
		t.Fatalf("Approve: %v, %v", done, err)
	}
	r, err := Resume(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	fin := r.Finished
	if approved, answered := fin.Approval("b", "write_file", "0123456789abcdef"); !approved || !answered {
		t.Errorf("Approval(b) = %v, %v: want approved", approved, answered)
	}
	if _, answered := fin.Approval("b", "write_file", "fedcba9876543210"); answered {
		t.Error("an approval answered a call with other arguments")
	}
	if _, answered := fin.Approval("b", "read_file", "0123456789abcdef"); answered {
		t.Error("an approval answered a call of another tool")
	}
	// The deferred call runs again; the finished one is skipped.
	if got := fin.Check("b", "write_file", "0123456789abcdef", 2); got != NotFinished {
		t.Errorf("Check(b) = %v, want NotFinished", got)
	}
}

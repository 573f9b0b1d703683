package records

import (
	"fmt"
	"github.com/google/go-cmp/cmp/cmpopts"
	"testing"
)

func TestIDSet(t *testing.T) {
	t.Parallel()
	s := NewIDSet()
	if !s.Add("a") || s.Add("a") || !s.Has("a") || s.Has("b") || s.Len() != 1 {
		t.Errorf("IDSet does not behave as a set")
	}
	var none *IDSet
	if none.Has("a") {
		t.Errorf("a nil IDSet has an id")
	}
}

var _ = cmpopts.EquateEmpty

func TestIDSetGrows(t *testing.T) {
	t.Parallel()
	s := NewIDSet()
	const n = 200_000
	for i := range n {
		if !s.Add(fmt.Sprint("call_", i)) {
			t.Fatalf("id %d taken for one already in the set", i)
		}
	}
	for i := range n {
		if s.Add(fmt.Sprint("call_", i)) || !s.Has(fmt.Sprint("call_", i)) {
			t.Fatalf("id %d lost after the set grew", i)
		}
	}
	if s.Has("call_x") || s.Len() != n {
		t.Errorf("Len = %d, want %d", s.Len(), n)
	}
}

func BenchmarkIDSetAdd(b *testing.B) {
	ids := make([]string, 1<<20)
	for i := range ids {
		ids[i] = fmt.Sprint("call_", i)
	}
	b.ReportAllocs()
	s := NewIDSet()
	for i := 0; b.Loop(); i++ {
		if i&(1<<20-1) == 0 {
			s = NewIDSet()
		}
		s.Add(ids[i&(1<<20-1)])
	}
}

// TestRunFailFastRunsWhatCameBefore checks that --fail-fast aborts only
// what comes after the failure: earlier calls still in flight finish, later
// ones are cancelled.

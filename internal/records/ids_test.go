package records

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp/cmpopts"
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

// TestSeenIsExact adds ids of every form the set keeps apart — numbered
// (dense, scattered, past the bitmap, spelled with leading zeros),
// other, long, past the prefixes it numbers — in random order, twice
// each, and checks each against a map.
func TestSeenIsExact(t *testing.T) {
	t.Parallel()
	var ids []string
	for i := range 5000 {
		ids = append(ids, fmt.Sprint("call_", i), fmt.Sprint("call_0", i), fmt.Sprint("req-", i*977))
	}
	for i := range 300 {
		ids = append(ids, fmt.Sprint("p", i, "_", i), fmt.Sprint("call_", uint64(i)*1_000_000_007))
	}
	ids = append(ids, "", "0", "00", "7", "call_", "call_999999999999999999", "call_9999999999999999999",
		strings.Repeat("x", 70_000), strings.Repeat("x", 70_001), strings.Repeat("ab", 20_000)+"1")
	for i := range 2000 {
		ids = append(ids, fmt.Sprintf("%08x-uuid-%d", i*7919, i%7))
	}
	order := append(slices.Clone(ids), ids...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	s := NewSeen()
	want := map[string]bool{}
	for _, id := range order {
		if got := s.Add(id); got != !want[id] {
			t.Fatalf("Add(%.40q) = %v, want %v", id, got, !want[id])
		}
		want[id] = true
	}
	if s.Len() != len(want) {
		t.Errorf("Len = %d, want %d", s.Len(), len(want))
	}
}

// TestSeenHashCollision: two ids of one hash are two ids.
func TestSeenHashCollision(t *testing.T) {
	t.Parallel()
	s := NewSeen()
	s.others = newIDs(2)
	for _, c := range []struct {
		id   string
		want bool
	}{{"a", true}, {"b", true}, {"a", false}, {"b", false}, {"c", true}, {"c", false}} {
		if got := s.addHashed(c.id, 42); got != c.want {
			t.Errorf("add %q = %v, want %v", c.id, got, c.want)
		}
	}
}

// TestSeenStaysSmall: a million ids numbered as a run numbers them take
// no more than a bit each, and as many scattered numbers no more than
// the table of other ids would.
func TestSeenStaysSmall(t *testing.T) {
	s := NewSeen()
	for i := 1; i <= 1_000_000; i++ {
		s.Add("call_" + strconv.Itoa(i))
	}
	if ns := s.numbers[0]; len(ns.bits) > 1_000_000/64+denseFloor+1 || ns.nsparse != 0 {
		t.Errorf("a million dense numbers: %d words of bits, %d numbers apart", len(ns.bits), ns.nsparse)
	}
}

func BenchmarkSeenAdd(b *testing.B) {
	for _, form := range []string{"call_%d", "id-%x-%[1]d"} {
		b.Run(form, func(b *testing.B) {
			ids := make([]string, 1<<20)
			for i := range ids {
				ids[i] = fmt.Sprintf(form, i)
			}
			b.ReportAllocs()
			s := NewSeen()
			for i := 0; b.Loop(); i++ {
				if i&(1<<20-1) == 0 {
					s = NewSeen()
				}
				s.Add(ids[i&(1<<20-1)])
			}
		})
	}
}

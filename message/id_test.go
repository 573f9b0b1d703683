package message

import (
	"regexp"
	"slices"
	"testing"
)

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestIDsAreOrderedUUIDv7(t *testing.T) {
	t.Parallel()
	g := newIDGenerator()
	prev := ""
	seen := map[string]bool{}
	for range 20000 {
		id := g.New()
		if !uuidV7.MatchString(id) {
			t.Fatalf("%q is not a UUIDv7", id)
		}
		if id <= prev || seen[id] {
			t.Fatalf("%q after %q: ids must increase", id, prev)
		}
		seen[id], prev = true, id
	}
}

// NewID draws from the process's one generator, so ids sort in the order
// they were made, even within one millisecond.
func TestNewIDSortsInOrderMade(t *testing.T) {
	t.Parallel()
	got := make([]string, 1000)
	for i := range got {
		got[i] = NewID()
	}
	if !slices.IsSorted(got) {
		t.Errorf("ids made in order do not sort in order")
	}
}

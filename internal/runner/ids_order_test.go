package runner

import (
	"slices"
	"testing"
)

// Ids from NewID and from a runner's records come from one generator, so
// they sort in the order they were made, even within one millisecond.
func TestIDsSortInOrderMade(t *testing.T) {
	t.Parallel()
	r := New(nil, Options{})
	var got []string
	for i := range 1000 {
		if i%2 == 0 {
			got = append(got, NewID())
		} else {
			got = append(got, r.ids.New())
		}
	}
	if !slices.IsSorted(got) {
		t.Errorf("ids made in order do not sort in order")
	}
}

package batch

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/records"
)

// TestStatusSummary counts what the provider says of each part, and the
// requests a submit cut short never sent.
func TestStatusSummary(t *testing.T) {
	t.Parallel()
	st := &State{Requests: 20, Parts: []Part{{First: 1, Last: 5}, {First: 6, Last: 9}, {First: 10, Last: 12}}}
	parts := []PartStatus{
		{Part: st.Parts[0], Batch: &llm.Batch{Ended: true, Counts: &llm.BatchCounts{Succeeded: 2, Errored: 1, Canceled: 1, Expired: 1}}},
		{Part: st.Parts[1], Batch: &llm.Batch{Ended: true}},
		{Part: st.Parts[2], Batch: &llm.Batch{}},
	}
	want := records.Summary{Command: records.CommandStatus, Total: 20, Parts: 3, Succeeded: 2, Failed: 3, Uncounted: 4, Pending: 3, Unsent: 8}
	if diff := cmp.Diff(want, StatusSummary(st, parts)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

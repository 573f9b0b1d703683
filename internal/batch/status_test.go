package batch

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
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
	want := StatusReport{Total: 20, Parts: 3, Succeeded: 2, Failed: 3, Uncounted: 4, Pending: 3, Unsent: 8}
	if diff := cmp.Diff(want, StatusSummary(st, parts)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// TestReportEscapes: what a provider said of a batch (its state, its ID,
// why it failed) reaches the terminal escaped: no colour, title or
// cleared screen of its making.
func TestReportEscapes(t *testing.T) {
	t.Parallel()
	st := &State{ID: "b\x1b]0;id\x07", File: "r.yaml", Model: "m", Requests: 2, Submitted: true, Parts: []Part{{First: 1, Last: 2}}}
	parts := []PartStatus{{Part: st.Parts[0], Number: 1, Batch: &llm.Batch{
		ID: "msgbatch_\x1b[2J", State: "ended\x1b[31m\a", Ended: true,
		Failure: &llm.BatchError{Reason: "gone\x1b[0m\r\nforged line"},
	}}}
	var b strings.Builder
	Report(&b, st, parts, time.Now())
	got := b.String()
	if strings.ContainsAny(got, "\x1b\a\r") || strings.Count(got, "\n") != 2 {
		t.Errorf("the provider's text reached the terminal raw:\n%q", got)
	}
	for _, want := range []string{`msgbatch_\x1b[2J`, `ended\x1b[31m\x07`, `gone\x1b[0m\r\nforged line`, `b\x1b]0;id\x07`} {
		if !strings.Contains(got, want) {
			t.Errorf("report %q does not show %q", got, want)
		}
	}
}

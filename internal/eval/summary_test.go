package eval

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A shard's runs hold some repeats of a case, not all: the summary counts
// the runs it has, and says no pass@K of repeats it did not see.
func TestSummarizeAShardsRuns(t *testing.T) {
	sum := Summarize([]Run{{Case: "a", Repeat: 2, Passed: true}, {Case: "b", Repeat: 2}})
	if sum.Repeat != 1 || sum.Cases != 2 {
		t.Errorf("summary %+v: want 2 cases of 1 run", sum)
	}
	if got, want := sum.Text(), "2 cases: 1 passed, 1 failed (b)"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	sum = Summarize([]Run{{Case: "a", Repeat: 1, Passed: true}, {Case: "a", Repeat: 2}, {Case: "a", Repeat: 3, Budget: true}})
	if sum.Repeat != 3 || sum.PassAt1 != 0.5 {
		t.Errorf("summary %+v: want 3 runs of a, pass@1 0.5", sum)
	}
}

// A case whose every run the budget cut is a case of the eval still: the
// summary counts it, and leaves it out of the pass rates, which it says
// nothing of.
func TestSummarizeCasesTheBudgetCut(t *testing.T) {
	sum := Summarize([]Run{{Case: "a", Repeat: 1, Passed: true}, {Case: "b", Repeat: 1, Budget: true}, {Case: "c", Repeat: 1, Budget: true}})
	if sum.Cases != 3 || sum.Budget != 2 || sum.PassAt1 != 1 || sum.PassHatK != 1 {
		t.Errorf("summary %+v: want 3 cases, 2 cut, pass@1 1 (of the one judged)", sum)
	}
	if got, want := sum.Text(), "3 cases: 1 passed, 0 failed, 2 cut by the budget"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	sum = Summarize([]Run{{Case: "a", Repeat: 1, Budget: true}})
	if sum.Cases != 1 || sum.PassAt1 != 0 {
		t.Errorf("summary %+v: want 1 case, no pass rate", sum)
	}
}

// Cases repeated unevenly (a case's own repeat, a shard's share) are
// counted by their runs: "× K runs" would say more runs than there were.
func TestSummaryTextUnevenRepeats(t *testing.T) {
	for _, tc := range []struct {
		runs []Run
		want string
	}{
		{[]Run{{Case: "a", Repeat: 1, Passed: true}, {Case: "a", Repeat: 2, Passed: true}, {Case: "b", Repeat: 1, Passed: true}, {Case: "b", Repeat: 2}},
			"2 cases × 2 runs: 3 passed, 1 failed (b); pass@1 0.75, pass@2 1.00, pass^2 0.50"},
		{[]Run{{Case: "a", Repeat: 1, Passed: true}, {Case: "a", Repeat: 2, Passed: true}, {Case: "b", Repeat: 1}},
			"2 cases, 3 runs: 2 passed, 1 failed (b); pass@1 0.50, pass@2 0.50, pass^2 0.50"},
		{[]Run{{Case: "a", Repeat: 1, Passed: true}},
			"1 case: 1 passed, 0 failed"},
	} {
		if got := Summarize(tc.runs).Text(); got != tc.want {
			t.Errorf("Text() = %q, want %q", got, tc.want)
		}
	}
}

// Each case with a failed run has its own pass rates; the others passed
// every run and are not listed.
func TestSummarizeRatesPerCase(t *testing.T) {
	sum := Summarize([]Run{
		{Case: "a", Repeat: 1, Passed: true}, {Case: "a", Repeat: 2, Passed: true}, {Case: "a", Repeat: 3, Passed: true}, {Case: "a", Repeat: 4, Passed: true},
		{Case: "flaky", Repeat: 1, Passed: true}, {Case: "flaky", Repeat: 2}, {Case: "flaky", Repeat: 3, Passed: true}, {Case: "flaky", Repeat: 4, Budget: true},
		{Case: "broken", Repeat: 1}, {Case: "broken", Repeat: 2}, {Case: "broken", Repeat: 3}, {Case: "broken", Repeat: 4},
	})
	want := []CaseRate{
		{Case: "flaky", Runs: 3, Passed: 2, PassAt1: 2.0 / 3, PassAtK: 1},
		{Case: "broken", Runs: 4},
	}
	if diff := cmp.Diff(want, sum.CaseRates); diff != "" {
		t.Errorf("case rates mismatch (-want +got):\n%s", diff)
	}
}

package eval

import (
	"fmt"
	"slices"
	"strings"
)

// Run is one run of a case, as its verdict says.
type Run struct {
	Case   string
	Repeat int
	// Passed says every check passed; Budget that the budget ran out
	// before the run could finish (it neither passed nor failed).
	Passed, Budget bool
}

// Summary is what an eval's runs add up to. With K runs of each case,
// PassAt1 is the chance that one run passes (each case's share of passed
// runs, averaged over the cases), PassAtK the share of cases that passed
// at least once, and PassHatK the share that passed every time. Runs the
// budget cut count in none of them, nor do cases whose every run it cut,
// which Cases counts all the same.
type Summary struct {
	Cases    int     `json:"cases"`
	Runs     int     `json:"runs"`
	Passed   int     `json:"passed"`
	Failed   int     `json:"failed"`
	Budget   int     `json:"budget"`
	Repeat   int     `json:"repeat"`
	PassAt1  float64 `json:"pass_at_1"`
	PassAtK  float64 `json:"pass_at_k"`
	PassHatK float64 `json:"pass_hat_k"`
	// FailedCases are the cases with a failed run, in case order, and
	// CaseRates their own pass rates; a case not among them passed every
	// run (its rates all 1). Both grow with the failures only.
	FailedCases []string   `json:"failed_cases,omitempty"`
	CaseRates   []CaseRate `json:"case_rates,omitempty"`
}

// CaseRate is one case's runs and pass rates: PassAt1 its share of passed
// runs, PassAtK 1 when a run passed, PassHatK 1 when every run did.
type CaseRate struct {
	Case     string  `json:"case"`
	Runs     int     `json:"runs"`
	Passed   int     `json:"passed"`
	PassAt1  float64 `json:"pass_at_1"`
	PassAtK  float64 `json:"pass_at_k"`
	PassHatK float64 `json:"pass_hat_k"`
}

// Summarize adds up runs, given in case order, each case's runs together.
func Summarize(runs []Run) Summary {
	var t Summarizer
	for _, r := range runs {
		t.Add(r)
	}
	return t.Summary()
}

// Summarizer adds up runs as they come, in case order, each case's runs
// together (as an eval writes them): it holds one case's counts at a
// time, and the ids of the cases that failed.
type Summarizer struct {
	s Summary
	// The case being counted: its runs (those the budget cut too), and
	// of the others, how many ran and passed.
	id                string
	all, runs, passed int
	started           bool
	passAt1           float64
	passAtK, passHatK int
	// judged counts the cases with a run the budget did not cut: the
	// pass rates are theirs.
	judged int
}

// Add counts r.
func (t *Summarizer) Add(r Run) {
	if !t.started || r.Case != t.id {
		t.end()
		t.id, t.started = r.Case, true
	}
	t.s.Runs++
	t.all++
	// Repeat is the most runs a case has here, not the highest repeat: a
	// shard may hold one run of a case repeated twice.
	t.s.Repeat = max(t.s.Repeat, t.all)
	switch {
	case r.Budget:
		t.s.Budget++
		return
	case r.Passed:
		t.s.Passed++
		t.passed++
	default:
		t.s.Failed++
	}
	t.runs++
}

// end counts the case whose runs are over.
func (t *Summarizer) end() {
	if t.all > 0 {
		t.s.Cases++
	}
	if t.runs > 0 {
		t.judged++
		t.passAt1 += float64(t.passed) / float64(t.runs)
		if t.passed > 0 {
			t.passAtK++
		}
		if t.passed == t.runs {
			t.passHatK++
		} else {
			t.s.FailedCases = append(t.s.FailedCases, t.id)
			r := CaseRate{Case: t.id, Runs: t.runs, Passed: t.passed, PassAt1: float64(t.passed) / float64(t.runs)}
			if t.passed > 0 {
				r.PassAtK = 1
			}
			t.s.CaseRates = append(t.s.CaseRates, r)
		}
	}
	t.all, t.runs, t.passed = 0, 0, 0
}

// Summary is what the runs counted so far add up to.
func (t *Summarizer) Summary() Summary {
	c := *t
	c.end()
	s := c.s
	s.FailedCases = slices.Clone(s.FailedCases)
	s.CaseRates = slices.Clone(s.CaseRates)
	if c.judged == 0 {
		return s
	}
	n := float64(c.judged)
	s.PassAt1, s.PassAtK, s.PassHatK = c.passAt1/n, float64(c.passAtK)/n, float64(c.passHatK)/n
	return s
}

// Text is the summary in one line: "3 cases: 2 passed, 1 failed (add)",
// with the pass rates of repeated runs and their count, "3 cases × 2
// runs" or, repeated unevenly, "3 cases, 5 runs".
func (s Summary) Text() string {
	var b strings.Builder
	cases := "cases"
	if s.Cases == 1 {
		cases = "case"
	}
	fmt.Fprintf(&b, "%d %s", s.Cases, cases)
	switch {
	case s.Repeat > 1 && s.Runs == s.Cases*s.Repeat:
		fmt.Fprintf(&b, " × %d runs", s.Repeat)
	case s.Runs != s.Cases:
		// Cases repeated unevenly (a case's own repeat, a shard's share
		// of them): "× K" would miscount, the runs themselves do not.
		fmt.Fprintf(&b, ", %d runs", s.Runs)
	}
	fmt.Fprintf(&b, ": %d passed, %d failed", s.Passed, s.Failed)
	if len(s.FailedCases) > 0 {
		shown := s.FailedCases
		more := ""
		if len(shown) > 5 {
			shown, more = shown[:5], fmt.Sprintf(" and %d more", len(s.FailedCases)-5)
		}
		fmt.Fprintf(&b, " (%s%s)", strings.Join(shown, ", "), more)
	}
	if s.Budget > 0 {
		fmt.Fprintf(&b, ", %d cut by the budget", s.Budget)
	}
	if s.Repeat > 1 {
		fmt.Fprintf(&b, "; pass@1 %.2f, pass@%d %.2f, pass^%d %.2f", s.PassAt1, s.Repeat, s.PassAtK, s.Repeat, s.PassHatK)
	}
	return b.String()
}

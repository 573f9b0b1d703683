package eval

import (
	"fmt"
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
// budget cut count in none of them.
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
	// FailedCases are the cases with a failed run, in case order.
	FailedCases []string `json:"failed_cases,omitempty"`
}

// Summarize adds up runs, given in case order, each case's runs together.
func Summarize(runs []Run) Summary {
	var s Summary
	type caseRuns struct{ runs, passed int }
	var order []string
	byCase := map[string]*caseRuns{}
	// Repeat is the most runs a case has here, not the highest repeat: a
	// shard may hold one run of a case repeated twice.
	all := map[string]int{}
	for _, r := range runs {
		s.Runs++
		all[r.Case]++
		s.Repeat = max(s.Repeat, all[r.Case])
		switch {
		case r.Budget:
			s.Budget++
			continue
		case r.Passed:
			s.Passed++
		default:
			s.Failed++
		}
		c := byCase[r.Case]
		if c == nil {
			c = &caseRuns{}
			byCase[r.Case] = c
			order = append(order, r.Case)
		}
		c.runs++
		if r.Passed {
			c.passed++
		}
	}
	s.Cases = len(order)
	if s.Cases == 0 {
		return s
	}
	for _, id := range order {
		c := byCase[id]
		s.PassAt1 += float64(c.passed) / float64(c.runs)
		if c.passed > 0 {
			s.PassAtK++
		}
		if c.passed == c.runs {
			s.PassHatK++
		} else {
			s.FailedCases = append(s.FailedCases, id)
		}
	}
	n := float64(s.Cases)
	s.PassAt1, s.PassAtK, s.PassHatK = s.PassAt1/n, s.PassAtK/n, s.PassHatK/n
	return s
}

// Text is the summary in one line: "3 cases: 2 passed, 1 failed (add)",
// with the pass rates of repeated runs.
func (s Summary) Text() string {
	var b strings.Builder
	cases := "cases"
	if s.Cases == 1 {
		cases = "case"
	}
	fmt.Fprintf(&b, "%d %s", s.Cases, cases)
	if s.Repeat > 1 {
		fmt.Fprintf(&b, " × %d runs", s.Repeat)
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

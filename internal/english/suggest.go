package english

import (
	"strings"
)

// Suggest returns the candidate closest to got when it is close enough to
// be a likely typo, or "" when none is.
func Suggest(got string, candidates []string) string {
	best, bestD := "", -1
	lg := strings.ToLower(got)
	for _, c := range candidates {
		d := editDistance(lg, strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	// A third of the longer name, at least one edit: "calculate_summ" is a
	// typo of "calculate_sum", "path" is not a typo of "mode".
	limit := max(len(got), len(best)) / 3
	if bestD < 0 || bestD > max(limit, 1) {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b,
// in bytes: Levenshtein's insertions, deletions and substitutions, plus the
// swap of two neighbours as one edit, the commonest typo ("nmae").
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

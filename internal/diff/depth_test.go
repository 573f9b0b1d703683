package diff

import (
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/records"
)

// TestCompareContentAsDeepAsARecordHolds: content as deep as kesoku
// writes (records.MaxContentDepth levels) is compared, not refused: what
// kesoku writes, diff reads. A change at the bottom is found.
func TestCompareContentAsDeepAsARecordHolds(t *testing.T) {
	t.Parallel()
	n := records.MaxContentDepth
	deep := func(leaf string) string {
		return `"content":` + strings.Repeat("[", n-1) + "[" + leaf + "]" + strings.Repeat("]", n-1)
	}
	got, sum := diffText(t, joinLines(rec("a", "deep", deep("1"))), joinLines(rec("a", "deep", deep("2"))), Options{})
	if len(got) != 1 || sum.Different() != 1 {
		t.Errorf("differences %q, summary %+v", got, sum)
	}
}

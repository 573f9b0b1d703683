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

// TestCompareAShardsEnd: the shard_end line a shard's file ends with is
// no request's record, and a shard with nothing to do (that line alone)
// is a records file all the same.
func TestCompareAShardsEnd(t *testing.T) {
	t.Parallel()
	end := `{"id":"e","session_id":"S","role":"tool","type":"shard_end","status":"responded","content":{"shard":2,"shards":2,"requests":1},"created_at":"2026-12-07T00:00:00Z"}`
	got, sum := diffText(t, joinLines(end), joinLines(end), Options{})
	if len(got) != 0 || sum.Total != 0 {
		t.Errorf("differences %q, summary %+v", got, sum)
	}
	got, _ = diffText(t, joinLines(rec("a", "t", `"content":1`), end), joinLines(rec("a", "t", `"content":1`)), Options{})
	if len(got) != 0 {
		t.Errorf("differences %q", got)
	}
}

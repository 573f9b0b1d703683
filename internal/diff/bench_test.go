package diff

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/kesoku/kesoku/internal/records"
)

// benchRecords writes n records of calculate_sum as `kesoku run` does,
// each run's ids, session and times its own.
func benchRecords(n int, run int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"id":"01a22d70-0dec-7%03d-babd-abb4%08x","session_id":"01a22d70-0deb-7000-825d-663d4f1959%02d","parent_id":"call_%d","role":"tool","type":"tool_result","status":"responded","name":"calculate_sum","content":%d,"created_at":"2026-11-30T17:10:48.%09dZ","duration_ms":0}`+"\n", run, i, run, i+1, 2*i+i%7, i*run)
	}
	return b.Bytes()
}

// BenchmarkCompare compares two runs of the same requests, in the same
// order: the common case of a CI snapshot test. ns/op is per record pair.
func BenchmarkCompare(b *testing.B) {
	const n = 100_000
	old, new := benchRecords(n, 1), benchRecords(n, 2)
	compareRuns(b, n, old, new)
}

// BenchmarkCompareReversed compares two runs in opposite orders: the worst
// case, where every record waits for its partner. ns/op is per record
// pair.
func BenchmarkCompareReversed(b *testing.B) {
	const n = 100_000
	old, new := benchRecords(n, 1), benchRecords(n, 2)
	lines := bytes.SplitAfter(new, []byte("\n"))
	slices.Reverse(lines)
	new = bytes.Join(lines, nil)
	compareRuns(b, n, old, new)
}

// compareRuns compares old and new, runs of n records that answer the
// same, b.N records at a time.
func compareRuns(b *testing.B, n int, old, new []byte) {
	b.SetBytes(int64(len(old)+len(new)) / int64(n))
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; done += n {
		sum, err := Compare(context.Background(),
			File{Name: "old", Records: records.NewReader(bytes.NewReader(old), "old")},
			File{Name: "new", Records: records.NewReader(bytes.NewReader(new), "new")},
			Options{}, func(*Difference) error { return nil })
		if err != nil || sum.Different() != 0 {
			b.Fatal(sum, err)
		}
	}
}

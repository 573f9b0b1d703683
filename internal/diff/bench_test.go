package diff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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

// contentRecords writes n records whose content is an object of a few
// rows; respelled, the same values in another spelling (keys in another
// order, numbers written otherwise, a string escaped), so that every
// pair is walked by value to find it the same.
func contentRecords(n int, respelled bool) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"id":"r%d","session_id":"s","parent_id":"call_%d","role":"tool","type":"tool_result","status":"responded","name":"search","content":`, i, i+1)
		if respelled {
			fmt.Fprintf(&b, `{"total":%d.0,"rows":[{"score":0.50e1,"name":"\u0061 row","id":%d},{"score":2.50,"name":"b row","id":%d},{"score":1E0,"name":"c row","id":%d}]}`, 3*i, i, i+1, i+2)
		} else {
			fmt.Fprintf(&b, `{"rows":[{"id":%d,"name":"a row","score":5},{"id":%d,"name":"b row","score":2.5},{"id":%d,"name":"c row","score":1}],"total":%d}`, i, i+1, i+2, 3*i)
		}
		b.WriteString(`,"created_at":"2026-11-30T17:10:48Z","duration_ms":0}` + "\n")
	}
	return b.Bytes()
}

// BenchmarkCompareByValue compares two runs whose contents hold the same
// values written otherwise: every pair is walked whole. ns/op is per
// record pair.
func BenchmarkCompareByValue(b *testing.B) {
	const n = 100_000
	compareRuns(b, n, contentRecords(n, false), contentRecords(n, true))
}

// BenchmarkCompareDeep compares two values nested as deep as a record
// holds, around a long string that differs at its end: each text is read
// once, not once for every level it is nested in (which took a minute).
func BenchmarkCompareDeep(b *testing.B) {
	n := records.MaxContentDepth
	deep := func(leaf string) json.RawMessage {
		return json.RawMessage(strings.Repeat(`{"a":[`, n/2) + `"` + strings.Repeat("x", 1<<20) + leaf + `"` + strings.Repeat(`]}`, n/2))
	}
	old, new := deep("a"), deep("b")
	b.SetBytes(int64(len(old) + len(new)))
	for b.Loop() {
		if cs, err := compareJSON(nil, contentPath, nil, old, new); err != nil || len(cs) != 1 {
			b.Fatal(cs, err)
		}
	}
}

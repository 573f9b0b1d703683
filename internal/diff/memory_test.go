package diff

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/records"
)

// largeRecords writes, to a file of dir, n records of kesoku run whose
// contents content(i) gives, in order or reversed; it returns the file's
// path and size.
func largeRecords(t testing.TB, dir, name string, n int, reversed bool, content func(i int) string) (string, int64) {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for k := range n {
		i := k
		if reversed {
			i = n - 1 - k
		}
		fmt.Fprintf(w, `{"id":"r%d","session_id":"s","parent_id":"call_%d","role":"tool","type":"tool_result","status":"responded","name":"t","content":%s,"position":%d,"created_at":"2026-11-30T17:10:48Z","duration_ms":0}`+"\n",
			i, i+1, content(i), i+1)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, st.Size()
}

// liveHeap is the heap the program holds: what is left once the collector
// has run.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// heldBy runs Compare of the files at old and new and returns the most
// heap it held beyond what was held before, measured when it hands a
// difference on (both records of the request are in memory then, and its
// changes), and how many differences it handed on.
func heldBy(t testing.TB, old, new string, opts Options) (held int64, differences int) {
	t.Helper()
	fo, err := os.Open(old)
	if err != nil {
		t.Fatal(err)
	}
	defer fo.Close()
	fn, err := os.Open(new)
	if err != nil {
		t.Fatal(err)
	}
	defer fn.Close()
	base := liveHeap()
	_, err = Compare(context.Background(),
		File{Name: "old", Records: records.NewReader(fo, "old")},
		File{Name: "new", Records: records.NewReader(fn, "new")},
		opts, func(d *Difference) error {
			// Measuring costs a collection: the first differences, then
			// one in a hundred.
			if differences++; differences <= 4 || differences%100 == 0 {
				held = max(held, liveHeap()-base)
			}
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return held, differences
}

// TestCompareHoldsTheFilesOnce: diff holds what it must of the smaller
// file — a record waiting for its partner, the two records being compared,
// each once as its line holds it — and not a decoded copy of each value:
// within twice the smaller file, whatever the records hold. (Decoded into
// Go values, a file of numbers took 70 times its size.)
func TestCompareHoldsTheFilesOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("writes files of 8 MiB")
	}
	const size = 8 << 20
	numbers := func(shift int) func(int) string {
		return func(int) string {
			var b strings.Builder
			b.WriteByte('[')
			for k := 0; b.Len() < size; k++ {
				if k > 0 {
					b.WriteByte(',')
				}
				fmt.Fprint(&b, k+shift)
			}
			b.WriteByte(']')
			return b.String()
		}
	}
	objects := func(shift int) func(int) string {
		return func(int) string {
			var b strings.Builder
			b.WriteString(`{"rows":[`)
			for k := 0; b.Len() < size; k++ {
				if k > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `{"k":%d,"v":"row %d"}`, k, k+shift)
			}
			b.WriteString(`]}`)
			return b.String()
		}
	}
	text := func(last string) func(int) string {
		return func(int) string { return `"` + strings.Repeat(`line\n`, size/6) + last + `"` }
	}
	many := func(shift int) func(int) string {
		return func(i int) string { return fmt.Sprintf(`{"n":%d,"text":"%s"}`, i+shift, strings.Repeat("x", 4000)) }
	}
	tests := []struct {
		name     string
		n        int
		reversed bool
		old, new func(int) string
		opts     Options
	}{
		{"one long string, changed at its end", 1, false, text("a"), text("b"), Options{}},
		{"every number changed", 1, false, numbers(0), numbers(1), Options{}},
		{"every number changed, as the text output keeps them", 1, false, numbers(0), numbers(1), Options{MaxChanges: 20}},
		{"every row changed", 1, false, objects(0), objects(1), Options{}},
		{"many records, in opposite orders", size / 4096, true, many(0), many(1), Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			old, oldSize := largeRecords(t, dir, "old.jsonl", tt.n, false, tt.old)
			new, newSize := largeRecords(t, dir, "new.jsonl", tt.n, tt.reversed, tt.new)
			smaller := min(oldSize, newSize)
			held, n := heldBy(t, old, new, tt.opts)
			if n == 0 {
				t.Fatal("no differences found")
			}
			// Twice the smaller file, and what a program holds besides:
			// a chunk of changes, a few structures.
			if limit := 2*smaller + 1<<20; held > limit {
				t.Errorf("held %.1f MiB for files of %.1f and %.1f MiB: %.2f times the smaller, want at most 2",
					float64(held)/(1<<20), float64(oldSize)/(1<<20), float64(newSize)/(1<<20), float64(held)/float64(smaller))
			}
			t.Logf("held %.1f MiB, %.2f times the smaller file", float64(held)/(1<<20), float64(held)/float64(smaller))
		})
	}
}

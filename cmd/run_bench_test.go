package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRunCalculateSum is the batch path end to end, as `kesoku run
// batch.jsonl` takes it with the built-in calculate_sum: stream, parse,
// validate, call, pack, encode. One op is one request.
func BenchmarkRunCalculateSum(b *testing.B) {
	for _, jobs := range []int{1, 4} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "batch.jsonl")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			w := bufio.NewWriter(f)
			for i := range b.N {
				fmt.Fprintf(w, `{"id": "call_%d", "name": "calculate_sum", "args": {"a": %d, "b": %d}}`+"\n", i+1, i, 2*i)
			}
			w.Flush()
			f.Close()
			g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, AWD: b.TempDir(), Quiet: true}
			c := newRunCmd(g, runRun)
			c.SetArgs([]string{path, "--jobs", fmt.Sprint(jobs)})
			c.SilenceUsage, c.SilenceErrors = true, true
			b.ReportAllocs()
			b.ResetTimer()
			if err := c.ExecuteContext(context.Background()); err != nil {
				b.Fatal(err)
			}
		})
	}
}

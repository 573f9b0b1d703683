package cmd

import (
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
)

func BenchmarkTmpEvalFixed(b *testing.B) {
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var conns atomic.Int64
			srv := instantGemini(b, 0, &conns)
			b.Setenv("GEMINI_API_KEY", benchKey)
			cases := writeCases(b, n)
			out := filepath.Join(b.TempDir(), "out.jsonl")
			evalOnce(b, srv, cases, out, 1)
			b.ResetTimer()
			for range b.N {
				evalOnce(b, srv, cases, out, 1)
			}
		})
	}
}

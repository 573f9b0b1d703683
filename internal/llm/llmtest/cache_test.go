package llmtest

import (
	"fmt"
	"strings"
	"testing"
)

// TestPromptCache: the fake caches as Claude does: a prefix is written
// at a breakpoint once it is long enough, read again by a later request
// that reaches it within twenty blocks of a breakpoint, and neither when
// no block is marked.
func TestPromptCache(t *testing.T) {
	t.Parallel()
	// block is a text block of about 100 tokens.
	block := func(i int, marked bool) string {
		cc := ""
		if marked {
			cc = `,"cache_control":{"type":"ephemeral"}`
		}
		return fmt.Sprintf(`{"type":"text","text":"%03d %s"%s}`, i, strings.Repeat("x", 390), cc)
	}
	// body is a request of n blocks, the ones in marked carrying a
	// breakpoint.
	body := func(n int, marked ...int) []byte {
		var blocks []string
		for i := range n {
			m := false
			for _, j := range marked {
				m = m || i == j
			}
			blocks = append(blocks, block(i, m))
		}
		return []byte(`{"model":"m","max_tokens":1,"messages":[{"role":"user","content":[` + strings.Join(blocks, ",") + `]}]}`)
	}
	var c promptCache
	type use struct{ prompt, read, written int64 }
	check := func(name string, b []byte, want use) {
		t.Helper()
		var got use
		got.prompt, got.read, got.written = c.use(b)
		if want.prompt == 0 {
			want.prompt = got.prompt
		}
		if got != want {
			t.Errorf("%s: prompt, read, written = %+v, want %+v", name, got, want)
		}
	}
	per := cacheBlocks(body(1))[0].tokens // tokens of one block
	check("no breakpoint", body(12), use{})
	check("too short to cache", body(5, 4), use{})
	check("the first write", body(12, 11), use{written: 12 * per})
	check("the same prefix again", body(12, 11), use{read: 12 * per})
	check("ten blocks more", body(22, 21), use{read: 12 * per, written: 10 * per})
	// Thirty blocks more, marked only at the end: the last entry is more
	// than twenty blocks back.
	check("beyond the lookback", body(52, 51), use{written: 52 * per})
	// Marked where the last request ended too, it is found.
	check("two breakpoints", body(80, 51, 79), use{read: 52 * per, written: 28 * per})
}

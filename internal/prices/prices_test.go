package prices

import (
	"math"
	"testing"

	"github.com/kesoku/kesoku/message"
)

func TestLookup(t *testing.T) {
	t.Parallel()
	table := With(Table{"my-model": {Input: 1, Output: 2}})
	for _, tc := range []struct {
		model string
		want  string // the entry found, "" for none
	}{
		{"gemini-2.5-flash", "gemini-2.5-flash"},
		{"models/gemini-2.5-flash", "gemini-2.5-flash"},
		{"gemini-2.5-flash-lite", "gemini-2.5-flash-lite"},
		{"gemini-2.5-flash-preview-09-2025", "gemini-2.5-flash"},
		{"gemini-2.5-flash-001", "gemini-2.5-flash"},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"claude-sonnet-4-5-latest", "claude-sonnet-4-5"},
		{"gpt-4o-2024-08-06", "gpt-4o"},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini"},
		{"my-model", "my-model"},
		// Another model, not a release of one the table knows.
		{"gpt-4o-audio-preview-x", ""},
		{"gpt-4o-realtime", ""},
		{"llama3.1", ""},
		{"claude-sonnet-4", ""},
	} {
		got, ok := table.Lookup(tc.model)
		if ok != (tc.want != "") {
			t.Errorf("Lookup(%q) found %v, want %v", tc.model, ok, tc.want != "")
			continue
		}
		if ok && got != table[tc.want] {
			t.Errorf("Lookup(%q) = %+v, want %s's %+v", tc.model, got, tc.want, table[tc.want])
		}
	}
}

func TestWithReplacesAndKeepsShipped(t *testing.T) {
	t.Parallel()
	table := With(Table{"gpt-4o": {Input: 9, Output: 9}})
	if table["gpt-4o"].Input != 9 {
		t.Errorf("gpt-4o = %+v, want the override", table["gpt-4o"])
	}
	if Shipped()["gpt-4o"].Input == 9 {
		t.Error("the override changed the shipped table")
	}
	if _, ok := table.Lookup("claude-sonnet-4-5"); !ok {
		t.Error("the shipped entries are gone")
	}
}

func TestCost(t *testing.T) {
	t.Parallel()
	p := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	// 1,000,000 input tokens of which 200,000 read from the cache and
	// 100,000 written to it; 100,000 output tokens.
	u := message.Usage{InputTokens: 1_000_000, OutputTokens: 100_000, CacheReadTokens: 200_000, CacheWriteTokens: 100_000}
	want := 0.7*3 + 0.2*0.3 + 0.1*3.75 + 0.1*15
	if got := p.Cost(u); math.Abs(got-want) > 1e-9 {
		t.Errorf("Cost = %v, want %v", got, want)
	}
	// No cache prices: cached tokens cost what input does.
	plain := Price{Input: 1, Output: 2}
	if got := plain.Cost(u); math.Abs(got-(1+0.2)) > 1e-9 {
		t.Errorf("Cost without cache prices = %v, want 1.2", got)
	}
}

func TestShippedPricesAreSane(t *testing.T) {
	t.Parallel()
	for name, p := range Shipped() {
		if err := p.Check(); err != nil || p.Input <= 0 || p.Output <= 0 {
			t.Errorf("%s: %+v: %v", name, p, err)
		}
	}
	for _, bad := range []Price{{Input: -1}, {Output: math.NaN()}, {CacheRead: math.Inf(1)}} {
		if bad.Check() == nil {
			t.Errorf("Check(%+v) passed", bad)
		}
	}
}

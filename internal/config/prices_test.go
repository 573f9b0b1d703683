package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/prices"
)

func TestParsePrices(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, text string
		want       prices.Table
		err        string // after "/x/kesoku.yaml:"
	}{
		{name: "full", text: "prices:\n  m: {input: 0.5, output: 1.5, cache_read: 0.05, cache_write: 0.6}\n",
			want: prices.Table{"m": {Input: 0.5, Output: 1.5, CacheRead: 0.05, CacheWrite: 0.6}}},
		{name: "free", text: "prices:\n  llama3.1: {input: 0, output: 0}\n", want: prices.Table{"llama3.1": {}}},
		{name: "no output", text: "prices:\n  m: {input: 1}\n", err: `2:3: prices: "m": no output: a price needs input and output`},
		{name: "a typo", text: "prices:\n  m:\n    inptu: 1\n", err: `3:5: prices: "m": unknown key "inptu" (did you mean "input"?)`},
		{name: "a word", text: "prices:\n  m: {input: cheap, output: 1}\n", err: `2:14: prices: "m": input: "cheap" is not a price`},
		{name: "negative", text: "prices:\n  m: {input: -1, output: 1}\n", err: `2:14: prices: "m": input: "-1" is not a price`},
		{name: "not a mapping", text: "prices:\n  m: 3\n", err: `2:6: prices: "m": want {input: N, output: N}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := Parse("/x/kesoku.yaml", []byte(tt.text), keys)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), "/x/kesoku.yaml:"+tt.err) {
					t.Fatalf("err = %v, want /x/kesoku.yaml:%s…", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, f.Prices); diff != "" {
				t.Errorf("prices mismatch (-want +got):\n%s", diff)
			}
			if got := f.Consequential(); len(got) != 1 || !strings.HasPrefix(got[0], "prices") {
				t.Errorf("Consequential = %q, want prices: a stranger's prices could lift a budget", got)
			}
		})
	}
}

func TestConfigPricesOverShipped(t *testing.T) {
	t.Parallel()
	user, err := Parse("/u/config.yaml", []byte("prices:\n  m: {input: 1, output: 1}\n  gpt-4o: {input: 9, output: 9}\n"), keys)
	if err != nil {
		t.Fatal(err)
	}
	project, err := Parse("/p/kesoku.yaml", []byte("prices:\n  m: {input: 2, output: 2}\n"), keys)
	if err != nil {
		t.Fatal(err)
	}
	table := (&Config{Files: []*File{user, project}}).Prices()
	if p, _ := table.Lookup("m"); p.Input != 2 {
		t.Errorf("m = %+v, want the project's", p)
	}
	if p, _ := table.Lookup("gpt-4o-2024-08-06"); p.Input != 9 {
		t.Errorf("gpt-4o = %+v, want the user's", p)
	}
	if _, ok := table.Lookup("claude-sonnet-4-5"); !ok {
		t.Error("the shipped prices are gone")
	}
}

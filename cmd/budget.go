package cmd

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/prices"
)

// budgetFlags bound what a command's model requests may spend.
type budgetFlags struct {
	USD    float64
	Tokens int
}

// maxBudgetTokens bounds --max-budget-tokens: a trillion tokens is no
// bound.
const maxBudgetTokens = 1_000_000_000_000

func (b *budgetFlags) register(f *pflag.FlagSet) {
	dollarsVar(f, &b.USD, "max-budget-usd", 0, 0, 1e6, "send no model request once this is spent; 0: no bound")
	intVar(f, &b.Tokens, "max-budget-tokens", "", 0, 0, maxBudgetTokens, "send no model request once this many tokens are used; 0: no bound")
	inGroup(f, "budget", "max-budget-usd", "max-budget-tokens")
}

// tally is a tally of model's requests held to the budget, priced by
// table. A dollar budget for a model without a price is refused before
// anything is sent: its cost could not be counted.
func (b budgetFlags) tally(table prices.Table, model string) (*llm.Tally, error) {
	t := &llm.Tally{Budget: llm.Budget{USD: b.USD, Tokens: int64(b.Tokens)}}
	if p, ok := table.Lookup(model); ok {
		t.Price = &p
	} else if b.USD > 0 {
		return nil, usageErrf("--max-budget-usd: kesoku has no price for %q (its table is of %s): give one under prices: in kesoku.yaml", model, prices.Date)
	}
	return t, nil
}

// set reports whether a budget was given.
func (b budgetFlags) set() bool { return b.USD > 0 || b.Tokens > 0 }

// budgetLine says what a run spent against its budget: "spent $0.012 of
// $0.010" or "spent 1234 of 1000 tokens".
func budgetLine(t *llm.Tally, b budgetFlags) string {
	usd, known := t.Cost()
	u, _ := t.Total()
	tokens := u.InputTokens + u.OutputTokens
	switch {
	case b.USD > 0 && known:
		return fmt.Sprintf("spent %s of %s (%d tokens)", llm.Dollars(usd), llm.Dollars(b.USD), tokens)
	case b.USD > 0:
		return fmt.Sprintf("spent at least %s of %s (%d tokens; some requests reported no usage)", llm.Dollars(usd), llm.Dollars(b.USD), tokens)
	}
	if t.Unreported() > 0 {
		return fmt.Sprintf("spent at least %d of %d tokens (some requests reported no usage)", tokens, b.Tokens)
	}
	return fmt.Sprintf("spent %d of %d tokens", tokens, b.Tokens)
}

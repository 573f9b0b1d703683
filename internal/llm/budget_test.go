package llm

import (
	"errors"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/prices"
	"github.com/kesoku/kesoku/message"
)

func TestTallyBudget(t *testing.T) {
	t.Parallel()
	var none *Tally
	if err := none.Allow(); err != nil {
		t.Fatalf("a nil tally refused: %v", err)
	}
	p := prices.Price{Input: 1, Output: 1}
	for _, tc := range []struct {
		name   string
		budget Budget
		spent  []message.Usage
		refuse bool
	}{
		{"nothing spent", Budget{USD: 1, Tokens: 10}, nil, false},
		{"under both", Budget{USD: 1, Tokens: 10}, []message.Usage{{InputTokens: 4, OutputTokens: 5}}, false},
		{"tokens reached", Budget{Tokens: 10}, []message.Usage{{InputTokens: 5, OutputTokens: 5}}, true},
		{"dollars reached", Budget{USD: 0.5}, []message.Usage{{InputTokens: 250_000}, {OutputTokens: 250_000}}, true},
		{"no bound", Budget{}, []message.Usage{{InputTokens: 1 << 40}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tally := &Tally{Price: &p, Budget: tc.budget}
			for _, u := range tc.spent {
				tally.Add(&u)
			}
			err := tally.Allow()
			var be *BudgetError
			if got := errors.As(err, &be); got != tc.refuse {
				t.Fatalf("Allow() = %v, want refused %v", err, tc.refuse)
			}
		})
	}
}

func TestTallyCostUnknownWhenUnreported(t *testing.T) {
	t.Parallel()
	p := prices.Price{Input: 1, Output: 1}
	tally := &Tally{Price: &p}
	tally.Add(&message.Usage{InputTokens: 1_000_000})
	if usd, known := tally.Cost(); usd != 1 || !known {
		t.Errorf("Cost = %v, %v; want 1, known", usd, known)
	}
	tally.Add(nil)
	if _, known := tally.Cost(); known {
		t.Error("a request without usage left the cost known")
	}
	if _, known := (&Tally{}).Cost(); known {
		t.Error("a tally without a price knows its cost")
	}
}

// A request that reported no usage spent what no one knows: a budget can
// no longer be kept, and the next request is refused, saying why.
func TestTallyBudgetUnreported(t *testing.T) {
	t.Parallel()
	for _, b := range []Budget{{Tokens: 1000}, {USD: 1}} {
		p := prices.Price{Input: 1, Output: 1}
		tally := &Tally{Price: &p, Budget: b}
		tally.Add(&message.Usage{InputTokens: 10})
		if err := tally.Allow(); err != nil {
			t.Fatalf("%+v: refused after a reported request: %v", b, err)
		}
		tally.Add(nil)
		err := tally.Allow()
		var be *BudgetError
		if !errors.As(err, &be) {
			t.Fatalf("%+v: Allow() = %v after a request without usage, want a *BudgetError", b, err)
		}
		if want := "cannot be kept: 1 model request reported no usage"; !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: %q, want it to say %q", b, err, want)
		}
	}
	// Without a budget, nothing is refused.
	tally := &Tally{}
	tally.Add(nil)
	if err := tally.Allow(); err != nil {
		t.Errorf("no budget: refused: %v", err)
	}
}

// TestDollars: an amount under a tenth of a cent keeps two significant
// digits, so that a small budget and what was spent of it read apart.
func TestDollars(t *testing.T) {
	for usd, want := range map[float64]string{
		0: "$0.000", 1.5: "$1.500", 0.0123: "$0.012", 0.00011: "$0.00011",
		0.0001: "$0.00010", 0.00001: "$0.000010", 0.00099: "$0.00099",
	} {
		if got := Dollars(usd); got != want {
			t.Errorf("Dollars(%v) = %q, want %q", usd, got, want)
		}
	}
}

// Package prices says what a model's tokens cost, in US dollars.
//
// The table kesoku ships covers the models its help names and their close
// kin, at the providers' published list prices on Date, for prompts in the
// lowest tier (Gemini's Pro models cost more past 200,000 input tokens).
// Prices change: a config file's prices: section overrides or extends the
// table, and a model the table does not know has no price, never a guessed
// one.
package prices

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/kesoku/kesoku/message"
)

// Date is when the shipped table was last checked against the providers'
// price lists.
const Date = "2026-12-07"

// Price is what a model charges per million tokens. CacheRead and
// CacheWrite are the prices of input tokens read from and written to the
// provider's prompt cache; zero means the input price.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read,omitempty"`
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// Cost is what u cost at p. Usage counts cached tokens inside its input
// tokens, so they are taken out before the plain input price applies.
func (p Price) Cost(u message.Usage) float64 {
	read, write := p.CacheRead, p.CacheWrite
	if read == 0 {
		read = p.Input
	}
	if write == 0 {
		write = p.Input
	}
	plain := max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
	return (float64(plain)*p.Input +
		float64(u.CacheReadTokens)*read +
		float64(u.CacheWriteTokens)*write +
		float64(u.OutputTokens)*p.Output) / 1e6
}

// Table holds prices by model name.
type Table map[string]Price

// shipped is the table as of Date, in US dollars per million tokens.
var shipped = sync.OnceValue(func() Table {
	return Table{
		"gemini-2.5-flash":      {Input: 0.30, Output: 2.50, CacheRead: 0.03},
		"gemini-2.5-flash-lite": {Input: 0.10, Output: 0.40, CacheRead: 0.01},
		"gemini-2.5-pro":        {Input: 1.25, Output: 10.00, CacheRead: 0.125},
		"gemini-3-pro":          {Input: 2.00, Output: 12.00, CacheRead: 0.20},
		"claude-haiku-4-5":      {Input: 1.00, Output: 5.00, CacheRead: 0.10, CacheWrite: 1.25},
		"claude-sonnet-4-5":     {Input: 3.00, Output: 15.00, CacheRead: 0.30, CacheWrite: 3.75},
		"claude-opus-4-5":       {Input: 5.00, Output: 25.00, CacheRead: 0.50, CacheWrite: 6.25},
		"claude-opus-4-1":       {Input: 15.00, Output: 75.00, CacheRead: 1.50, CacheWrite: 18.75},
		"gpt-4o":                {Input: 2.50, Output: 10.00, CacheRead: 1.25},
		"gpt-4o-mini":           {Input: 0.15, Output: 0.60, CacheRead: 0.075},
		"gpt-4.1":               {Input: 2.00, Output: 8.00, CacheRead: 0.50},
		"gpt-4.1-mini":          {Input: 0.40, Output: 1.60, CacheRead: 0.10},
		"gpt-5":                 {Input: 1.25, Output: 10.00, CacheRead: 0.125},
		"gpt-5-mini":            {Input: 0.25, Output: 2.00, CacheRead: 0.025},
		"o1-mini":               {Input: 1.10, Output: 4.40, CacheRead: 0.55},
		"o3":                    {Input: 2.00, Output: 8.00, CacheRead: 0.50},
		"o4-mini":               {Input: 1.10, Output: 4.40, CacheRead: 0.275},
	}
})

// Shipped is a copy of the table kesoku ships, as of Date.
func Shipped() Table {
	t := make(Table, len(shipped()))
	for k, v := range shipped() {
		t[k] = v
	}
	return t
}

// With is the shipped table with over's entries added, each replacing the
// shipped entry of its model.
func With(over Table) Table {
	t := Shipped()
	for k, v := range over {
		t[k] = v
	}
	return t
}

// snapshot is what a provider adds to a model's name for one release of
// it: a date (claude-sonnet-4-5-20250929, gpt-4o-2024-08-06), a version
// (-001), -latest, or a preview's date (gemini-2.5-flash-preview-09-2025).
var snapshot = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(-[0-9]+)+$|^-latest$|^-preview(-[0-9]+)*$`)
})

// Lookup finds model's price: its own entry, else that of the model it is
// a release of (the longest name in the table it extends with a date, a
// version or -latest). Gemini's "models/" prefix is ignored.
func (t Table) Lookup(model string) (Price, bool) {
	model = strings.TrimPrefix(model, "models/")
	if p, ok := t[model]; ok {
		return p, true
	}
	best, found := "", false
	for name := range t {
		rest, ok := strings.CutPrefix(model, name)
		if ok && len(name) > len(best) && snapshot().MatchString(rest) {
			best, found = name, true
		}
	}
	return t[best], found
}

// Check reports a price that cannot be right: a negative or non-finite
// number.
func (p Price) Check() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"input", p.Input}, {"output", p.Output}, {"cache_read", p.CacheRead}, {"cache_write", p.CacheWrite}} {
		if f.v < 0 || f.v != f.v || f.v > 1e6 {
			return fmt.Errorf("%s: %v is not a price in US dollars per million tokens", f.name, f.v)
		}
	}
	return nil
}

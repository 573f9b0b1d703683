package config

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/goccy/go-yaml/ast"

	"github.com/kesoku/kesoku/internal/prices"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// PricesKey is the section that overrides or extends the price table:
//
//	prices:
//	  my-model: {input: 0.5, output: 1.5, cache_read: 0.05}
//
// in US dollars per million tokens.
const PricesKey = "prices"

// priceFields are the keys of one model's price, in the order a message
// lists them.
var priceFields = []string{"input", "output", "cache_read", "cache_write"}

// parsePrices reads a prices: section into f.Prices, every value checked
// where it stands.
func (f *File) parsePrices(m *ast.MappingNode) error {
	f.Prices = prices.Table{}
	for _, mv := range m.Values {
		model, ok := yamlpos.ScalarText(mv.Key)
		if !ok || model == "" {
			return &Error{Pos: f.pos(mv.Key.GetToken()), Msg: "prices: a model's name, not " + yamlpos.KindOf(mv.Key)}
		}
		entry := yamlpos.Mapping(mv.Value)
		if entry == nil {
			return &Error{Pos: f.pos(mv.Value.GetToken()), Msg: fmt.Sprintf("prices: %s: want {input: N, output: N} in US dollars per million tokens, not %s", quoteKey(model), yamlpos.KindOf(mv.Value))}
		}
		var p prices.Price
		seen := map[string]bool{}
		for _, fv := range entry.Values {
			key, _ := yamlpos.ScalarText(fv.Key)
			at := f.pos(fv.Key.GetToken())
			if !slices.Contains(priceFields, key) {
				msg := fmt.Sprintf("prices: %s: unknown key %s", quoteKey(model), quoteKey(key))
				if s := suggest(key, priceFields); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				return &Error{Pos: at, Msg: msg + ": want " + describe(priceFields)}
			}
			text, _ := yamlpos.ScalarText(fv.Value)
			v, err := strconv.ParseFloat(text, 64)
			if err == nil {
				err = (prices.Price{Input: v}).Check()
			}
			if err != nil {
				return &Error{Pos: f.pos(fv.Value.GetToken()), Msg: fmt.Sprintf("prices: %s: %s: %q is not a price in US dollars per million tokens", quoteKey(model), key, text)}
			}
			seen[key] = true
			switch key {
			case "input":
				p.Input = v
			case "output":
				p.Output = v
			case "cache_read":
				p.CacheRead = v
			case "cache_write":
				p.CacheWrite = v
			}
		}
		var missing []string
		for _, k := range priceFields[:2] {
			if !seen[k] {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return &Error{Pos: f.pos(mv.Key.GetToken()), Msg: fmt.Sprintf("prices: %s: no %s: a price needs input and output, in US dollars per million tokens", quoteKey(model), describe(missing))}
		}
		f.Prices[model] = p
	}
	return nil
}

// Prices is the price table with the files' prices: sections over it, the
// project's over the user's.
func (c *Config) Prices() prices.Table {
	over := prices.Table{}
	if c == nil {
		return prices.With(over)
	}
	for _, f := range c.Files {
		for k, v := range f.Prices {
			over[k] = v
		}
	}
	return prices.With(over)
}

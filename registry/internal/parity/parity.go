// Package parity declares one tool twice: Order by its doc comment, whose
// registration kesoku gen writes, and OrderArgs for registry.Add. Its
// tests hold the two ways to one schema, one output schema, and one set
// of error texts for every mistake in a call. Nothing imports it.
package parity

import (
	"context"

	"github.com/kesoku/kesoku/registry"
)

//go:generate go run -tags kesoku_nogen github.com/kesoku/kesoku gen .

// Mode is how an order ships. It has no constants: both ways list its
// values where it is used.
type Mode string

// Item is one line of an order.
type Item struct {
	Name  string   `json:"name" description:"What the item is."`
	Count *int     `json:"count,omitempty" description:"How many; one when left out."`
	Tags  []string `json:"tags,omitempty" description:"Labels for the item."`
	Size  string   `json:"size" enum:"s, m, l" description:"Its size."`
	Extra
}

// Extra holds what an item may say besides, flattened into it.
type Extra struct {
	Level int8              `json:"level,omitempty" description:"A small priority."`
	Attrs map[string]uint16 `json:"attrs,omitempty" description:"Numbers by name."`
	Gift  *Gift             `json:"gift,omitempty" description:"Wrapping, if wanted."`
}

// Gift says how to wrap an item.
type Gift struct {
	Paper string `json:"paper" description:"The paper's colour."`
}

// Receipt is what an order returns.
type Receipt struct {
	Total int                `json:"total" description:"How many items in all."`
	Names []string           `json:"names" description:"The items' names."`
	Best  *Item              `json:"best,omitempty" description:"The largest line."`
	By    map[string]float32 `json:"by" description:"Weight by name."`
	Note  string             `json:"note,omitempty,string" description:"A remark."`
}

// Order takes an order.
//
// Args:
//
//	name: Who orders.
//	items: What is ordered.
//	urgent: Whether it is urgent.
//	mode: How to ship. Must be one of: air, sea.
//	notes: Notes by topic.
//	limit: At most this many lines.
//	weight: The parcel's weight in kilograms.
//	grid: Where it goes, as two lists of numbers.
//	when: Delivery slots.
//
//kesoku:tool
func Order(name string, items []Item, urgent *bool, mode Mode, notes map[string]string, limit uint8, weight float32, grid [2][]int, when []*int64) (Receipt, error) {
	return receipt(items), nil
}

// OrderArgs are Order's parameters as the fields of a struct, described
// by tags with the words of Order's Args.
type OrderArgs struct {
	Name   string            `json:"name" description:"Who orders."`
	Items  []Item            `json:"items" description:"What is ordered."`
	Urgent *bool             `json:"urgent" description:"Whether it is urgent."`
	Mode   Mode              `json:"mode" enum:"air,sea" description:"How to ship. Must be one of: air, sea."`
	Notes  map[string]string `json:"notes" description:"Notes by topic."`
	Limit  uint8             `json:"limit" description:"At most this many lines."`
	Weight float32           `json:"weight" description:"The parcel's weight in kilograms."`
	Grid   [2][]int          `json:"grid" description:"Where it goes, as two lists of numbers."`
	When   []*int64          `json:"when" description:"Delivery slots."`
}

// AddOrder registers Order in r by registry.Add, under the name and
// description kesoku gen gives it.
func AddOrder(r *registry.Registry) error {
	return registry.Add(r, "order", "Takes an order.", func(_ context.Context, _ *registry.ToolContext, in OrderArgs) (Receipt, error) {
		return Order(in.Name, in.Items, in.Urgent, in.Mode, in.Notes, in.Limit, in.Weight, in.Grid, in.When)
	})
}

func receipt(items []Item) Receipt {
	r := Receipt{Names: []string{}, By: map[string]float32{}}
	for i := range items {
		n := 1
		if items[i].Count != nil {
			n = *items[i].Count
		}
		r.Total += n
		r.Names = append(r.Names, items[i].Name)
		r.By[items[i].Name] += float32(n)
		if r.Best == nil || n > *r.Best.Count {
			best := items[i]
			best.Count = &n
			r.Best = &best
		}
	}
	return r
}

// Package clash declares names that generated code uses too (registry,
// genimpl, context, json, v, args, out, m), and tools whose parameters are named
// like them: the generated file must still compile and work.
package clash

import (
	"strings"
	"time"

	"github.com/kesoku/kesoku/internal/gen/testdata/src/shared"
)

// registry, genimpl, context and json take the names of the packages
// generated code imports.
var (
	registry = "mine"
	genimpl  = 2.5
	context  = 1
	json     = []string{"not", "encoding/json"}
)

// v, args, out, m and x are what generated functions call their locals.
var v, args, out, m, x = 1, 2, 3, 4, 5

// Item is a field's element.
type Item struct {
	// Out shares a name with a local.
	Out string `json:"out"`
}

// echo repeats its input; its name is not exported.
//
// Args:
//
//	err: the text.
//	ctx: how many times.
//	registry: a separator. Defaults to ", ".
//	time: a pause, in nanoseconds. Defaults to 0.
//	items: items to append.
//
//kesoku:tool
func echo(err string, ctx int, registry string, time time.Duration, items []Item) string {
	parts := make([]string, 0, ctx+len(items))
	for range ctx {
		parts = append(parts, err)
	}
	for _, it := range items {
		parts = append(parts, it.Out)
	}
	return strings.Join(parts, registry)
}

// Names lists the package's variables, so that they count as used.
func Names() []any { return []any{registry, context, json, v, args, out, m, x} }

// Measure measures a window of lines, in a unit of another package.
//
// Args:
//
//	w: the window.
//	unit: the unit. Defaults to m.
//
//kesoku:tool
func Measure(w shared.Window, unit shared.Unit) string {
	to := "end"
	if w.To != nil {
		to = strings.Repeat("|", *w.To)
	}
	return string(unit) + ":" + strings.Repeat("|", w.From) + "-" + to
}

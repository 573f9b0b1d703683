// Package kinds has a tool for every kind of parameter kesoku gen maps to
// a schema, for its tests: the generated file beside it is the golden
// file, and the tests call its tools through the registry.
package kinds

import (
	"context"
	"time"

	"github.com/kesoku/kesoku/registry"
)

// Mode is how a search matches.
type Mode string

// The modes.
const (
	Exact  Mode = "exact"
	Prefix Mode = "prefix"
	Fuzzy  Mode = "fuzzy"
)

// Lang is a language code; it has no constants, so any string goes.
type Lang string

// Count is a small number.
type Count uint8

// Tags is a named list.
type Tags []string

// Point is a place on a plane.
type Point struct {
	X float64 `json:"x"` // X is the horizontal position.
	Y float64 `json:"y"` // Y is the vertical position.
}

// Base holds fields every query has; Query embeds it.
type Base struct {
	// Trace asks for a trace of the query.
	Trace bool `json:"trace,omitempty"`
}

// Query is a search.
type Query struct {
	Base
	// Text is what to look for.
	Text string `json:"text"`
	// Mode is how to match.
	Mode Mode `json:"mode"`
	// Limit caps the results.
	Limit *int `json:"limit,omitempty"`
	// Langs are the languages to search in.
	Langs []Lang `json:"langs,omitempty"`
	// Near is where to look first.
	Near  *Point             `json:"near,omitempty"`
	Boost map[string]float32 `json:"boost,omitempty"` // Boost weighs fields.
	// Internal is never part of the schema.
	Internal string `json:"-"`
	hidden   string
	// Untagged keeps its Go name.
	Untagged int
}

// Scalars echoes one value of each scalar kind.
//
// Args:
//
//	s: a string.
//	b: a boolean.
//	i: an int.
//	i8: an int8.
//	i16: an int16.
//	i32: an int32.
//	i64: an int64.
//	u: a uint.
//	u8: a uint8.
//	u16: a uint16.
//	u32: a uint32.
//	u64: a uint64.
//	f32: a float32.
//	f64: a float64.
//	c: a named uint8.
//	d: a duration in nanoseconds.
//
//kesoku:tool
func Scalars(s string, b bool, i int, i8 int8, i16 int16, i32 int32, i64 int64, u uint, u8 uint8, u16 uint16, u32 uint32, u64 uint64, f32 float32, f64 float64, c Count, d time.Duration) []any {
	return []any{s, b, i, i8, i16, i32, i64, u, u8, u16, u32, u64, f32, f64, c, d}
}

// Search runs a query.
//
// Args:
//
//	q: the query.
//	page: the page to return, from 1. Defaults to 1.
//	mode: overrides the query's mode.
//	  Must be one of: exact, prefix.
//
// Returns:
//
//	the query as it was understood.
//
//kesoku:tool
func Search(ctx context.Context, q Query, page int, mode *Mode) (map[string]any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := map[string]any{"q": q, "page": page}
	if mode != nil {
		out["mode"] = *mode
	}
	return out, nil
}

// Collections takes lists and maps.
//
// Args:
//
//	tags: a named list of strings.
//	grid: a fixed-size pair of lists of integers.
//	points: a list of points.
//	optional: pointers to points, null allowed in the list.
//	scores: scores by name.
//	byLang: queries by language.
//	sizes: sizes to accept. Must be one of: s, m, l.
//	  Defaults to ["m"].
//
//kesoku:tool
func Collections(tags Tags, grid [2][]int, points []Point, optional []*Point, scores map[string]int, byLang map[Lang]Query, sizes []string) map[string]any {
	return map[string]any{"tags": tags, "grid": grid, "points": points, "optional": optional, "scores": scores, "byLang": byLang, "sizes": sizes}
}

// Defaults shows every form of default.
//
// Args:
//
//	word: a bare word. Defaults to utf-8.
//	quoted: a quoted string. Defaults to "a, b. c".
//	number: a bare number taken as a string. Defaults to 10.
//	n: an integer. Defaults to 3.
//	ratio: a float. Defaults to 0.5.
//	flag: a boolean. Defaults to true.
//	opt: an optional integer with a default. Defaults to 7.
//	none: an optional integer whose default is null. Defaults to null.
//	at: a point. Defaults to {"x": 1, "y": 2}.
//	mode: a mode. Defaults to fuzzy.
//	big: a large unsigned integer. Defaults to 18446744073709551615.
//
//kesoku:tool
func Defaults(word, quoted, number string, n int, ratio float64, flag bool, opt, none *int, at Point, mode Mode, big uint64) map[string]any {
	return map[string]any{"word": word, "quoted": quoted, "number": number, "n": n, "ratio": ratio, "flag": flag, "opt": opt, "none": none, "at": at, "mode": mode, "big": big}
}

// Join joins strings with a separator.
//
// Args:
//
//	sep: the separator.
//	parts: the strings to join.
//
//kesoku:tool
func Join(tc *registry.ToolContext, sep string, parts ...string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += sep
		}
		out += p
	}
	return out
}

// Filter chooses words; its fields are described and limited by tags, as
// typed registration reads them.
type Filter struct {
	Kind  string   `json:"kind" enum:"any, long" description:"Which words count."`
	Min   int      `json:"min,omitempty" description:"The shortest word that counts."`
	Modes []Mode   `json:"modes,omitempty" enum:"exact,fuzzy"`
	Langs *[]Lang  `json:"langs,omitempty" enum:"en"`
	Notes []string `json:"notes,omitempty"`
}

// Meta says where a report came from.
type Meta struct {
	// Source names the input.
	Source string `json:"source"`
}

// Stats are what Report found: every way encoding/json writes a field.
type Stats struct {
	// Count is how many words counted.
	Count int `json:"count"`
	// Mean is their mean length, null for none.
	Mean *float64 `json:"mean"`
	// Words are the words, left out when there are none.
	Words []string `json:"words,omitempty"`
	// Raw is the input as bytes, in base64.
	Raw []byte `json:"raw"`
	// Mode is a string type's value: its constants are no promise.
	Mode Mode `json:"mode"`
	// By counts words by their first letter.
	By map[string]uint16 `json:"by"`
	// When is a time, which writes itself.
	When time.Time `json:"when"`
	// Level is a number written as a string.
	Level int8 `json:"level,string"`
	// Extra is anything.
	Extra any `json:"extra,omitempty"`
	// Child is a report inside this one.
	Child  *Stats   `json:"child,omitempty"`
	Points [2]Point `json:"points"`
	*Meta
	Tagged string `json:"tagged" description:"A field described by its tag."`
	hidden int
}

// Report reports on words.
//
// Args:
//
//	words: the words.
//	filter: which words count.
//
// Returns:
//
//	what was found.
//
//kesoku:tool
func Report(words []string, filter Filter) (*Stats, error) {
	return &Stats{Count: len(words), Words: words, Mode: Exact}, nil
}

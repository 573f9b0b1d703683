package toolspec

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
)

// maxProblems bounds how many problems one call reports: a model fixes the
// first twenty as easily as the first thousand, and an array of a million
// wrong items must not become a million-line error.
const maxProblems = 20

// Validate checks a call's arguments against a tool's parameters before
// anything runs (the ToolRunner's third step). It returns nil, or an
// *ArgsError holding every problem at once: missing required arguments,
// unknown arguments, wrong types, integers out of their Go kind's range,
// values outside an enum, at any depth (`items[2].name`, `opts.mode`,
// `labels.en`).
//
// args is what a JSON or YAML decoder produced: numbers may be float64,
// json.Number or any Go integer kind; a number that is integral is an
// integer, since Gemini sends 1.0. A null optional argument counts as
// absent; a null required one is reported as missing.
//
// Validate runs once per request on the hot path: on success with flat
// arguments it allocates nothing. Only a failure builds paths and messages.
func Validate(tool string, params []*Property, args map[string]any) error {
	var v validator
	v.object(params, args, "argument")
	if len(v.problems) == 0 {
		return nil
	}
	return &ArgsError{Tool: tool, Problems: v.problems, Omitted: v.omitted}
}

// validator gathers the problems of one call.
type validator struct {
	problems []*ArgError
	omitted  int
}

func (v *validator) add(p *ArgError) {
	if len(v.problems) >= maxProblems {
		v.omitted++
		return
	}
	v.problems = append(v.problems, p)
}

// Paths are built on the way back up, and only for problems: a frame that
// descends into a member, element or map value prefixes its step to the
// paths of the problems found below it. A path carried down instead would
// have to live on the heap (the recursion defeats escape analysis), and
// success must not allocate.

// prefix puts step in front of the paths of the problems added since
// before: "name" + "[2].x" = "name[2].x", "[2]" + "name" = "[2].name".
func (v *validator) prefix(before int, step string) {
	for _, p := range v.problems[before:] {
		p.Path = joinPath(step, p.Path)
	}
}

// object checks the members of an object with declared members: the tool's
// parameters (noun "argument") or a struct's fields (noun "field").
func (v *validator) object(props []*Property, m map[string]any, noun string) {
	known := 0
	for _, p := range props {
		val, ok := m[p.Name]
		if ok {
			known++
		}
		if !ok || val == nil {
			if p.Required {
				e := &ArgError{Path: p.Name, Problem: "missing required " + noun, Expected: expected(p.Schema)}
				if ok {
					e.Got = "null"
				}
				v.add(e)
			}
			continue
		}
		before := len(v.problems)
		v.value(p.Schema, val)
		if len(v.problems) > before {
			v.prefix(before, p.Name)
		}
	}
	if known == len(m) {
		return
	}
	// Some keys name no member. They are reported in sorted order so that
	// the message is the same on every run.
	names := make([]string, len(props))
	for i, p := range props {
		names[i] = p.Name
	}
	var unknown []string
	for k := range m {
		if !slices.Contains(names, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	want := "no " + noun + "s"
	if len(names) > 0 {
		want = "one of " + strings.Join(names, ", ")
	}
	// An unknown name is likely a misspelling of one not given: {a, c}
	// for (a, b) suggests b, never a.
	var free []string
	if len(unknown) > 0 {
		for _, n := range names {
			if _, given := m[n]; !given {
				free = append(free, n)
			}
		}
	}
	for _, k := range unknown {
		v.add(&ArgError{Path: keyStep(k), Problem: "unknown " + noun, Expected: want, Suggestion: english.Suggest(k, free)})
	}
}

// value checks one non-null value against its schema.
func (v *validator) value(s *Schema, val any) {
	if s == nil {
		return
	}
	switch s.Type {
	case TypeString:
		str, ok := val.(string)
		if !ok {
			v.wrongType(s, val)
			return
		}
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, str) {
			v.add(&ArgError{
				Problem:    "not one of the allowed values",
				Expected:   "one of " + quotedList(s.Enum),
				Got:        describe(val),
				Suggestion: english.Suggest(str, s.Enum),
			})
		}
	case TypeBoolean:
		if _, ok := val.(bool); !ok {
			v.wrongType(s, val)
		}
	case TypeInteger:
		v.integer(s, val)
	case TypeNumber:
		v.number(s, val)
	case TypeArray:
		list, ok := val.([]any)
		if !ok {
			v.wrongType(s, val)
			return
		}
		for i, item := range list {
			before := len(v.problems)
			v.element(s.Items, item)
			if len(v.problems) > before {
				v.prefix(before, indexStep(i))
			}
		}
	case TypeObject:
		m, ok := val.(map[string]any)
		if !ok {
			v.wrongType(s, val)
			return
		}
		switch {
		case len(s.Properties) > 0:
			v.object(s.Properties, m, "field")
		case s.AdditionalProperties != nil:
			v.mapValues(s.AdditionalProperties, m)
		}
		// An object with neither is free-form: any members are fine.
	}
}

// element checks an array element or a map value, which may be null only
// when the Go element type is a pointer.
func (v *validator) element(s *Schema, val any) {
	if val == nil {
		if s != nil && !strings.HasPrefix(s.GoType, "*") {
			v.wrongType(s, nil)
		}
		return
	}
	v.value(s, val)
}

// mapValues checks the values of a map with string keys. Map order is
// random, so when a value is wrong the pass is redone in key order: the
// same input always gives the same message.
func (v *validator) mapValues(elem *Schema, m map[string]any) {
	before, omitted := len(v.problems), v.omitted
	for _, item := range m {
		v.element(elem, item)
	}
	if len(v.problems) == before && v.omitted == omitted {
		return
	}
	v.problems, v.omitted = v.problems[:before], omitted
	for _, k := range slices.Sorted(maps.Keys(m)) {
		at := len(v.problems)
		v.element(elem, m[k])
		if len(v.problems) > at {
			v.prefix(at, keyStep(k))
		}
	}
}

func (v *validator) wrongType(s *Schema, val any) {
	v.add(&ArgError{Problem: "wrong type", Expected: expected(s), Got: describe(val)})
}

// integer checks an integer: any Go integer kind, a float that is integral,
// or a json.Number that holds one, within the range of the parameter's Go
// kind.
func (v *validator) integer(s *Schema, val any) {
	neg, mag, res := asInteger(val)
	switch res {
	case notNumber, notIntegral:
		v.wrongType(s, val)
		return
	}
	negMag, hi := intBounds(s.numKind())
	if outOfRange(neg, mag, res, negMag, hi) {
		v.add(&ArgError{Problem: "out of range", Expected: rangeText(expected(s), negMag, hi), Got: describe(val)})
	}
}

// number checks a number: any Go numeric kind or a json.Number, finite, and
// within float32's range for a float32.
func (v *validator) number(s *Schema, val any) {
	f, ok := asFloat(val)
	if !ok {
		v.wrongType(s, val)
		return
	}
	// A float32 takes what rounds to a finite float32, as DecodeFloat and
	// encoding/json do: 3.4028235e38, the way Go prints its maximum, is
	// a little above math.MaxFloat32 and still fits.
	outside := math.IsNaN(f) || math.IsInf(f, 0)
	if s.numKind() == "float32" {
		outside = outside || math.IsInf(float64(float32(f)), 0)
	}
	if outside {
		v.add(&ArgError{Problem: "out of range", Expected: "a finite " + expected(s), Got: describe(val)})
	}
}

// expected describes what a schema accepts, in the words a model reads:
// "integer (int32)", "array of string", "string, one of "a", "b"".
func expected(s *Schema) string {
	if s == nil {
		return "any value"
	}
	goType := strings.TrimLeft(s.GoType, "*")
	switch s.Type {
	case TypeInteger, TypeNumber:
		if goType != "" {
			return fmt.Sprintf("%s (%s)", s.Type, goType)
		}
	case TypeString:
		if len(s.Enum) > 0 {
			return "string, one of " + quotedList(s.Enum)
		}
	case TypeArray:
		if s.Items != nil {
			return "array of " + expected(s.Items)
		}
	case TypeObject:
		switch {
		case len(s.Properties) > 0:
			names := make([]string, len(s.Properties))
			for i, p := range s.Properties {
				names[i] = p.Name
			}
			return "object with fields " + strings.Join(names, ", ")
		case s.AdditionalProperties != nil:
			return "object with " + expected(s.AdditionalProperties) + " values"
		}
	}
	return string(s.Type)
}

package toolsource

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/jsonschema"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// The validator is kesoku's own internal/jsonschema because of what a
// model reads when its call is wrong, and of what every command pays at
// start-up. Its errors are structured (where in the arguments, which
// keyword, what came and what was wanted, every problem at once), which
// become toolspec.ArgErrors that say "args.limit: wrong type: expected
// integer, got string "5"" exactly as for a Go tool; google/jsonschema-go,
// which the MCP SDK links, returns one string for the first problem and
// reads draft-07 and 2020-12 only, where MCP servers declare draft-04 too.
// santhosh-tekuri/jsonschema, which has such errors, compiles five
// drafts' meta-schemas in its package init: 1.7 MB and about 6 ms of
// every kesoku process, schema or none (bench/RESULTS.md).

// argSchema is a tool's parameters schema, compiled: what checks a call's
// arguments before anything runs.
type argSchema struct {
	tool string
	// raw is the schema as compact JSON, as every export format sends it.
	raw json.RawMessage
	// doc is the schema decoded, for describing its parts in messages.
	doc map[string]any

	// compile compiles the schema, once: at once for a command tool,
	// whose mistakes are the declaration's; at the first check for an MCP
	// server's tool, so that a server of 10,000 tools is listed without
	// compiling a schema no call uses.
	compile func() (*jsonschema.Schema, error)
}

// schemaError is a schema that cannot check anything. Pointer is where in
// the schema the mistake is, as JSON pointer tokens, nil when unknown, so
// that a declaration in a config file can name its line.
type schemaError struct {
	Pointer []string
	Msg     string
}

func (e *schemaError) Error() string { return e.Msg }

// compileArgSchema compiles raw, the JSON Schema of a tool's arguments.
// The schema must be an object of type object: arguments are an object,
// and every provider wants one. A reference to another document is
// refused, never fetched: a schema is checked with what it holds.
//
// With lenient, a pattern that Go's regexp cannot compile (a lookahead in
// an ECMAScript pattern of a server written in TypeScript) checks nothing
// rather than refusing the whole tool: the server checks it anyway.
// Without it, such a pattern is a mistake to report.
//
// A lenient schema (an MCP server's) is compiled at its first check: a
// schema that does not compile fails the calls of its tool, saying so.
// A strict one (a command tool's) is compiled here, and its mistakes are
// the declaration's.
func compileArgSchema(tool string, raw []byte, lenient bool) (*argSchema, error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return nil, &schemaError{Msg: fmt.Sprintf("not JSON: %v", err)}
	}
	doc, err := jsonschema.Decode(compact.Bytes())
	if err != nil {
		return nil, &schemaError{Msg: fmt.Sprintf("not JSON: %v", err)}
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, &schemaError{Msg: fmt.Sprintf("want a JSON Schema object describing the arguments, not %s", toolspec.Describe(plainNumbers(doc)))}
	}
	switch t := obj["type"].(type) {
	case string:
		if t != "object" {
			return nil, &schemaError{Pointer: []string{"type"}, Msg: fmt.Sprintf("type %q: want type object: the arguments are an object", t)}
		}
	case nil:
		return nil, &schemaError{Msg: "no type: want type object: the arguments are an object"}
	default:
		return nil, &schemaError{Pointer: []string{"type"}, Msg: "type: want type object: the arguments are an object"}
	}
	a := &argSchema{tool: tool, raw: compact.Bytes(), doc: obj}
	a.compile = sync.OnceValues(func() (*jsonschema.Schema, error) {
		loc := "mem:///" + url.PathEscape(tool) + ".json"
		sch, err := jsonschema.Compile(loc, doc, jsonschema.Options{Draft: jsonschema.Draft2020, Regexp: regexpEngine(lenient)})
		if err != nil {
			return nil, compileError(err)
		}
		return sch, nil
	})
	if !lenient {
		if _, err := a.compile(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// regexpEngine compiles patterns with Go's regexp; see compileArgSchema
// for lenient.
func regexpEngine(lenient bool) func(string) (jsonschema.Regexp, error) {
	return func(s string) (jsonschema.Regexp, error) {
		re, err := regexp.Compile(s)
		if err != nil {
			if lenient {
				return anyText(s), nil
			}
			return nil, fmt.Errorf("pattern %q: Go's regexp (RE2) cannot compile it: %w", s, err)
		}
		return re, nil
	}
}

// anyText is a pattern left to the server to check.
type anyText string

func (anyText) MatchString(string) bool { return true }
func (a anyText) String() string        { return string(a) }

// compileError is err, from compiling a schema, as a schemaError that
// says where. A $ref to another file or URL is a mistake to report, not
// a request kesoku makes.
func compileError(err error) error {
	var se *jsonschema.SchemaError
	if !errors.As(err, &se) {
		return &schemaError{Msg: err.Error()}
	}
	var re *jsonschema.RefError
	var pe *jsonschema.PatternError
	switch {
	case errors.As(err, &re):
		return &schemaError{Pointer: se.Pointer, Msg: fmt.Sprintf("%s: %q: a schema may refer only to its own parts ($defs) and to the drafts' meta-schemas, not to other documents", pointerText(se.Pointer), re.URL)}
	case errors.As(err, &pe):
		return &schemaError{Pointer: se.Pointer, Msg: pe.Err.Error()}
	}
	return &schemaError{Pointer: se.Pointer, Msg: fmt.Sprintf("%s: not a valid JSON Schema: %v", pointerText(se.Pointer), se.Err)}
}

func pointerText(p []string) string {
	if len(p) == 0 {
		return "the schema"
	}
	return strings.Join(p, ".")
}

// check validates a call's arguments: nil, or a *toolspec.ArgsError that
// names every problem by its path, says what was expected and what came,
// and suggests the likely name for a misspelt one, as Validate does for a
// Go tool.
func (a *argSchema) check(args map[string]any) error {
	sch, err := a.compile()
	if err != nil {
		return fmt.Errorf("the input schema of %s cannot check arguments: %w", a.tool, err)
	}
	err = sch.Validate(args)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &toolspec.ArgsError{Tool: a.tool, Problems: []*toolspec.ArgError{{Problem: "invalid arguments", Err: err}}}
	}
	p := problems{schema: a, args: args}
	p.walk(ve)
	slices.SortStableFunc(p.out, func(x, y *toolspec.ArgError) int { return strings.Compare(x.Path, y.Path) })
	// A misspelt name may be refused twice: as a near miss of a required
	// one, and by additionalProperties.
	p.out = slices.CompactFunc(p.out, func(x, y *toolspec.ArgError) bool { return x.Error() == y.Error() })
	const most = 20 // as toolspec.Validate: enough to fix a call in one try
	out := &toolspec.ArgsError{Tool: a.tool, Problems: p.out}
	if len(out.Problems) > most {
		out.Omitted, out.Problems = len(out.Problems)-most, out.Problems[:most]
	}
	return out
}

// problems turns a validation error tree into ArgErrors.
type problems struct {
	schema *argSchema
	args   map[string]any
	out    []*toolspec.ArgError
}

func (p *problems) walk(e *jsonschema.ValidationError) {
	switch k := e.Kind.(type) {
	case *jsonschema.Group:
		for _, c := range e.Causes {
			p.walk(c)
		}
	case *jsonschema.Required:
		// A schema that leaves other names open let a misspelt one
		// through: the one given that is a near miss of a name missing is
		// named, as a Go tool's unknown argument is, with the likely name.
		declared := p.declared(e.SchemaPointer)
		var undeclared []string
		if m, ok := p.value(e.InstanceLocation).(map[string]any); ok {
			for name := range m {
				if !slices.Contains(declared, name) {
					undeclared = append(undeclared, name)
				}
			}
			slices.Sort(undeclared)
		}
		for _, m := range k.Missing {
			at := append(slices.Clip(e.InstanceLocation), m)
			p.add(at, &toolspec.ArgError{Problem: "missing required " + p.noun(at), Expected: p.expected(e.SchemaPointer, "properties", m)})
			for _, name := range undeclared {
				if english.Suggest(name, []string{m}) == m {
					at := append(slices.Clip(e.InstanceLocation), name)
					p.add(at, &toolspec.ArgError{Problem: "unknown " + p.noun(at), Expected: "one of " + strings.Join(declared, ", "), Suggestion: m})
				}
			}
		}
	case *jsonschema.AdditionalProperties, *jsonschema.UnevaluatedProperties:
		names := additional(k)
		declared := p.declared(e.SchemaPointer)
		given := p.value(e.InstanceLocation)
		var free []string
		if m, ok := given.(map[string]any); ok {
			for _, d := range declared {
				if _, ok := m[d]; !ok {
					free = append(free, d)
				}
			}
		}
		want := "no " + p.noun(append(slices.Clip(e.InstanceLocation), "")) + "s"
		if len(declared) > 0 {
			want = "one of " + strings.Join(declared, ", ")
		}
		for _, name := range names {
			at := append(slices.Clip(e.InstanceLocation), name)
			p.add(at, &toolspec.ArgError{Problem: "unknown " + p.noun(at), Expected: want, Suggestion: english.Suggest(name, free)})
		}
	case *jsonschema.Type:
		p.add(e.InstanceLocation, &toolspec.ArgError{Problem: "wrong type", Expected: p.expectedAt(e.SchemaPointer, strings.Join(k.Want, " or ")), Got: p.got(e.InstanceLocation)})
	case *jsonschema.FalseSchema:
		p.add(e.InstanceLocation, &toolspec.ArgError{Problem: "not allowed", Expected: "no " + p.noun(e.InstanceLocation), Got: p.got(e.InstanceLocation)})
	case *jsonschema.PropertyName:
		p.add(e.InstanceLocation, &toolspec.ArgError{Problem: "not an allowed " + p.noun(e.InstanceLocation) + " name (" + causes(e) + ")"})
	case *jsonschema.Enum:
		ae := &toolspec.ArgError{Problem: "not one of the allowed values", Expected: "one of " + values(k.Want), Got: p.got(e.InstanceLocation)}
		if s, ok := k.Got.(string); ok {
			ae.Suggestion = english.Suggest(s, stringsOf(k.Want))
		}
		p.add(e.InstanceLocation, ae)
	case *jsonschema.Const:
		p.add(e.InstanceLocation, &toolspec.ArgError{Problem: "not the allowed value", Expected: values([]any{k.Want}), Got: p.got(e.InstanceLocation)})
	case *jsonschema.AnyOf, *jsonschema.OneOf:
		var alts []string
		for _, c := range e.Causes {
			alts = append(alts, c.Text())
		}
		problem := "matches none of the allowed forms"
		if o, ok := k.(*jsonschema.OneOf); ok && len(o.Subschemas) > 1 {
			problem = fmt.Sprintf("matches more than one of the allowed forms (%s of oneOf)", strings.Trim(fmt.Sprint(o.Subschemas), "[]"))
		}
		ae := &toolspec.ArgError{Problem: problem, Got: p.got(e.InstanceLocation)}
		if len(alts) > 0 {
			ae.Problem += " (" + strings.Join(slices.Compact(alts), "; ") + ")"
		}
		p.add(e.InstanceLocation, ae)
	default:
		ae := bound(e.Kind)
		if ae == nil {
			ae = &toolspec.ArgError{Problem: e.Kind.String()}
		}
		ae.Got = p.got(e.InstanceLocation)
		p.add(e.InstanceLocation, ae)
	}
}

// bound words the common limits as toolspec.Validate words a range: the
// problem, then what was expected; nil for a kind without words of our
// own.
func bound(k jsonschema.Kind) *toolspec.ArgError {
	switch k := k.(type) {
	case *jsonschema.Minimum:
		return &toolspec.ArgError{Problem: "out of range", Expected: "a number of at least " + ratText(k.Want)}
	case *jsonschema.Maximum:
		return &toolspec.ArgError{Problem: "out of range", Expected: "a number of at most " + ratText(k.Want)}
	case *jsonschema.ExclusiveMinimum:
		return &toolspec.ArgError{Problem: "out of range", Expected: "a number above " + ratText(k.Want)}
	case *jsonschema.ExclusiveMaximum:
		return &toolspec.ArgError{Problem: "out of range", Expected: "a number below " + ratText(k.Want)}
	case *jsonschema.MultipleOf:
		return &toolspec.ArgError{Problem: "not a multiple", Expected: "a multiple of " + ratText(k.Want)}
	case *jsonschema.MinLength:
		return &toolspec.ArgError{Problem: "too short", Expected: fmt.Sprintf("a string of at least %d characters", k.Want)}
	case *jsonschema.MaxLength:
		return &toolspec.ArgError{Problem: "too long", Expected: fmt.Sprintf("a string of at most %d characters", k.Want)}
	case *jsonschema.MinItems:
		return &toolspec.ArgError{Problem: "too few items", Expected: fmt.Sprintf("an array of at least %d items", k.Want)}
	case *jsonschema.MaxItems:
		return &toolspec.ArgError{Problem: "too many items", Expected: fmt.Sprintf("an array of at most %d items", k.Want)}
	case *jsonschema.Pattern:
		return &toolspec.ArgError{Problem: "does not match the pattern", Expected: "a string matching " + k.Want}
	case *jsonschema.Format:
		return &toolspec.ArgError{Problem: "not a valid " + k.Want, Expected: k.Want}
	}
	return nil
}

// ratText writes a bound as a decimal: 0.5, not 1/2.
func ratText(r *big.Rat) string {
	if r.IsInt() && r.Num().IsInt64() {
		return r.Num().String()
	}
	return new(big.Float).SetPrec(64).SetRat(r).Text('g', -1)
}

// additional are the property names an additionalProperties or
// unevaluatedProperties refused.
func additional(k jsonschema.Kind) []string {
	if a, ok := k.(*jsonschema.AdditionalProperties); ok {
		return a.Properties
	}
	return k.(*jsonschema.UnevaluatedProperties).Properties
}

// causes are the problems under e, in words.
func causes(e *jsonschema.ValidationError) string {
	parts := make([]string, len(e.Causes))
	for i, c := range e.Causes {
		parts[i] = c.Text()
	}
	return strings.Join(parts, "; ")
}

// add sets ae's path from the instance location at and keeps it.
func (p *problems) add(at []string, ae *toolspec.ArgError) {
	ae.Path = p.path(at)
	p.out = append(p.out, ae)
}

// path writes an instance location as registry paths are written:
// `items[2].name`, `labels["a b"]`.
func (p *problems) path(at []string) string {
	var err error = &toolspec.ArgError{}
	// Inside out, as the registry builds its paths.
	for i := len(at) - 1; i >= 0; i-- {
		parent := p.value(at[:i])
		switch {
		case i == 0:
			err = toolspec.ArgAt(err, at[0])
		case isList(parent):
			n, _ := strconv.Atoi(at[i])
			err = toolspec.ArgAtIndex(err, n)
		default:
			err = toolspec.ArgAtKey(err, at[i])
		}
	}
	return err.(*toolspec.ArgError).Path
}

func isList(v any) bool {
	_, ok := v.([]any)
	return ok
}

// noun is what the value at is called: an argument at the top, a field
// below.
func (p *problems) noun(at []string) string {
	if len(at) <= 1 {
		return "argument"
	}
	return "field"
}

// value is the value at the instance location at, nil when there is none.
func (p *problems) value(at []string) any {
	v, _ := jsonschema.At(p.args, at)
	return v
}

func (p *problems) got(at []string) string { return toolspec.Describe(plainNumbers(p.value(at))) }

// sub is the part of the schema at ptr (JSON pointer tokens) and the
// tokens more below it, nil when it is not an object of the document.
func (p *problems) sub(ptr []string, more ...string) map[string]any {
	v, _ := jsonschema.At(p.schema.doc, append(slices.Clip(ptr), more...))
	m, _ := v.(map[string]any)
	return m
}

// declared are the names of the properties the object schema at ptr
// declares, sorted.
func (p *problems) declared(ptr []string) []string {
	props, _ := p.sub(ptr)["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// expected describes the schema at ptr (and the tokens more below it),
// "" when there is nothing to say.
func (p *problems) expected(ptr []string, more ...string) string {
	return describeSchema(p.sub(ptr, more...))
}

// expectedAt is expected for the schema at ptr, or fallback when it says
// nothing more than fallback.
func (p *problems) expectedAt(ptr []string, fallback string) string {
	if d := p.expected(ptr); d != "" {
		return d
	}
	return fallback
}

// describeSchema says what a schema accepts, in the words of
// toolspec.Validate: "integer", "string, one of "a", "b"", "array of
// string", "object with fields a, b".
func describeSchema(s map[string]any) string {
	if s == nil {
		return ""
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		t, _ := s["type"].(string)
		if t == "" {
			return "one of " + values(enum)
		}
		return t + ", one of " + values(enum)
	}
	var t string
	switch x := s["type"].(type) {
	case string:
		t = x
	case []any:
		parts := make([]string, 0, len(x))
		for _, v := range x {
			if s, ok := v.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, " or ")
	}
	switch t {
	case "array":
		if items, ok := s["items"].(map[string]any); ok {
			if d := describeSchema(items); d != "" {
				return "array of " + d
			}
		}
	case "object":
		if props, ok := s["properties"].(map[string]any); ok && len(props) > 0 {
			names := make([]string, 0, len(props))
			for n := range props {
				names = append(names, n)
			}
			slices.Sort(names)
			return "object with fields " + strings.Join(names, ", ")
		}
	}
	return t
}

// values writes the allowed values of an enum as JSON: `"a", "b", 3`.
func values(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		b, err := json.Marshal(plainNumbers(v))
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		parts[i] = string(b)
	}
	return strings.Join(parts, ", ")
}

func stringsOf(vs []any) []string {
	var out []string
	for _, v := range vs {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// plainNumbers turns the library's *big.Rat and json.Number into what the
// registry's words describe; other values are left as they are.
func plainNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if f, err := x.Float64(); err == nil {
			return f
		}
	case interface{ Float64() (float64, bool) }:
		f, _ := x.Float64()
		return f
	}
	return v
}

// params describes the top-level properties of the schema as registry
// parameters, in the order the schema declares them: what tools list
// shows. Exports and checks use the schema itself.
func (a *argSchema) params() []*toolspec.Property {
	props, _ := a.doc["properties"].(map[string]any)
	if len(props) == 0 {
		return nil
	}
	required := map[string]bool{}
	if req, ok := a.doc["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	var out []*toolspec.Property
	for _, name := range propertyOrder(a.raw) {
		s, _ := props[name].(map[string]any)
		out = append(out, &toolspec.Property{Name: name, Required: required[name], Schema: listedSchema(s)})
	}
	return out
}

// listedSchema is as much of a property's schema as a listing shows.
func listedSchema(s map[string]any) *toolspec.Schema {
	if s == nil {
		return nil
	}
	out := &toolspec.Schema{}
	switch t := s["type"].(type) {
	case string:
		out.Type = toolspec.Type(t)
	case []any:
		// ["string", "null"]: the type that is not null.
		for _, v := range t {
			if v, ok := v.(string); ok && v != "null" {
				out.Type = toolspec.Type(v)
				break
			}
		}
	}
	if out.Type == "" {
		return nil // anyOf, $ref: "any" is the honest short name
	}
	out.Description, _ = s["description"].(string)
	if enum, ok := s["enum"].([]any); ok {
		out.Enum = stringsOf(enum)
	}
	if d, ok := s["default"]; ok {
		if b, err := json.Marshal(plainNumbers(d)); err == nil {
			out.Default = b
		}
	}
	if items, ok := s["items"].(map[string]any); ok && out.Type == toolspec.TypeArray {
		out.Items = listedSchema(items)
	}
	return out
}

// propertyOrder returns the names of the top-level properties of a JSON
// Schema object in the order it writes them, which decoding into a map
// loses.
func propertyOrder(raw []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "properties" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return nil
		}
		var names []string
		for dec.More() {
			name, err := dec.Token()
			if err != nil {
				return names
			}
			s, _ := name.(string)
			names = append(names, s)
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return names
			}
		}
		return names
	}
	return nil
}

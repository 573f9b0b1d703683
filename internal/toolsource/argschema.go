package toolsource

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/kesoku/kesoku/registry"
)

// The validator is santhosh-tekuri/jsonschema/v6 rather than
// google/jsonschema-go, which the MCP SDK uses, because of what a model
// reads when its call is wrong. Its errors are structured (where in the
// arguments, which keyword, what came and what was wanted, every problem
// at once), which become registry.ArgErrors that say "args.limit: wrong
// type: expected integer, got string "5"" exactly as for a Go tool;
// jsonschema-go returns one formatted string for the first problem. It
// also reads every draft MCP servers declare (zod-made schemas name
// draft-07, older ones draft-04), where jsonschema-go reads draft-07 and
// 2020-12 only. It passes the JSON-Schema-Test-Suite, and needs nothing
// beyond golang.org/x/text, which kesoku links already.

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
	// server's tool (compiling checks a schema against its metaschema,
	// which for a server of 10,000 tools took seconds before any call).
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
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(compact.Bytes()))
	if err != nil {
		return nil, &schemaError{Msg: fmt.Sprintf("not JSON: %v", err)}
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, &schemaError{Msg: fmt.Sprintf("want a JSON Schema object describing the arguments, not %s", registry.Describe(plainNumbers(doc)))}
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
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.UseLoader(noLoader{})
		c.UseRegexpEngine(regexpEngine(lenient))
		loc := "mem:///" + url.PathEscape(tool) + ".json"
		if err := c.AddResource(loc, doc); err != nil {
			return nil, &schemaError{Msg: err.Error()}
		}
		sch, err := c.Compile(loc)
		if err != nil {
			return nil, compileError(loc, err)
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

// noLoader loads no document: a $ref to another file or URL is a mistake
// to report, not a request kesoku makes.
type noLoader struct{}

func (noLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("%s: a schema may refer only to its own parts ($defs), not to other documents", u)
}

// regexpEngine compiles patterns with Go's regexp; see compileArgSchema
// for lenient.
func regexpEngine(lenient bool) jsonschema.RegexpEngine {
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

// compileError is err, from compiling the schema at loc, as a
// schemaError that says where.
func compileError(loc string, err error) error {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			leaf := firstLeaf(ve)
			return &schemaError{Pointer: leaf.InstanceLocation, Msg: fmt.Sprintf("%s: not a valid JSON Schema: %s", pointerText(leaf.InstanceLocation), leaf.ErrorKind.LocalizedString(printer))}
		}
	}
	msg := strings.ReplaceAll(err.Error(), loc+"#", "the schema ")
	msg = strings.ReplaceAll(msg, loc, "the schema")
	var ire *jsonschema.InvalidRegexError
	if errors.As(err, &ire) {
		return &schemaError{Pointer: pointerTokens(ire.URL, loc), Msg: ire.Err.Error()}
	}
	return &schemaError{Msg: msg}
}

// firstLeaf is the first error without causes, where the mistake is.
func firstLeaf(e *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(e.Causes) > 0 {
		e = e.Causes[0]
	}
	return e
}

// pointerTokens are the JSON pointer tokens of a schema location u, a
// location in the document at loc.
func pointerTokens(u, loc string) []string {
	frag, ok := strings.CutPrefix(u, loc+"#")
	if !ok || frag == "" {
		return nil
	}
	var out []string
	for _, t := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if s, err := url.PathUnescape(t); err == nil {
			t = s
		}
		out = append(out, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	return out
}

func pointerText(p []string) string {
	if len(p) == 0 {
		return "the schema"
	}
	return strings.Join(p, ".")
}

// printer renders the library's messages for kinds without words of our
// own.
var printer = message.NewPrinter(language.English)

// check validates a call's arguments: nil, or a *registry.ArgsError that
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
		return &registry.ArgsError{Tool: a.tool, Problems: []*registry.ArgError{{Problem: "invalid arguments", Err: err}}}
	}
	p := problems{schema: a, args: args}
	p.walk(ve)
	slices.SortStableFunc(p.out, func(x, y *registry.ArgError) int { return strings.Compare(x.Path, y.Path) })
	const most = 20 // as registry.Validate: enough to fix a call in one try
	out := &registry.ArgsError{Tool: a.tool, Problems: p.out}
	if len(out.Problems) > most {
		out.Omitted, out.Problems = len(out.Problems)-most, out.Problems[:most]
	}
	return out
}

// problems turns a validation error tree into ArgErrors.
type problems struct {
	schema *argSchema
	args   map[string]any
	out    []*registry.ArgError
}

func (p *problems) walk(e *jsonschema.ValidationError) {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.AllOf, *kind.Reference, *kind.RefCycle:
		for _, c := range e.Causes {
			p.walk(c)
		}
		if len(e.Causes) == 0 {
			p.add(e.InstanceLocation, &registry.ArgError{Problem: e.ErrorKind.LocalizedString(printer)})
		}
	case *kind.Required:
		for _, m := range k.Missing {
			at := append(slices.Clip(e.InstanceLocation), m)
			p.add(at, &registry.ArgError{Problem: "missing required " + p.noun(at), Expected: p.expected(e.SchemaURL, "properties", m)})
		}
	case *kind.AdditionalProperties:
		declared := p.declared(e.SchemaURL)
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
		for _, name := range k.Properties {
			at := append(slices.Clip(e.InstanceLocation), name)
			p.add(at, &registry.ArgError{Problem: "unknown " + p.noun(at), Expected: want, Suggestion: registry.Suggest(name, free)})
		}
	case *kind.Type:
		p.add(e.InstanceLocation, &registry.ArgError{Problem: "wrong type", Expected: p.expectedAt(e.SchemaURL, strings.Join(k.Want, " or ")), Got: p.got(e.InstanceLocation)})
	case *kind.Enum:
		ae := &registry.ArgError{Problem: "not one of the allowed values", Expected: "one of " + values(k.Want), Got: p.got(e.InstanceLocation)}
		if s, ok := k.Got.(string); ok {
			ae.Suggestion = registry.Suggest(s, stringsOf(k.Want))
		}
		p.add(e.InstanceLocation, ae)
	case *kind.Const:
		p.add(e.InstanceLocation, &registry.ArgError{Problem: "not the allowed value", Expected: values([]any{k.Want}), Got: p.got(e.InstanceLocation)})
	case *kind.AnyOf, *kind.OneOf:
		var alts []string
		for _, c := range e.Causes {
			alts = append(alts, c.ErrorKind.LocalizedString(printer))
		}
		problem := "matches none of the allowed forms"
		if o, ok := k.(*kind.OneOf); ok && len(o.Subschemas) > 1 {
			problem = fmt.Sprintf("matches more than one of the allowed forms (%s of oneOf)", strings.Trim(fmt.Sprint(o.Subschemas), "[]"))
		}
		ae := &registry.ArgError{Problem: problem, Got: p.got(e.InstanceLocation)}
		if len(alts) > 0 {
			ae.Problem += " (" + strings.Join(slices.Compact(alts), "; ") + ")"
		}
		p.add(e.InstanceLocation, ae)
	default:
		ae := bound(e.ErrorKind)
		if ae == nil {
			ae = &registry.ArgError{Problem: e.ErrorKind.LocalizedString(printer)}
		}
		ae.Got = p.got(e.InstanceLocation)
		p.add(e.InstanceLocation, ae)
	}
}

// bound words the common limits as registry.Validate words a range: the
// problem, then what was expected; nil for a kind without words of our
// own.
func bound(k jsonschema.ErrorKind) *registry.ArgError {
	rat := func(r interface{ RatString() string }) string { return r.RatString() }
	switch k := k.(type) {
	case *kind.Minimum:
		return &registry.ArgError{Problem: "out of range", Expected: "a number of at least " + rat(k.Want)}
	case *kind.Maximum:
		return &registry.ArgError{Problem: "out of range", Expected: "a number of at most " + rat(k.Want)}
	case *kind.ExclusiveMinimum:
		return &registry.ArgError{Problem: "out of range", Expected: "a number above " + rat(k.Want)}
	case *kind.ExclusiveMaximum:
		return &registry.ArgError{Problem: "out of range", Expected: "a number below " + rat(k.Want)}
	case *kind.MultipleOf:
		return &registry.ArgError{Problem: "not a multiple", Expected: "a multiple of " + rat(k.Want)}
	case *kind.MinLength:
		return &registry.ArgError{Problem: "too short", Expected: fmt.Sprintf("a string of at least %d characters", k.Want)}
	case *kind.MaxLength:
		return &registry.ArgError{Problem: "too long", Expected: fmt.Sprintf("a string of at most %d characters", k.Want)}
	case *kind.MinItems:
		return &registry.ArgError{Problem: "too few items", Expected: fmt.Sprintf("an array of at least %d items", k.Want)}
	case *kind.MaxItems:
		return &registry.ArgError{Problem: "too many items", Expected: fmt.Sprintf("an array of at most %d items", k.Want)}
	case *kind.Pattern:
		return &registry.ArgError{Problem: "does not match the pattern", Expected: "a string matching " + k.Want}
	case *kind.Format:
		return &registry.ArgError{Problem: "not a valid " + k.Want, Expected: k.Want}
	}
	return nil
}

// add sets ae's path from the instance location at and keeps it.
func (p *problems) add(at []string, ae *registry.ArgError) {
	ae.Path = p.path(at)
	p.out = append(p.out, ae)
}

// path writes an instance location as registry paths are written:
// `items[2].name`, `labels["a b"]`.
func (p *problems) path(at []string) string {
	var err error = &registry.ArgError{}
	// Inside out, as the registry builds its paths.
	for i := len(at) - 1; i >= 0; i-- {
		parent := p.value(at[:i])
		switch {
		case i == 0:
			err = registry.ArgAt(err, at[0])
		case isList(parent):
			n, _ := strconv.Atoi(at[i])
			err = registry.ArgAtIndex(err, n)
		default:
			err = registry.ArgAtKey(err, at[i])
		}
	}
	return err.(*registry.ArgError).Path
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
	var v any = p.args
	for _, t := range at {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

func (p *problems) got(at []string) string { return registry.Describe(plainNumbers(p.value(at))) }

// sub is the part of the schema at the location u (a schema URL), nil
// when it is not in the document.
func (p *problems) sub(u string, more ...string) map[string]any {
	i := strings.IndexByte(u, '#')
	if i < 0 {
		return nil
	}
	var v any = p.schema.doc
	for _, t := range append(pointerTokens(u, u[:i]), more...) {
		switch x := v.(type) {
		case map[string]any:
			v = x[t]
		case []any:
			n, err := strconv.Atoi(t)
			if err != nil || n < 0 || n >= len(x) {
				return nil
			}
			v = x[n]
		default:
			return nil
		}
	}
	m, _ := v.(map[string]any)
	return m
}

// declared are the names of the properties the object schema at u
// declares, sorted.
func (p *problems) declared(u string) []string {
	props, _ := p.sub(u)["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// expected describes the schema at u (and the tokens more below it), ""
// when there is nothing to say.
func (p *problems) expected(u string, more ...string) string {
	return describeSchema(p.sub(u, more...))
}

// expectedAt is expected for the schema at u, or fallback when it says
// nothing more than fallback.
func (p *problems) expectedAt(u, fallback string) string {
	if d := p.expected(u); d != "" {
		return d
	}
	return fallback
}

// describeSchema says what a schema accepts, in the words of
// registry.Validate: "integer", "string, one of "a", "b"", "array of
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
func (a *argSchema) params() []*registry.Property {
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
	var out []*registry.Property
	for _, name := range propertyOrder(a.raw) {
		s, _ := props[name].(map[string]any)
		out = append(out, &registry.Property{Name: name, Required: required[name], Schema: listedSchema(s)})
	}
	return out
}

// listedSchema is as much of a property's schema as a listing shows.
func listedSchema(s map[string]any) *registry.Schema {
	if s == nil {
		return nil
	}
	out := &registry.Schema{}
	switch t := s["type"].(type) {
	case string:
		out.Type = registry.Type(t)
	case []any:
		// ["string", "null"]: the type that is not null.
		for _, v := range t {
			if v, ok := v.(string); ok && v != "null" {
				out.Type = registry.Type(v)
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
	if items, ok := s["items"].(map[string]any); ok && out.Type == registry.TypeArray {
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

package jsonschema

import (
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// schema is a compiled subschema: its keywords read and checked.
type schema struct {
	ptr   []string
	res   *resource
	draft Draft
	// boolean is the schema true or false; nil for an object.
	boolean *bool

	ref          *schema
	refOnly      bool // before 2019-09: the keywords beside $ref are ignored
	dynamicRef   *schema
	dynamicName  string // the anchor of $dynamicRef, when it may move
	recursiveRef bool

	types    []string
	enum     []any
	hasConst bool
	constant any

	multipleOf, minimum, maximum, exclusiveMinimum, exclusiveMaximum *big.Rat

	minLength, maxLength int // -1: none
	pattern              Regexp
	format               string
	formatCheck          func(string) error

	minItems, maxItems int
	uniqueItems        bool
	prefixItems        []*schema
	rest               *schema // items after prefixItems (additionalItems before 2020-12)
	restIsItems        bool    // rest is items itself, for no prefix
	contains           *schema
	minContains        int // -1: none (1 when contains is there)
	maxContains        int

	minProperties, maxProperties int
	required                     []string
	properties                   map[string]*schema
	patternProperties            []patternProperty
	additionalProperties         *schema
	propertyNames                *schema
	dependentRequired            map[string][]string
	dependentSchemas             map[string]*schema

	allOf, anyOf, oneOf []*schema
	not                 *schema
	ifS, thenS, elseS   *schema

	unevaluatedProperties, unevaluatedItems *schema
}

type patternProperty struct {
	re Regexp
	s  *schema
}

var jsonTypes = [...]string{"array", "boolean", "integer", "null", "number", "object", "string"}

// compile reads the keywords of v, the subschema at n.ptr, into n.
func (c *compiler) compile(n *schema, v any, p *place) error {
	n.minLength, n.maxLength, n.minItems, n.maxItems = -1, -1, -1, -1
	n.minContains, n.maxContains, n.minProperties, n.maxProperties = -1, -1, -1, -1
	if b, ok := v.(bool); ok && (p.draft >= Draft6 || boolKeyword(n.ptr)) {
		n.boolean = &b
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		want := "an object or a boolean"
		if p.draft == Draft4 {
			want = "an object"
		}
		return bad(n.ptr, "a schema is %s, not %s", want, typeOf(v))
	}
	k := keywords{c: c, n: n, obj: obj, p: p}
	if ref, ok := obj["$ref"]; ok {
		s, err := k.reference("$ref", ref)
		if err != nil {
			return err
		}
		n.ref = s
		if p.draft <= Draft7 {
			n.refOnly = true
			return nil
		}
	}
	if p.draft == Draft2019 {
		if r, ok := obj["$recursiveRef"]; ok {
			if r != "#" {
				return bad(with(n.ptr, "$recursiveRef"), `want "#", the only value 2019-09 allows`)
			}
			n.recursiveRef = true
		}
	}
	if p.draft == Draft2020 {
		if r, ok := obj["$dynamicRef"]; ok {
			s, err := k.reference("$dynamicRef", r)
			if err != nil {
				return err
			}
			n.dynamicRef = s
			// The reference may move with the dynamic scope only when it
			// names an anchor that its first target declares dynamic.
			ref := r.(string)
			if i := strings.IndexByte(ref, '#'); i >= 0 {
				name := ref[i+1:]
				if !strings.HasPrefix(name, "/") {
					if d, ok := c.at(s.ptr).(map[string]any); ok && d["$dynamicAnchor"] == name {
						n.dynamicName = name
					}
				}
			}
		}
	}
	return k.read()
}

// boolKeyword reports whether ptr is where draft-04 allows a boolean:
// additionalProperties and additionalItems.
func boolKeyword(ptr []string) bool {
	if len(ptr) == 0 {
		return false
	}
	last := ptr[len(ptr)-1]
	return last == "additionalProperties" || last == "additionalItems"
}

// keywords reads one subschema's keywords, checking each value.
type keywords struct {
	c   *compiler
	n   *schema
	obj map[string]any
	p   *place
}

func (k *keywords) at(kw string, more ...string) []string {
	return with(with(k.n.ptr, kw), more...)
}

func (k *keywords) reference(kw string, v any) (*schema, error) {
	ref, ok := v.(string)
	if !ok {
		return nil, bad(k.at(kw), "want a string, a URI reference")
	}
	ptr, err := k.c.lookup(k.p, kw, ref)
	if err != nil {
		return nil, err
	}
	return k.c.node(ptr, k.p)
}

func (k *keywords) read() error {
	n, obj, d := k.n, k.obj, k.p.draft
	steps := []func() error{
		func() error { return k.types() },
		func() error {
			if v, ok := obj["enum"]; ok {
				list, isList := v.([]any)
				if !isList || len(list) == 0 && d <= Draft7 {
					return bad(k.at("enum"), "want an array of the allowed values")
				}
				n.enum = list
			}
			if v, ok := obj["const"]; ok && d >= Draft6 {
				n.hasConst, n.constant = true, v
			}
			return nil
		},
		k.numbers,
		func() error { return k.counts() },
		func() error {
			if v, ok := obj["pattern"]; ok {
				re, err := k.regexp(k.at("pattern"), v)
				if err != nil {
					return err
				}
				n.pattern = re
			}
			if v, ok := obj["format"]; ok {
				f, isStr := v.(string)
				if !isStr {
					return bad(k.at("format"), "want a string, the name of a format")
				}
				n.format = f
				if d <= Draft7 { // later drafts make format an annotation
					n.formatCheck = k.c.formatCheck(f)
				}
			}
			return nil
		},
		k.arrays,
		k.objects,
		k.applicators,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	for _, kw := range []string{"$id", "$anchor", "$dynamicAnchor", "$comment", "title", "description"} {
		if v, ok := obj[kw]; ok {
			if _, isStr := v.(string); !isStr {
				return bad(k.at(kw), "want a string")
			}
		}
	}
	return nil
}

func (k *keywords) types() error {
	v, ok := k.obj["type"]
	if !ok {
		return nil
	}
	var names []any
	switch x := v.(type) {
	case string:
		names = []any{x}
	case []any:
		names = x
		if len(x) == 0 {
			return bad(k.at("type"), "want a type name or a list of them, not an empty list")
		}
	default:
		return bad(k.at("type"), "want a type name or a list of them")
	}
	for i, t := range names {
		s, isStr := t.(string)
		at := k.at("type")
		if _, isList := v.([]any); isList {
			at = k.at("type", strconv.Itoa(i))
		}
		if !isStr || !slices.Contains(jsonTypes[:], s) {
			return bad(at, "want one of %s, not %s", strings.Join(jsonTypes[:], ", "), display(t))
		}
		if slices.Contains(k.n.types, s) {
			return bad(at, "%q is listed twice", s)
		}
		k.n.types = append(k.n.types, s)
	}
	return nil
}

func (k *keywords) number(kw string) (*big.Rat, error) {
	v, ok := k.obj[kw]
	if !ok {
		return nil, nil
	}
	if _, isBool := v.(bool); isBool && k.p.draft == Draft4 && strings.HasPrefix(kw, "exclusive") {
		return nil, nil
	}
	r, isNum := number(v)
	if !isNum {
		return nil, bad(k.at(kw), "want a number, not %s", typeOf(v))
	}
	return r, nil
}

func (k *keywords) numbers() error {
	n := k.n
	var err error
	get := func(kw string) *big.Rat {
		if err != nil {
			return nil
		}
		var r *big.Rat
		r, err = k.number(kw)
		return r
	}
	n.multipleOf, n.minimum, n.maximum = get("multipleOf"), get("minimum"), get("maximum")
	exMin, exMax := get("exclusiveMinimum"), get("exclusiveMaximum")
	if err != nil {
		return err
	}
	if n.multipleOf != nil && n.multipleOf.Sign() <= 0 {
		return bad(k.at("multipleOf"), "want a number above 0")
	}
	if k.p.draft == Draft4 {
		// exclusiveMinimum: true makes minimum exclusive.
		for _, kw := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
			if v, ok := k.obj[kw]; ok {
				if _, isBool := v.(bool); !isBool {
					return bad(k.at(kw), "want a boolean in draft-04")
				}
			}
		}
		if k.obj["exclusiveMinimum"] == true && n.minimum != nil {
			n.exclusiveMinimum, n.minimum = n.minimum, nil
		}
		if k.obj["exclusiveMaximum"] == true && n.maximum != nil {
			n.exclusiveMaximum, n.maximum = n.maximum, nil
		}
		return nil
	}
	n.exclusiveMinimum, n.exclusiveMaximum = exMin, exMax
	return nil
}

// counts reads the keywords whose value is a count.
func (k *keywords) counts() error {
	n := k.n
	for _, c := range []struct {
		kw   string
		to   *int
		from Draft
	}{
		{"minLength", &n.minLength, Draft4}, {"maxLength", &n.maxLength, Draft4},
		{"minItems", &n.minItems, Draft4}, {"maxItems", &n.maxItems, Draft4},
		{"minProperties", &n.minProperties, Draft4}, {"maxProperties", &n.maxProperties, Draft4},
		{"minContains", &n.minContains, Draft2019}, {"maxContains", &n.maxContains, Draft2019},
	} {
		v, ok := k.obj[c.kw]
		if !ok || k.p.draft < c.from {
			continue
		}
		r, isNum := number(v)
		if !isNum || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() {
			return bad(k.at(c.kw), "want a whole number of at least 0, not %s", display(v))
		}
		i := r.Num().Int64()
		if i > int64(^uint32(0)>>1) {
			i = int64(^uint32(0) >> 1)
		}
		*c.to = int(i)
	}
	return nil
}

func (k *keywords) regexp(at []string, v any) (Regexp, error) {
	s, ok := v.(string)
	if !ok {
		return nil, bad(at, "want a string, a regular expression")
	}
	re, err := k.c.opts.Regexp(s)
	if err != nil {
		return nil, &SchemaError{Pointer: at, Err: &PatternError{Pattern: s, Err: err}}
	}
	return re, nil
}

// schemas compiles the array of subschemas at kw.
func (k *keywords) schemas(kw string, v any) ([]*schema, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, bad(k.at(kw), "want a non-empty array of schemas")
	}
	out := make([]*schema, len(list))
	for i := range list {
		s, err := k.c.sub(k.p, kw, strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// one compiles the subschema at kw, nil when there is none.
func (k *keywords) one(kw string) (*schema, error) {
	if _, ok := k.obj[kw]; !ok {
		return nil, nil
	}
	return k.c.sub(k.p, kw)
}

// named compiles an object of subschemas (properties, $defs...).
func (k *keywords) named(kw string) (map[string]*schema, error) {
	v, ok := k.obj[kw]
	if !ok {
		return nil, nil
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		return nil, bad(k.at(kw), "want an object of schemas")
	}
	out := make(map[string]*schema, len(m))
	for _, name := range sortedKeys(m) {
		s, err := k.c.sub(k.p, kw, name)
		if err != nil {
			return nil, err
		}
		out[name] = s
	}
	return out, nil
}

func (k *keywords) arrays() error {
	n, obj, d := k.n, k.obj, k.p.draft
	var err error
	if v, ok := obj["uniqueItems"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return bad(k.at("uniqueItems"), "want a boolean")
		}
		n.uniqueItems = b
	}
	if d == Draft2020 {
		if v, ok := obj["prefixItems"]; ok {
			if n.prefixItems, err = k.schemas("prefixItems", v); err != nil {
				return err
			}
		}
		if n.rest, err = k.one("items"); err != nil {
			return err
		}
		n.restIsItems = n.prefixItems == nil
	} else if v, ok := obj["items"]; ok {
		if _, isList := v.([]any); isList {
			if n.prefixItems, err = k.schemas("items", v); err != nil {
				return err
			}
			if n.rest, err = k.one("additionalItems"); err != nil {
				return err
			}
		} else {
			if n.rest, err = k.one("items"); err != nil {
				return err
			}
			n.restIsItems = true
		}
	}
	if d >= Draft6 {
		if n.contains, err = k.one("contains"); err != nil {
			return err
		}
	}
	if d >= Draft2019 {
		n.unevaluatedItems, err = k.one("unevaluatedItems")
	}
	return err
}

func (k *keywords) objects() error {
	n, obj, d := k.n, k.obj, k.p.draft
	var err error
	if v, ok := obj["required"]; ok {
		if n.required, err = k.names(k.at("required"), v); err != nil {
			return err
		}
	}
	if n.properties, err = k.named("properties"); err != nil {
		return err
	}
	if v, ok := obj["patternProperties"]; ok {
		m, isMap := v.(map[string]any)
		if !isMap {
			return bad(k.at("patternProperties"), "want an object of schemas")
		}
		for _, pat := range sortedKeys(m) {
			re, err := k.regexp(k.at("patternProperties", pat), pat)
			if err != nil {
				return err
			}
			s, err := k.c.sub(k.p, "patternProperties", pat)
			if err != nil {
				return err
			}
			n.patternProperties = append(n.patternProperties, patternProperty{re, s})
		}
	}
	if n.additionalProperties, err = k.one("additionalProperties"); err != nil {
		return err
	}
	if d >= Draft6 {
		if n.propertyNames, err = k.one("propertyNames"); err != nil {
			return err
		}
	}
	if d <= Draft7 {
		if v, ok := obj["dependencies"]; ok {
			m, isMap := v.(map[string]any)
			if !isMap {
				return bad(k.at("dependencies"), "want an object")
			}
			for _, name := range sortedKeys(m) {
				if list, isList := m[name].([]any); isList {
					names, err := k.names(k.at("dependencies", name), list)
					if err != nil {
						return err
					}
					if n.dependentRequired == nil {
						n.dependentRequired = map[string][]string{}
					}
					n.dependentRequired[name] = names
					continue
				}
				s, err := k.c.sub(k.p, "dependencies", name)
				if err != nil {
					return err
				}
				if n.dependentSchemas == nil {
					n.dependentSchemas = map[string]*schema{}
				}
				n.dependentSchemas[name] = s
			}
		}
	} else {
		if v, ok := obj["dependentRequired"]; ok {
			m, isMap := v.(map[string]any)
			if !isMap {
				return bad(k.at("dependentRequired"), "want an object of arrays of property names")
			}
			n.dependentRequired = map[string][]string{}
			for _, name := range sortedKeys(m) {
				if n.dependentRequired[name], err = k.names(k.at("dependentRequired", name), m[name]); err != nil {
					return err
				}
			}
		}
		if n.dependentSchemas, err = k.named("dependentSchemas"); err != nil {
			return err
		}
		if n.unevaluatedProperties, err = k.one("unevaluatedProperties"); err != nil {
			return err
		}
	}
	if n.unevaluatedProperties != nil || n.unevaluatedItems != nil {
		k.c.unevaluated = true
	}
	if _, err := k.named("definitions"); err != nil {
		return err
	}
	if d >= Draft2019 {
		if _, err := k.named("$defs"); err != nil {
			return err
		}
	}
	return nil
}

// names reads an array of property names.
func (k *keywords) names(at []string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, bad(at, "want an array of property names")
	}
	out := make([]string, 0, len(list))
	for i, x := range list {
		s, isStr := x.(string)
		if !isStr {
			return nil, bad(with(at, strconv.Itoa(i)), "want a property name (a string), not %s", typeOf(x))
		}
		out = append(out, s)
	}
	return out, nil
}

func (k *keywords) applicators() error {
	n, obj, d := k.n, k.obj, k.p.draft
	var err error
	for _, a := range []struct {
		kw string
		to *[]*schema
	}{{"allOf", &n.allOf}, {"anyOf", &n.anyOf}, {"oneOf", &n.oneOf}} {
		if v, ok := obj[a.kw]; ok {
			if *a.to, err = k.schemas(a.kw, v); err != nil {
				return err
			}
		}
	}
	if n.not, err = k.one("not"); err != nil {
		return err
	}
	if d >= Draft7 {
		if n.ifS, err = k.one("if"); err != nil {
			return err
		}
		if n.thenS, err = k.one("then"); err != nil {
			return err
		}
		if n.elseS, err = k.one("else"); err != nil {
			return err
		}
	}
	return nil
}

// formatCheck is the check of a format; nil for a format it does not
// know, which is an annotation.
func (c *compiler) formatCheck(name string) func(string) error {
	if name == "regex" {
		return func(s string) error {
			_, err := c.opts.Regexp(s)
			return err
		}
	}
	return stringFormat(name)
}

// Package jsonschema checks JSON values against a JSON Schema and says what
// is wrong as data.
//
// It takes drafts 4, 6, 7, 2019-09 and 2020-12, and says where in the
// value, where in the schema, which keyword, what was wanted and what
// came, every problem at once.
//
// A document is compiled with what it holds: a reference to another
// document is refused, never loaded, but for the drafts' own meta-schemas
// (a value that must be a schema refers to its draft's), of which the
// package keeps a copy. Compiling checks each keyword's
// value much as the draft's meta-schema would, by hand, so that nothing is
// compiled before a schema is: a program that never checks a schema pays
// nothing for this package, not even at start-up.
package jsonschema

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Draft is a version of JSON Schema.
type Draft int

// The drafts a document can name in $schema.
const (
	Draft4    Draft = 4
	Draft6    Draft = 6
	Draft7    Draft = 7
	Draft2019 Draft = 2019
	Draft2020 Draft = 2020
)

// draftOf is the draft whose meta-schema URL is u.
func draftOf(u string) (Draft, bool) {
	u = strings.TrimSuffix(u, "#")
	u = strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://")
	switch u {
	case "json-schema.org/draft-04/schema":
		return Draft4, true
	case "json-schema.org/draft-06/schema":
		return Draft6, true
	case "json-schema.org/draft-07/schema":
		return Draft7, true
	case "json-schema.org/draft/2019-09/schema":
		return Draft2019, true
	case "json-schema.org/draft/2020-12/schema", "json-schema.org/schema":
		return Draft2020, true
	}
	return 0, false
}

// Regexp is a compiled pattern.
type Regexp interface {
	MatchString(string) bool
	String() string
}

// Options are how a document is compiled.
type Options struct {
	// Draft is the draft of a document without $schema; zero is 2020-12.
	Draft Draft
	// Regexp compiles the patterns (pattern, patternProperties and the
	// format regex); nil is Go's regexp.Compile.
	Regexp func(string) (Regexp, error)
}

// Schema is a compiled document.
type Schema struct {
	root *schema
	// unevaluated is whether any part uses unevaluatedProperties or
	// unevaluatedItems, which need what every keyword evaluated.
	unevaluated bool
}

// Compile compiles doc, a JSON value as Decode returns it, found at loc,
// an absolute URL that its references are resolved against. A mistake in
// the document is a *SchemaError. The Schema may be used by any number of
// goroutines at once.
func Compile(loc string, doc any, opts Options) (*Schema, error) {
	base, err := url.Parse(loc)
	if err != nil || !base.IsAbs() {
		return nil, fmt.Errorf("compile %q: not an absolute URL", loc)
	}
	base.Fragment, base.RawFragment = "", ""
	if opts.Draft == 0 {
		opts.Draft = Draft2020
	}
	if opts.Regexp == nil {
		opts.Regexp = func(s string) (Regexp, error) { return regexp.Compile(s) }
	}
	c := &compiler{
		opts:      opts,
		doc:       doc,
		extra:     map[string]any{},
		loaded:    map[string]string{},
		resources: map[string]*resource{},
		anchors:   map[string][]string{},
		places:    map[string]*place{},
		nodes:     map[string]*schema{},
	}
	if err := c.scan(doc, nil, base.String(), nil, opts.Draft); err != nil {
		return nil, err
	}
	// Every part is compiled, referred to or not, so that a mistake
	// anywhere is found now rather than at the call that reaches it.
	keys := make([]string, 0, len(c.places))
	for k := range c.places {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if _, err := c.node(c.places[k].ptr, c.places[k]); err != nil {
			return nil, err
		}
	}
	// Each resource's root and dynamic anchors, which a dynamic reference
	// may reach; compiling them may reach a bundled document, whose
	// resources are then done too.
	done := map[*resource]bool{}
	for more := true; more; {
		more = false
		for _, u := range sortedKeys(c.resources) {
			r := c.resources[u]
			if done[r] {
				continue
			}
			done[r], more = true, true
			for _, name := range sortedKeys(r.dynamicPtrs) {
				n, err := c.node(r.dynamicPtrs[name], nil)
				if err != nil {
					return nil, err
				}
				r.dynamic[name] = n
			}
			root, err := c.node(r.ptr, nil)
			if err != nil {
				return nil, err
			}
			r.root = root
		}
	}
	return &Schema{root: c.nodes[""], unevaluated: c.unevaluated}, nil
}

// resource is a part of the document with a base URL of its own: the
// document, or a subschema with $id.
type resource struct {
	url   string
	ptr   []string
	draft Draft
	root  *schema
	// recursiveAnchor is $recursiveAnchor: true at its root (2019-09).
	recursiveAnchor bool
	dynamicPtrs     map[string][]string
	dynamic         map[string]*schema
}

// place is where a subschema is: its location, base URL and draft.
type place struct {
	ptr   []string
	base  string
	res   *resource
	draft Draft
}

type compiler struct {
	opts Options
	doc  any
	// extra are the bundled documents a reference reached, by the first
	// token of their locations (docToken and the URL).
	extra map[string]any
	// loaded are the URLs of the bundled documents loaded, by their URL
	// without its scheme.
	loaded      map[string]string
	resources   map[string]*resource
	anchors     map[string][]string // "url#name" → location
	places      map[string]*place   // by pointerKey
	nodes       map[string]*schema  // by pointerKey
	unevaluated bool
}

func pointerKey(ptr []string) string {
	if len(ptr) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range ptr {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func with(ptr []string, more ...string) []string {
	return append(slices.Clip(ptr), more...)
}

func bad(ptr []string, format string, args ...any) error {
	return &SchemaError{Pointer: ptr, Err: fmt.Errorf(format, args...)}
}

// scan walks the subschemas of node, the part of the document at ptr,
// recording where each is, the resources ($id) and the anchors.
func (c *compiler) scan(node any, ptr []string, base string, res *resource, draft Draft) error {
	obj, isObj := node.(map[string]any)
	hasID := isObj && c.newResource(obj, draft)
	if res == nil || hasID {
		docURL := base
		if isObj {
			if s, ok := obj["$schema"]; ok {
				u, isStr := s.(string)
				if !isStr {
					return bad(with(ptr, "$schema"), "want a string, the URL of a meta-schema")
				}
				d, known := draftOf(u)
				if !known {
					return &SchemaError{Pointer: with(ptr, "$schema"), Err: &RefError{URL: u}}
				}
				draft = d
			}
		}
		if hasID {
			idKw := idKeyword(draft)
			id, _ := obj[idKw].(string)
			u, err := resolve(base, id)
			if err != nil {
				return bad(with(ptr, idKw), "not a URI reference: %v", err)
			}
			frag := u.Fragment
			u.Fragment, u.RawFragment = "", ""
			base = u.String()
			if frag != "" && draft <= Draft7 {
				c.anchors[base+"#"+frag] = ptr
			}
			if _, dup := c.resources[base]; dup {
				return bad(with(ptr, idKw), "%s is the $id of another part of the schema too", base)
			}
		}
		parent := res
		res = &resource{url: base, ptr: ptr, draft: draft, dynamicPtrs: map[string][]string{}, dynamic: map[string]*schema{}}
		c.resources[base] = res
		if parent == nil {
			c.resources[docURL] = res // the document at the URL it was found at, too
		}
		if isObj && draft == Draft2019 && obj["$recursiveAnchor"] == true {
			res.recursiveAnchor = true
		}
	}
	c.places[pointerKey(ptr)] = &place{ptr: ptr, base: base, res: res, draft: draft}
	if !isObj {
		return nil
	}
	if draft <= Draft7 {
		if id, ok := obj[idKeyword(draft)].(string); ok && strings.HasPrefix(id, "#") && !hasRef(obj) {
			c.anchors[base+id] = ptr
		}
	}
	if draft >= Draft2019 {
		if a, ok := obj["$anchor"].(string); ok {
			c.anchors[base+"#"+a] = ptr
		}
	}
	if draft == Draft2020 {
		if a, ok := obj["$dynamicAnchor"].(string); ok {
			c.anchors[base+"#"+a] = ptr
			res.dynamicPtrs[a] = ptr
		}
	}
	if draft <= Draft7 && hasRef(obj) {
		return nil // the other keywords beside $ref are not applied
	}
	for _, kw := range subschemaKeywords(draft) {
		v, ok := obj[kw.name]
		if !ok {
			continue
		}
		at := with(ptr, kw.name)
		switch kw.shape {
		case one:
			if err := c.scan(v, at, base, res, draft); err != nil {
				return err
			}
		case list, oneOrList:
			items, isList := v.([]any)
			if !isList {
				if kw.shape == oneOrList {
					if err := c.scan(v, at, base, res, draft); err != nil {
						return err
					}
				}
				continue // the keyword's own check says what is wrong
			}
			for i, item := range items {
				if err := c.scan(item, with(at, strconv.Itoa(i)), base, res, draft); err != nil {
					return err
				}
			}
		case members:
			m, isMap := v.(map[string]any)
			if !isMap {
				continue
			}
			for _, name := range sortedKeys(m) {
				if kw.name == "dependencies" {
					if _, strings := m[name].([]any); strings {
						continue
					}
				}
				if err := c.scan(m[name], with(at, name), base, res, draft); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// newResource reports whether a subschema starts a resource of its own:
// it has an $id that is more than an anchor, and (before 2019-09) no
// $ref, beside which every keyword is ignored.
func (c *compiler) newResource(obj map[string]any, draft Draft) bool {
	id, ok := obj[idKeyword(draft)].(string)
	if !ok || id == "" {
		return false
	}
	if draft <= Draft7 && (hasRef(obj) || strings.HasPrefix(id, "#")) {
		return false
	}
	return true
}

func idKeyword(d Draft) string {
	if d == Draft4 {
		return "id"
	}
	return "$id"
}

func hasRef(obj map[string]any) bool {
	_, ok := obj["$ref"]
	return ok
}

func resolve(base, ref string) (*url.URL, error) {
	b, err := url.Parse(base)
	if err != nil {
		return nil, err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return nil, err
	}
	return b.ResolveReference(r), nil
}

type shape int

const (
	one       shape = iota // a schema
	list                   // an array of schemas
	oneOrList              // either (items before 2020-12)
	members                // an object whose values are schemas
)

type subschemaKeyword struct {
	name  string
	shape shape
}

// subschemaKeywords are the keywords whose values hold subschemas in
// draft d. definitions is kept in every draft: later meta-schemas still
// describe it, and references to it are common.
func subschemaKeywords(d Draft) []subschemaKeyword {
	kws := []subschemaKeyword{
		{"definitions", members}, {"properties", members}, {"patternProperties", members},
		{"additionalProperties", one}, {"not", one},
		{"allOf", list}, {"anyOf", list}, {"oneOf", list},
	}
	if d <= Draft7 {
		kws = append(kws, subschemaKeyword{"dependencies", members})
	}
	if d >= Draft6 {
		kws = append(kws, subschemaKeyword{"propertyNames", one}, subschemaKeyword{"contains", one})
	}
	if d >= Draft7 {
		kws = append(kws, subschemaKeyword{"if", one}, subschemaKeyword{"then", one}, subschemaKeyword{"else", one})
	}
	if d >= Draft2019 {
		kws = append(kws, subschemaKeyword{"$defs", members}, subschemaKeyword{"dependentSchemas", members},
			subschemaKeyword{"unevaluatedProperties", one}, subschemaKeyword{"unevaluatedItems", one})
	}
	if d == Draft2020 {
		kws = append(kws, subschemaKeyword{"prefixItems", list}, subschemaKeyword{"items", one})
	} else {
		kws = append(kws, subschemaKeyword{"items", oneOrList}, subschemaKeyword{"additionalItems", one})
	}
	return kws
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// lookup resolves ref, written in the schema at p, to the location it
// names in the document.
func (c *compiler) lookup(p *place, keyword, ref string) ([]string, error) {
	at := with(p.ptr, keyword)
	u, err := resolve(p.base, ref)
	if err != nil {
		return nil, bad(at, "not a URI reference: %v", err)
	}
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	res, ok := c.resources[u.String()]
	if !ok {
		// A draft's meta-schema is bundled: the only other documents a
		// schema gets.
		if err := c.load(u.String()); err != nil {
			return nil, err
		}
		res, ok = c.resources[u.String()]
	}
	if !ok {
		return nil, &SchemaError{Pointer: at, Err: &RefError{URL: strings.TrimSuffix(ref, "#")}}
	}
	if frag == "" {
		return res.ptr, nil
	}
	if !strings.HasPrefix(frag, "/") {
		if ptr, ok := c.anchors[res.url+"#"+frag]; ok {
			return ptr, nil
		}
		return nil, bad(at, "%q names no anchor of the schema", ref)
	}
	ptr := slices.Clone(res.ptr)
	for _, t := range strings.Split(frag[1:], "/") {
		ptr = append(ptr, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
	}
	if _, ok := c.value(ptr); !ok {
		return nil, bad(at, "%q points at nothing in the schema", ref)
	}
	return ptr, nil
}

// at is the part of the documents at ptr, which is there.
func (c *compiler) at(ptr []string) any {
	v, _ := c.value(ptr)
	return v
}

// At is the part of the JSON value v at ptr (JSON pointer tokens, as in
// InstanceLocation and SchemaPointer), and whether there is one.
func At(v any, ptr []string) (any, bool) {
	for _, t := range ptr {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[t]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) || strconv.Itoa(i) != t {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// node compiles the subschema at ptr, once; from is where a reference to
// it was found, for a part that scanning did not reach.
func (c *compiler) node(ptr []string, from *place) (*schema, error) {
	key := pointerKey(ptr)
	if n, ok := c.nodes[key]; ok {
		return n, nil
	}
	p, ok := c.places[key]
	if !ok {
		// A reference into a part that is no subschema keyword's: it is
		// read as a schema of the resource the reference is in.
		if from == nil {
			return nil, bad(ptr, "not a schema")
		}
		p = &place{ptr: ptr, base: from.base, res: from.res, draft: from.draft}
		c.places[key] = p
	}
	n := &schema{ptr: ptr, res: p.res, draft: p.draft}
	c.nodes[key] = n
	if err := c.compile(n, c.at(ptr), p); err != nil {
		return nil, err
	}
	return n, nil
}

// sub compiles the subschema at ptr, found from p.
func (c *compiler) sub(p *place, ptr ...string) (*schema, error) {
	return c.node(with(p.ptr, ptr...), p)
}

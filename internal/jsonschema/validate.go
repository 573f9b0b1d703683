package jsonschema

import (
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Validate checks v, a JSON value as encoding/json or Decode makes it
// (Go numbers of any kind are numbers too), against the schema: nil, or
// a *ValidationError whose Causes are every problem found.
func (s *Schema) Validate(v any) error {
	st := &state{track: s.unevaluated}
	errs, _ := st.validate(s.root, v, nil)
	if len(errs) == 0 {
		return nil
	}
	return &ValidationError{Kind: &Group{}, Causes: errs}
}

// state is one Validate's: the dynamic scope (the resources entered, for
// $dynamicRef and $recursiveRef) and the references being followed.
type state struct {
	track bool
	scope []*resource
	refs  []refFrame
}

// refFrame is a reference being followed; the same target again at the
// same depth of the value is a loop that would never end.
type refFrame struct {
	target *schema
	depth  int
}

// evaluated is what the keywords of a schema, and the subschemas applied
// to the same value that it passed, evaluated: what unevaluatedProperties
// and unevaluatedItems leave alone.
type evaluated struct {
	props    map[string]bool
	items    int // the first items
	allItems bool
	itemSet  map[int]bool // matched by contains
}

func (e *evaluated) merge(o *evaluated) {
	if e == nil || o == nil {
		return
	}
	for k := range o.props {
		e.prop(k)
	}
	e.items = max(e.items, o.items)
	e.allItems = e.allItems || o.allItems
	for i := range o.itemSet {
		if e.itemSet == nil {
			e.itemSet = map[int]bool{}
		}
		e.itemSet[i] = true
	}
}

func (e *evaluated) prop(name string) {
	if e == nil {
		return
	}
	if e.props == nil {
		e.props = map[string]bool{}
	}
	e.props[name] = true
}

func (e *evaluated) item(i int) bool {
	return e.allItems || i < e.items || e.itemSet[i]
}

func problem(s *schema, loc []string, k Kind, causes ...*ValidationError) *ValidationError {
	return &ValidationError{InstanceLocation: loc, SchemaPointer: s.ptr, Kind: k, Causes: causes}
}

// validate checks v, at loc in the value, against s: the problems, and
// what s evaluated (nil unless unevaluated keywords need it).
func (st *state) validate(s *schema, v any, loc []string) (errs []*ValidationError, ev *evaluated) {
	if st.track {
		ev = &evaluated{}
	}
	if s.boolean != nil {
		if !*s.boolean {
			return []*ValidationError{problem(s, loc, &FalseSchema{})}, ev
		}
		return nil, ev
	}
	if top := len(st.scope); top == 0 || st.scope[top-1] != s.res {
		st.scope = append(st.scope, s.res)
		defer func() { st.scope = st.scope[:top] }()
	}
	follow := func(target *schema) {
		e, sub := st.follow(s, target, v, loc)
		errs = append(errs, e...)
		ev.merge(sub)
	}
	if s.ref != nil {
		follow(s.ref)
		if s.refOnly {
			return errs, ev
		}
	}
	if s.recursiveRef {
		follow(st.recursiveTarget(s))
	}
	if s.dynamicRef != nil {
		follow(st.dynamicTarget(s))
	}

	if len(s.types) > 0 && !slices.ContainsFunc(s.types, func(t string) bool { return hasType(v, t) }) {
		errs = append(errs, problem(s, loc, &Type{Got: typeOf(v), Want: s.types}))
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return equal(v, e) }) {
		errs = append(errs, problem(s, loc, &Enum{Got: v, Want: s.enum}))
	}
	if s.hasConst && !equal(v, s.constant) {
		errs = append(errs, problem(s, loc, &Const{Got: v, Want: s.constant}))
	}
	switch x := v.(type) {
	case string:
		errs = st.text(s, x, loc, errs)
	case []any:
		errs = st.array(s, x, loc, errs, ev)
	case map[string]any:
		errs = st.object(s, x, loc, errs, ev)
	default:
		if r, ok := number(v); ok {
			errs = st.num(s, r, loc, errs)
		}
	}
	errs = st.apply(s, v, loc, errs, ev)
	return st.unevaluated(s, v, loc, errs, ev), ev
}

// follow applies target, which s refers to, to v.
func (st *state) follow(s, target *schema, v any, loc []string) ([]*ValidationError, *evaluated) {
	for _, f := range st.refs {
		if f.target == target && f.depth == len(loc) {
			return []*ValidationError{problem(s, loc, &RefCycle{URL: target.res.url + "#" + pointerKey(target.ptr[len(target.res.ptr):])})}, nil
		}
	}
	st.refs = append(st.refs, refFrame{target, len(loc)})
	defer func() { st.refs = st.refs[:len(st.refs)-1] }()
	return st.validate(target, v, loc)
}

// recursiveTarget is where s's $recursiveRef leads: its resource's root,
// or, when that root has $recursiveAnchor, the outermost resource of the
// dynamic scope that has one too.
func (st *state) recursiveTarget(s *schema) *schema {
	if s.res.recursiveAnchor {
		for _, r := range st.scope {
			if r.recursiveAnchor {
				return r.root
			}
		}
	}
	return s.res.root
}

// dynamicTarget is where s's $dynamicRef leads: the outermost resource of
// the dynamic scope with the dynamic anchor it names, when it may move.
func (st *state) dynamicTarget(s *schema) *schema {
	if s.dynamicName != "" {
		for _, r := range st.scope {
			if n, ok := r.dynamic[s.dynamicName]; ok {
				return n
			}
		}
	}
	return s.dynamicRef
}

func (st *state) num(s *schema, r *big.Rat, loc []string, errs []*ValidationError) []*ValidationError {
	if s.multipleOf != nil && !new(big.Rat).Quo(r, s.multipleOf).IsInt() {
		errs = append(errs, problem(s, loc, &MultipleOf{Got: r, Want: s.multipleOf}))
	}
	if s.minimum != nil && r.Cmp(s.minimum) < 0 {
		errs = append(errs, problem(s, loc, &Minimum{Got: r, Want: s.minimum}))
	}
	if s.maximum != nil && r.Cmp(s.maximum) > 0 {
		errs = append(errs, problem(s, loc, &Maximum{Got: r, Want: s.maximum}))
	}
	if s.exclusiveMinimum != nil && r.Cmp(s.exclusiveMinimum) <= 0 {
		errs = append(errs, problem(s, loc, &ExclusiveMinimum{Got: r, Want: s.exclusiveMinimum}))
	}
	if s.exclusiveMaximum != nil && r.Cmp(s.exclusiveMaximum) >= 0 {
		errs = append(errs, problem(s, loc, &ExclusiveMaximum{Got: r, Want: s.exclusiveMaximum}))
	}
	return errs
}

func (st *state) text(s *schema, x string, loc []string, errs []*ValidationError) []*ValidationError {
	if s.minLength >= 0 || s.maxLength >= 0 {
		n := utf8.RuneCountInString(x)
		if s.minLength >= 0 && n < s.minLength {
			errs = append(errs, problem(s, loc, &MinLength{Got: n, Want: s.minLength}))
		}
		if s.maxLength >= 0 && n > s.maxLength {
			errs = append(errs, problem(s, loc, &MaxLength{Got: n, Want: s.maxLength}))
		}
	}
	if s.pattern != nil && !s.pattern.MatchString(x) {
		errs = append(errs, problem(s, loc, &Pattern{Got: x, Want: s.pattern.String()}))
	}
	if s.formatCheck != nil {
		if err := s.formatCheck(x); err != nil {
			errs = append(errs, problem(s, loc, &Format{Got: x, Want: s.format, Err: err}))
		}
	}
	return errs
}

func (st *state) array(s *schema, x []any, loc []string, errs []*ValidationError, ev *evaluated) []*ValidationError {
	n := len(x)
	if s.minItems >= 0 && n < s.minItems {
		errs = append(errs, problem(s, loc, &MinItems{Got: n, Want: s.minItems}))
	}
	if s.maxItems >= 0 && n > s.maxItems {
		errs = append(errs, problem(s, loc, &MaxItems{Got: n, Want: s.maxItems}))
	}
	if s.uniqueItems {
	unique:
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				if equal(x[i], x[j]) {
					errs = append(errs, problem(s, loc, &UniqueItems{Duplicates: [2]int{i, j}}))
					break unique
				}
			}
		}
	}
	for i, ps := range s.prefixItems {
		if i >= n {
			break
		}
		e, _ := st.validate(ps, x[i], with(loc, strconv.Itoa(i)))
		errs = append(errs, e...)
	}
	if ev != nil {
		ev.items = max(ev.items, min(n, len(s.prefixItems)))
	}
	if s.rest != nil && n > len(s.prefixItems) {
		if s.rest.boolean != nil && !*s.rest.boolean {
			errs = append(errs, problem(s, loc, &AdditionalItems{Count: n - len(s.prefixItems)}))
		} else {
			for i := len(s.prefixItems); i < n; i++ {
				e, _ := st.validate(s.rest, x[i], with(loc, strconv.Itoa(i)))
				errs = append(errs, e...)
			}
		}
		if ev != nil {
			ev.allItems = true
		}
	}
	if s.contains != nil {
		var matched []int
		for i := range x {
			if e, _ := st.validate(s.contains, x[i], with(loc, strconv.Itoa(i))); len(e) == 0 {
				matched = append(matched, i)
			}
		}
		switch {
		case s.minContains < 0 && len(matched) == 0:
			errs = append(errs, problem(s, loc, &Contains{}))
		case s.minContains >= 0 && len(matched) < s.minContains:
			errs = append(errs, problem(s, loc, &MinContains{Got: matched, Want: s.minContains}))
		}
		if s.maxContains >= 0 && len(matched) > s.maxContains {
			errs = append(errs, problem(s, loc, &MaxContains{Got: matched, Want: s.maxContains}))
		}
		if ev != nil && s.draft == Draft2020 {
			for _, i := range matched {
				if ev.itemSet == nil {
					ev.itemSet = map[int]bool{}
				}
				ev.itemSet[i] = true
			}
		}
	}
	return errs
}

func (st *state) object(s *schema, x map[string]any, loc []string, errs []*ValidationError, ev *evaluated) []*ValidationError {
	if s.minProperties >= 0 && len(x) < s.minProperties {
		errs = append(errs, problem(s, loc, &MinProperties{Got: len(x), Want: s.minProperties}))
	}
	if s.maxProperties >= 0 && len(x) > s.maxProperties {
		errs = append(errs, problem(s, loc, &MaxProperties{Got: len(x), Want: s.maxProperties}))
	}
	var missing []string
	for _, r := range s.required {
		if _, ok := x[r]; !ok && !slices.Contains(missing, r) {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		errs = append(errs, problem(s, loc, &Required{Missing: missing}))
	}
	names := sortedKeys(x)
	checksNames := s.properties != nil || s.patternProperties != nil || s.additionalProperties != nil || s.propertyNames != nil
	if checksNames {
		var additional []string
		for _, name := range names {
			at := with(loc, name)
			matched := false
			if ps, ok := s.properties[name]; ok {
				matched = true
				e, _ := st.validate(ps, x[name], at)
				errs = append(errs, e...)
			}
			for _, pp := range s.patternProperties {
				if pp.re.MatchString(name) {
					matched = true
					e, _ := st.validate(pp.s, x[name], at)
					errs = append(errs, e...)
				}
			}
			if matched {
				ev.prop(name)
			} else if s.additionalProperties != nil {
				additional = append(additional, name)
				ev.prop(name)
			}
			if s.propertyNames != nil {
				if e, _ := st.validate(s.propertyNames, name, at); len(e) > 0 {
					errs = append(errs, problem(s, at, &PropertyName{Property: name}, e...))
				}
			}
		}
		if len(additional) > 0 {
			if a := s.additionalProperties; a.boolean != nil && !*a.boolean {
				errs = append(errs, problem(s, loc, &AdditionalProperties{Properties: additional}))
			} else {
				for _, name := range additional {
					e, _ := st.validate(a, x[name], with(loc, name))
					errs = append(errs, e...)
				}
			}
		}
	}
	for _, prop := range sortedKeys(s.dependentRequired) {
		if _, ok := x[prop]; !ok {
			continue
		}
		var missing []string
		for _, r := range s.dependentRequired[prop] {
			if _, ok := x[r]; !ok {
				missing = append(missing, r)
			}
		}
		if len(missing) > 0 {
			errs = append(errs, problem(s, loc, &DependentRequired{Prop: prop, Missing: missing}))
		}
	}
	for _, prop := range sortedKeys(s.dependentSchemas) {
		if _, ok := x[prop]; ok {
			e, sub := st.validate(s.dependentSchemas[prop], x, loc)
			errs = append(errs, e...)
			ev.merge(sub)
		}
	}
	return errs
}

// group is the problems of one alternative of an anyOf or a oneOf: the
// problem itself when there is one.
func group(s *schema, loc []string, errs []*ValidationError) *ValidationError {
	if len(errs) == 1 {
		return errs[0]
	}
	return problem(s, loc, &Group{}, errs...)
}

func (st *state) apply(s *schema, v any, loc []string, errs []*ValidationError, ev *evaluated) []*ValidationError {
	for _, a := range s.allOf {
		e, sub := st.validate(a, v, loc)
		errs = append(errs, e...)
		ev.merge(sub)
	}
	if s.anyOf != nil {
		var alts []*ValidationError
		matched := false
		for _, a := range s.anyOf {
			e, sub := st.validate(a, v, loc)
			if len(e) == 0 {
				matched = true
				ev.merge(sub)
				if !st.track {
					break
				}
				continue
			}
			alts = append(alts, group(a, loc, e))
		}
		if !matched {
			errs = append(errs, problem(s, loc, &AnyOf{}, alts...))
		}
	}
	if s.oneOf != nil {
		var alts []*ValidationError
		var matched []int
		var passed *evaluated
		for i, a := range s.oneOf {
			e, sub := st.validate(a, v, loc)
			if len(e) == 0 {
				matched = append(matched, i)
				passed = sub
				continue
			}
			alts = append(alts, group(a, loc, e))
		}
		switch len(matched) {
		case 0:
			errs = append(errs, problem(s, loc, &OneOf{}, alts...))
		case 1:
			ev.merge(passed)
		default:
			errs = append(errs, problem(s, loc, &OneOf{Subschemas: matched[:2]}))
		}
	}
	if s.not != nil {
		if e, _ := st.validate(s.not, v, loc); len(e) == 0 {
			errs = append(errs, problem(s, loc, &Not{}))
		}
	}
	if s.ifS != nil {
		e, sub := st.validate(s.ifS, v, loc)
		next := s.elseS
		if len(e) == 0 {
			ev.merge(sub)
			next = s.thenS
		}
		if next != nil {
			e, sub := st.validate(next, v, loc)
			errs = append(errs, e...)
			ev.merge(sub)
		}
	}
	return errs
}

// unevaluated applies unevaluatedItems and unevaluatedProperties to what
// every other keyword left alone.
func (st *state) unevaluated(s *schema, v any, loc []string, errs []*ValidationError, ev *evaluated) []*ValidationError {
	if s.unevaluatedItems != nil {
		if x, ok := v.([]any); ok {
			var left []int
			for i := range x {
				if !ev.item(i) {
					left = append(left, i)
				}
			}
			if u := s.unevaluatedItems; len(left) > 0 && u.boolean != nil && !*u.boolean {
				errs = append(errs, problem(s, loc, &UnevaluatedItems{Count: len(left)}))
			} else {
				for _, i := range left {
					e, _ := st.validate(u, x[i], with(loc, strconv.Itoa(i)))
					errs = append(errs, e...)
				}
			}
			ev.allItems = true
		}
	}
	if s.unevaluatedProperties != nil {
		if x, ok := v.(map[string]any); ok {
			var left []string
			for _, name := range sortedKeys(x) {
				if !ev.props[name] {
					left = append(left, name)
				}
			}
			if u := s.unevaluatedProperties; len(left) > 0 && u.boolean != nil && !*u.boolean {
				errs = append(errs, problem(s, loc, &UnevaluatedProperties{Properties: left}))
			} else {
				for _, name := range left {
					e, _ := st.validate(u, x[name], with(loc, name))
					errs = append(errs, e...)
				}
			}
			for _, name := range left {
				ev.prop(name)
			}
		}
	}
	return errs
}

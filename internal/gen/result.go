package gen

import (
	"go/types"
	"slices"

	"github.com/kesoku/kesoku/internal/tooldoc"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// The schema of a tool's result, read from its Go type: what
// encoding/json writes for a value of the type, and no more than it
// promises. A client checks a structured result against it, so a schema
// that claims too much fails calls that succeeded: a pointer, slice or
// map may be null, a field with omitempty may be absent, a string type's
// constants are not a promise, and a type that encodes itself may write
// anything. Typed registration (registry.Add) reads a Go type by the same
// rules through reflection.

// resultSchema returns the schema of a result of type t when it is an
// object (a struct, a map, or a pointer to one), or nil.
func (m *typeMapper) resultSchema(t types.Type) *toolspec.Schema {
	t = types.Unalias(t)
	for {
		if marshals(t) {
			return nil
		}
		p, ok := t.Underlying().(*types.Pointer)
		if !ok {
			break
		}
		t = types.Unalias(p.Elem())
	}
	switch t.Underlying().(type) {
	case *types.Struct, *types.Map:
		s := (&resultMapper{docs: m}).schema(t)
		if s.Type != toolspec.TypeObject {
			return nil
		}
		s.Nullable = false
		return s
	}
	return nil
}

// marshals reports whether values of t encode themselves: t or a pointer
// to it has MarshalJSON or MarshalText.
func marshals(t types.Type) bool {
	for _, name := range []string{"MarshalJSON", "MarshalText"} {
		var pkg *types.Package
		if n, ok := t.(*types.Named); ok {
			pkg = n.Obj().Pkg()
		}
		obj, _, _ := types.LookupFieldOrMethod(t, true, pkg, name)
		if _, ok := obj.(*types.Func); ok {
			return true
		}
		if _, ok := t.Underlying().(*types.Pointer); !ok {
			obj, _, _ = types.LookupFieldOrMethod(types.NewPointer(t), true, pkg, name)
			if _, ok := obj.(*types.Func); ok {
				return true
			}
		}
	}
	return false
}

// resultMapper maps the types of a result to schemas.
type resultMapper struct {
	// docs finds struct fields' doc comments.
	docs *typeMapper
	// stack holds the structs being mapped: a struct that holds itself is
	// an object below its first level, and no more is said of it.
	stack []types.Type
}

func (m *resultMapper) schema(t types.Type) *toolspec.Schema {
	t = types.Unalias(t)
	sc := &toolspec.Schema{GoType: goTypeString(t)}
	if marshals(t) {
		return sc
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Kind() == types.String:
			sc.Type = toolspec.TypeString
		case u.Kind() == types.Bool:
			sc.Type = toolspec.TypeBoolean
		case u.Info()&types.IsInteger != 0:
			sc.Type, sc.Kind = toolspec.TypeInteger, u.Name()
		case u.Info()&types.IsFloat != 0:
			sc.Type, sc.Kind = toolspec.TypeNumber, u.Name()
		}
	case *types.Slice:
		sc.Nullable = true
		if b, ok := types.Unalias(u.Elem()).Underlying().(*types.Basic); ok && b.Kind() == types.Uint8 && !marshals(types.Unalias(u.Elem())) {
			// encoding/json writes a []byte in base64.
			sc.Type = toolspec.TypeString
			break
		}
		sc.Type, sc.Items = toolspec.TypeArray, m.schema(u.Elem())
	case *types.Array:
		sc.Type, sc.Items = toolspec.TypeArray, m.schema(u.Elem())
	case *types.Map:
		sc.Type, sc.Nullable, sc.AdditionalProperties = toolspec.TypeObject, true, m.schema(u.Elem())
	case *types.Pointer:
		cp := *m.schema(u.Elem())
		cp.GoType, cp.Nullable = sc.GoType, cp.Type != ""
		return &cp
	case *types.Struct:
		sc.Type = toolspec.TypeObject
		if slices.ContainsFunc(m.stack, func(s types.Type) bool { return types.Identical(s, t) }) {
			return sc
		}
		m.stack = append(m.stack, t)
		defer func() { m.stack = m.stack[:len(m.stack)-1] }()
		props, ok := m.fields(u, map[string]bool{}, false)
		if !ok {
			// Two fields share a name, and encoding/json's rule decides
			// which one is written: said as an object, no more.
			return sc
		}
		sc.Properties = props
	}
	// An interface is any value; a channel or function cannot be encoded,
	// which the check of the results refused already.
	return sc
}

// fields returns the properties of st as encoding/json writes them,
// embedded structs flattened; optional says st is reached through an
// embedded pointer, whose fields are absent when it is nil. ok is false
// when two fields have one name.
func (m *resultMapper) fields(st *types.Struct, names map[string]bool, optional bool) (props []*toolspec.Property, ok bool) {
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := tooldoc.ParseJSON(st.Tag(i))
		if tag.Skip {
			continue
		}
		name := tag.Name
		if f.Embedded() && name == "" {
			ft, viaPtr := types.Unalias(f.Type()), false
			if p, ok := ft.Underlying().(*types.Pointer); ok {
				ft, viaPtr = types.Unalias(p.Elem()), true
			}
			if inner, ok := ft.Underlying().(*types.Struct); ok && !marshals(types.Unalias(f.Type())) {
				more, ok := m.fields(inner, names, optional || viaPtr)
				if !ok {
					return nil, false
				}
				props = append(props, more...)
				continue
			}
		}
		if !f.Exported() {
			continue
		}
		if name == "" {
			name = f.Name()
		}
		if names[name] {
			return nil, false
		}
		names[name] = true
		required := !optional && !tag.Optional
		sc := m.schema(f.Type())
		if tag.Quoted {
			sc = quotedSchema(f.Type(), sc)
		}
		if d := m.docs.fieldDescription(f, st.Tag(i)); d != "" {
			cp := *sc
			cp.Description = d
			sc = &cp
		}
		props = append(props, &toolspec.Property{Name: name, Schema: sc, Required: required})
	}
	return props, true
}

// quotedSchema is the schema of a field with the ",string" option, which
// encoding/json writes as a JSON string when it is a string, number or
// boolean (or a pointer to one), and ignores otherwise.
func quotedSchema(t types.Type, sc *toolspec.Schema) *toolspec.Schema {
	t = types.Unalias(t)
	p, nullable := t.Underlying().(*types.Pointer)
	if nullable {
		t = types.Unalias(p.Elem())
	}
	if b, ok := t.Underlying().(*types.Basic); ok && b.Info()&(types.IsString|types.IsBoolean|types.IsInteger|types.IsFloat) != 0 {
		return &toolspec.Schema{Type: toolspec.TypeString, GoType: sc.GoType, Nullable: nullable}
	}
	return sc
}

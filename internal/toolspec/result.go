package toolspec

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/kesoku/kesoku/internal/tooldoc"
)

// The schema of a typed tool's result, read from its Go type by the rules
// kesoku gen applies to a doc-comment tool's: what encoding/json writes
// for a value of the type, and no more than it promises. A client checks
// a structured result against it, so a schema that claims too much fails
// calls that succeeded: a pointer, slice or map may be null, a field with
// omitempty may be absent, a string type's constants are not a promise,
// and a type that encodes itself may write anything.

// resultSchema returns the schema of a result of type t when it is an
// object (a struct, a map, or a pointer to one), or nil.
func resultSchema(t reflect.Type) *Schema {
	for t.Kind() == reflect.Pointer {
		if marshals(t) {
			return nil
		}
		t = t.Elem()
	}
	if marshals(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		s := (&resultMapper{}).schema(t)
		if s.Type != TypeObject {
			return nil
		}
		s.Nullable = false
		return s
	}
	return nil
}

// marshals reports whether values of t encode themselves.
func marshals(t reflect.Type) bool {
	return t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		t.Kind() != reflect.Pointer && (reflect.PointerTo(t).Implements(jsonMarshaler) || reflect.PointerTo(t).Implements(textMarshaler))
}

// resultMapper maps the types of a result to schemas.
type resultMapper struct {
	// stack holds the structs being mapped: a struct that holds itself is
	// an object below its first level, and no more is said of it.
	stack []reflect.Type
}

func (m *resultMapper) schema(t reflect.Type) *Schema {
	sc := &Schema{GoType: t.String()}
	if marshals(t) {
		return sc
	}
	switch t.Kind() {
	case reflect.String:
		sc.Type = TypeString
	case reflect.Bool:
		sc.Type = TypeBoolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		sc.Type, sc.Kind = TypeInteger, t.Kind().String()
	case reflect.Float32, reflect.Float64:
		sc.Type, sc.Kind = TypeNumber, t.Kind().String()
	case reflect.Slice:
		sc.Nullable = true
		if t.Elem().Kind() == reflect.Uint8 && !marshals(t.Elem()) {
			// encoding/json writes a []byte in base64.
			sc.Type = TypeString
			break
		}
		sc.Type, sc.Items = TypeArray, m.schema(t.Elem())
	case reflect.Array:
		sc.Type, sc.Items = TypeArray, m.schema(t.Elem())
	case reflect.Map:
		sc.Type, sc.Nullable, sc.AdditionalProperties = TypeObject, true, m.schema(t.Elem())
	case reflect.Pointer:
		cp := *m.schema(t.Elem())
		cp.GoType, cp.Nullable = sc.GoType, cp.Type != ""
		return &cp
	case reflect.Struct:
		sc.Type = TypeObject
		if slices.Contains(m.stack, t) {
			return sc
		}
		m.stack = append(m.stack, t)
		defer func() { m.stack = m.stack[:len(m.stack)-1] }()
		props, ok := m.fields(t, nil, false)
		if !ok {
			// Two fields share a name, and encoding/json's rule decides
			// which one is written: said as an object, no more.
			return sc
		}
		sc.Properties = props
	}
	// An interface is any value; a channel or function cannot be encoded,
	// which Add refused already.
	return sc
}

// fields returns the properties of struct t as encoding/json writes them,
// embedded structs flattened; optional says t is reached through an
// embedded pointer, whose fields are absent when it is nil. ok is false
// when two fields have one name.
func (m *resultMapper) fields(t reflect.Type, names map[string]bool, optional bool) (props []*Property, ok bool) {
	if names == nil {
		names = map[string]bool{}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := tooldoc.ParseJSON(string(f.Tag))
		if tag.Skip {
			continue
		}
		name := tag.Name
		if f.Anonymous && name == "" {
			ft, viaPtr := f.Type, false
			if ft.Kind() == reflect.Pointer {
				ft, viaPtr = ft.Elem(), true
			}
			if ft.Kind() == reflect.Struct && !marshals(f.Type) {
				inner, ok := m.fields(ft, names, optional || viaPtr)
				if !ok {
					return nil, false
				}
				props = append(props, inner...)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if names[name] {
			return nil, false
		}
		names[name] = true
		required := !optional && !tag.Optional
		sc := m.schema(f.Type)
		if tag.Quoted {
			sc = quotedSchema(f.Type, sc)
		}
		if d := tooldoc.Description(string(f.Tag)); d != "" {
			cp := *sc
			cp.Description = d
			sc = &cp
		}
		props = append(props, &Property{Name: name, Schema: sc, Required: required})
	}
	return props, true
}

// quotedSchema is the schema of a field with the ",string" option, which
// encoding/json writes as a JSON string when it is a string, number or
// boolean (or a pointer to one), and ignores otherwise.
func quotedSchema(t reflect.Type, sc *Schema) *Schema {
	nullable := t.Kind() == reflect.Pointer
	if nullable {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return &Schema{Type: TypeString, GoType: sc.GoType, Nullable: nullable}
	}
	return sc
}

// encodable reports why a value of type t cannot be encoded as JSON, or
// nil when it can (as far as the type tells), as kesoku gen checks a
// tool's result.
func encodable(t reflect.Type, seen []reflect.Type) error {
	if slices.Contains(seen, t) {
		return nil
	}
	seen = append(seen, t)
	switch t.Kind() {
	case reflect.Complex64, reflect.Complex128, reflect.UnsafePointer, reflect.Chan, reflect.Func:
		return fmt.Errorf("%s has no JSON form", t)
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return encodable(t.Elem(), seen)
	case reflect.Struct:
		if marshals(t) {
			return nil
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous || tooldoc.ParseJSON(string(f.Tag)).Skip {
				continue
			}
			if err := encodable(f.Type, seen); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
	}
	return nil
}

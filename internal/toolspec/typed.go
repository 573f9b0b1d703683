package toolspec

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kesoku/kesoku/internal/tooldoc"
)

// Typed returns the Spec of a typed tool (registry.Add): its parameters
// are In's fields, read by reflection once, here, and a call's arguments
// are decoded by the same functions as generated code's. source and pkg
// are where it was added, for messages.
func Typed[TC, In, Out any](name, description string, fn func(ctx context.Context, tc *TC, in In) (Out, error), source, pkg string) (*Spec[TC], error) {
	if !ValidName(name) {
		return nil, fmt.Errorf("add tool at %s: tool name %q does not match %s", source, name, NamePattern)
	}
	if fn == nil {
		return nil, fmt.Errorf("add tool %q at %s: no function", name, source)
	}
	description = strings.TrimSpace(description)
	if description == "" {
		return nil, fmt.Errorf("add tool %q at %s: the description is empty: say what the tool does", name, source)
	}
	inType := reflect.TypeFor[In]()
	params, decode, err := typedParams(inType)
	if err != nil {
		return nil, fmt.Errorf("add tool %q at %s: arguments %s: %w", name, source, inType, err)
	}
	outType := reflect.TypeFor[Out]()
	if err := encodable(outType, nil); err != nil {
		return nil, fmt.Errorf("add tool %q at %s: result %s cannot be encoded as JSON: %w", name, source, outType, err)
	}
	return &Spec[TC]{
		Name:        name,
		Summary:     tooldoc.Summary(description),
		Description: description,
		Params:      params,
		Result:      resultSchema(outType),
		Source:      source,
		Package:     pkg,
		Call: func(ctx context.Context, tc *TC, args map[string]any) (any, error) {
			var in In
			if err := decode(reflect.ValueOf(&in).Elem(), args); err != nil {
				return nil, err
			}
			out, err := fn(ctx, tc, in)
			if err != nil {
				return nil, err
			}
			return out, nil
		},
	}, nil
}

// decoder decodes one argument value into dst, as the code kesoku gen
// writes for the type does: the Decode functions' rules and refusals,
// with the argument's path added on the way out.
type decoder func(dst reflect.Value, v any) error

// typedField is a field of a struct decoded from an object: where it is in
// the struct, its JSON name, and how its value is decoded.
type typedField struct {
	index    []int
	name     string
	required bool
	decode   decoder
}

// typedParams returns the parameters of a typed tool whose arguments are
// In, a struct or a pointer to one, and the function that decodes a call's
// arguments into an In.
func typedParams(t reflect.Type) ([]*Property, func(reflect.Value, map[string]any) error, error) {
	ptr := t.Kind() == reflect.Pointer
	st := t
	if ptr {
		st = t.Elem()
	}
	if st.Kind() != reflect.Struct {
		return nil, nil, errors.New("not a struct: a typed tool's arguments are the fields of a struct")
	}
	m := &typeMapper{}
	sc := &Schema{}
	fields, err := m.structFields(st, sc)
	if err != nil {
		return nil, nil, err
	}
	decode := func(dst reflect.Value, args map[string]any) error {
		if ptr {
			p := reflect.New(st)
			dst.Set(p)
			dst = p.Elem()
		}
		// The parameters in order, each absent one missing or zero, as
		// generated code takes a function's parameters.
		for _, f := range fields {
			v := args[f.name]
			if v == nil {
				if f.required {
					return MissingArg(f.name)
				}
				continue
			}
			if err := f.decode(dst.FieldByIndex(f.index), v); err != nil {
				return ArgAt(err, f.name)
			}
		}
		return nil
	}
	return sc.Properties, decode, nil
}

// typeMapper maps Go types to schemas and decoders by reflection, by the
// rules kesoku gen applies to the same types.
type typeMapper struct {
	// stack holds the named types being mapped, to refuse recursion.
	stack []reflect.Type
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonMarshaler   = reflect.TypeFor[json.Marshaler]()
	textMarshaler   = reflect.TypeFor[encoding.TextMarshaler]()
)

// mapType returns the schema of t and the decoder of its values. enum,
// when not nil, is the values its string takes, or the strings of its
// array, map or pointer: a field's enum tag.
func (m *typeMapper) mapType(t reflect.Type, enum []string) (*Schema, decoder, error) {
	goType := t.String()
	if t.Name() != "" {
		if slices.Contains(m.stack, t) {
			return nil, nil, fmt.Errorf("recursive type %s: a JSON schema cannot describe it", goType)
		}
		if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface &&
			(reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)) {
			return nil, nil, fmt.Errorf("type %s decodes itself (UnmarshalJSON or UnmarshalText): such types are not supported; use its JSON form (a string, a number) instead", goType)
		}
		m.stack = append(m.stack, t)
		defer func() { m.stack = m.stack[:len(m.stack)-1] }()
	}
	name := t.String
	sc := &Schema{GoType: goType}
	var dec decoder
	switch t.Kind() {
	case reflect.String, reflect.Slice, reflect.Array, reflect.Map, reflect.Pointer:
	default:
		if enum != nil {
			return nil, nil, fmt.Errorf("an enum tag is for a string (or a list or map of strings), not %s", goType)
		}
	}
	switch t.Kind() {
	case reflect.String:
		sc.Type = TypeString
		if enum != nil {
			sc.Enum = enum
			dec = func(dst reflect.Value, v any) error {
				s, err := decodeEnum(v, enum, name)
				if err == nil {
					dst.SetString(s)
				}
				return err
			}
			break
		}
		dec = func(dst reflect.Value, v any) error {
			s, ok := v.(string)
			if !ok {
				return wrongType("string", v, name)
			}
			dst.SetString(s)
			return nil
		}
	case reflect.Bool:
		sc.Type = TypeBoolean
		dec = func(dst reflect.Value, v any) error {
			b, ok := v.(bool)
			if !ok {
				return wrongType("boolean", v, name)
			}
			dst.SetBool(b)
			return nil
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sc.Type, sc.Kind = TypeInteger, t.Kind().String()
		bits := uint(t.Bits())
		dec = func(dst reflect.Value, v any) error {
			i, err := decodeInt(v, bits, name)
			if err == nil {
				dst.SetInt(i)
			}
			return err
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		sc.Type, sc.Kind = TypeInteger, t.Kind().String()
		bits := uint(t.Bits())
		dec = func(dst reflect.Value, v any) error {
			u, err := decodeUint(v, bits, name)
			if err == nil {
				dst.SetUint(u)
			}
			return err
		}
	case reflect.Float32, reflect.Float64:
		sc.Type, sc.Kind = TypeNumber, t.Kind().String()
		is32 := t.Kind() == reflect.Float32
		dec = func(dst reflect.Value, v any) error {
			f, err := decodeFloat(v, is32, name)
			if err == nil {
				dst.SetFloat(f)
			}
			return err
		}
	case reflect.Slice, reflect.Array:
		items, elem, err := m.mapType(t.Elem(), enum)
		if err != nil {
			return nil, nil, err
		}
		sc.Type, sc.Items = TypeArray, items
		if t.Kind() == reflect.Array {
			n := t.Len()
			dec = func(dst reflect.Value, v any) error {
				arr, err := DecodeArrayLen(v, n)
				if err != nil {
					return err
				}
				return decodeItems(dst, arr, elem)
			}
			break
		}
		dec = func(dst reflect.Value, v any) error {
			arr, err := DecodeArray(v)
			if err != nil {
				return err
			}
			dst.Set(reflect.MakeSlice(t, len(arr), len(arr)))
			return decodeItems(dst, arr, elem)
		}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, nil, fmt.Errorf("unsupported type %s: map keys must be strings, as JSON object keys are", goType)
		}
		values, elem, err := m.mapType(t.Elem(), enum)
		if err != nil {
			return nil, nil, err
		}
		sc.Type, sc.AdditionalProperties = TypeObject, values
		key := t.Key()
		dec = func(dst reflect.Value, v any) error {
			obj, err := DecodeObject(v)
			if err != nil {
				return err
			}
			out := reflect.MakeMapWithSize(t, len(obj))
			for k, x := range obj {
				item := reflect.New(t.Elem()).Elem()
				if err := elem(item, x); err != nil {
					return ArgAtKey(err, k)
				}
				out.SetMapIndex(reflect.ValueOf(k).Convert(key), item)
			}
			dst.Set(out)
			return nil
		}
	case reflect.Struct:
		sc.Type = TypeObject
		fields, err := m.structFields(t, sc)
		if err != nil {
			return nil, nil, err
		}
		dec = func(dst reflect.Value, v any) error {
			obj, err := DecodeObject(v)
			if err != nil {
				return err
			}
			for _, f := range fields {
				x := obj[f.name]
				if x == nil {
					if f.required {
						return MissingField(f.name)
					}
					continue
				}
				if err := f.decode(dst.FieldByIndex(f.index), x); err != nil {
					return ArgAt(err, f.name)
				}
			}
			return nil
		}
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Pointer {
			return nil, nil, fmt.Errorf("unsupported type %s: a pointer to a pointer", goType)
		}
		s, elem, err := m.mapType(t.Elem(), enum)
		if err != nil {
			return nil, nil, err
		}
		// A pointer is its element, optional: the schema is the element's,
		// marked as a pointer in GoType so that null is accepted for it.
		cp := *s
		cp.GoType = goType
		sc = &cp
		dec = func(dst reflect.Value, v any) error {
			if v == nil {
				return nil
			}
			p := reflect.New(t.Elem())
			if err := elem(p.Elem(), v); err != nil {
				return err
			}
			dst.Set(p)
			return nil
		}
	case reflect.Interface:
		return nil, nil, fmt.Errorf("unsupported type %s: an interface has no schema; use a concrete type", goType)
	case reflect.Chan:
		return nil, nil, fmt.Errorf("unsupported type %s: a channel cannot come from JSON", goType)
	case reflect.Func:
		return nil, nil, fmt.Errorf("unsupported type %s: a function cannot come from JSON", goType)
	case reflect.Complex64, reflect.Complex128:
		return nil, nil, fmt.Errorf("unsupported type %s: JSON has no %s", goType, t.Kind())
	default:
		return nil, nil, fmt.Errorf("unsupported type %s", goType)
	}
	return sc, dec, nil
}

// decodeItems decodes the items of an array into dst, a slice or array of
// their length.
func decodeItems(dst reflect.Value, arr []any, elem decoder) error {
	for i, x := range arr {
		if err := elem(dst.Index(i), x); err != nil {
			return ArgAtIndex(err, i)
		}
	}
	return nil
}

// structFields adds the fields of struct t to sc's properties, as
// encoding/json sees them: by json tag, "-" skipped, omitempty optional,
// embedded structs flattened; and returns how each is decoded.
func (m *typeMapper) structFields(t reflect.Type, sc *Schema) ([]*typedField, error) {
	var fields []*typedField
	names := map[string]bool{}
	var walk func(t reflect.Type, index []int) error
	walk = func(t reflect.Type, index []int) error {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := tooldoc.ParseJSON(string(f.Tag))
			if tag.Skip {
				continue
			}
			name := tag.Name
			at := append(slices.Clip(index), i)
			if f.Anonymous && name == "" {
				if f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct {
					return fmt.Errorf("unsupported type %s: embedded pointer %s", t, f.Name)
				}
				if f.Type.Kind() == reflect.Struct {
					if slices.Contains(m.stack, f.Type) {
						return fmt.Errorf("recursive type %s: a JSON schema cannot describe it", f.Type)
					}
					m.stack = append(m.stack, f.Type)
					err := walk(f.Type, at)
					m.stack = m.stack[:len(m.stack)-1]
					if err != nil {
						return err
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			optional := tag.Optional
			if tag.Quoted {
				return fmt.Errorf("unsupported type %s: field %s uses the json \",string\" option", t, f.Name)
			}
			if names[name] {
				return fmt.Errorf("unsupported type %s: two fields are named %q in JSON", t, name)
			}
			names[name] = true
			enum, ok := tooldoc.Enum(string(f.Tag))
			if ok && len(enum) == 0 {
				return fmt.Errorf("field %s: the enum tag lists no values", f.Name)
			}
			fsc, dec, err := m.mapType(f.Type, enum)
			if err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
			if f.Type.Kind() == reflect.Pointer {
				optional = true
			}
			if d := tooldoc.Description(string(f.Tag)); d != "" {
				cp := *fsc
				cp.Description = d
				fsc = &cp
			}
			fields = append(fields, &typedField{index: at, name: name, required: !optional, decode: dec})
			sc.Properties = append(sc.Properties, &Property{Name: name, Schema: fsc, Required: !optional})
		}
		return nil
	}
	return fields, walk(t, nil)
}

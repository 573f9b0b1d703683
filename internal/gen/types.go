package gen

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kesoku/kesoku/internal/tooldoc"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// shapeKind is how a value of a Go type is decoded.
type shapeKind int

const (
	kindString shapeKind = iota
	kindBool
	kindInt
	kindUint
	kindFloat
	kindSlice
	kindArray
	kindMap
	kindStruct
	kindPointer
)

// shape is what the generated code needs to decode a value into a Go type,
// beside the Schema that declares it.
type shape struct {
	kind shapeKind
	typ  types.Type
	// enum is the set of values a string may take, empty for any.
	enum []string
	// elem is the element of a slice, array or map, or what a pointer
	// points to.
	elem *shape
	// arrayLen is the length of an array.
	arrayLen int64
	// key is a map's key type: string or a named string type.
	key types.Type
	// fields are a struct's members, embedded structs' fields flattened
	// in as encoding/json does.
	fields []*fieldShape
}

type fieldShape struct {
	jsonName string
	// goPath is the selector from the struct to the field: ["Inner",
	// "Name"] for a field of an embedded struct.
	goPath   []string
	required bool
	shape    *shape
}

// typeError is a type that cannot be a parameter, and why.
type typeError struct{ msg string }

func (e *typeError) Error() string { return e.msg }

func typeErrorf(format string, args ...any) error {
	return &typeError{msg: fmt.Sprintf(format, args...)}
}

// typeMapper maps Go types to shapes and schemas. It knows the loaded
// packages' syntax, to describe struct fields by their comments.
type typeMapper struct {
	// fieldDocs holds each struct field's description by the position of
	// its name (or, embedded, its type).
	fieldDocs map[token.Pos]string
	// fset places the loaded objects, those of dependencies (read from
	// export data) included.
	fset *token.FileSet
	// otherDocs caches the field descriptions of source files outside the
	// loaded packages, by file name and line.
	otherDocs map[string]map[int]map[string]string
	// pkg is the package the generated file goes in: types from it are
	// written without a qualifier, all others with their package's name.
	pkg *types.Package
	// stack holds the named types being mapped, to refuse recursion.
	stack []*types.Named
}

// qualifier writes other packages' types with their name, as GoType shows
// them: "tools.Mode", "time.Duration".
func goTypeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// mapType returns the shape and schema of t, or a *typeError.
func (m *typeMapper) mapType(t types.Type) (*shape, *toolspec.Schema, error) {
	t = types.Unalias(t)
	goType := goTypeString(t)
	if n, ok := t.(*types.Named); ok {
		if slices.Contains(m.stack, n) {
			return nil, nil, typeErrorf("recursive type %s: a JSON schema cannot describe it", goType)
		}
		if n.Obj().Pkg() != nil && n.Obj().Pkg() != m.pkg && !n.Obj().Exported() {
			return nil, nil, typeErrorf("type %s is not exported, so generated code cannot name it", goType)
		}
		if hasCustomDecoding(n) {
			return nil, nil, typeErrorf("type %s decodes itself (UnmarshalJSON or UnmarshalText): such types are not supported; use its JSON form (a string, a number) instead", goType)
		}
		m.stack = append(m.stack, n)
		defer func() { m.stack = m.stack[:len(m.stack)-1] }()
	}
	sh := &shape{typ: t}
	sc := &toolspec.Schema{GoType: goType}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Kind() == types.String:
			sh.kind, sc.Type = kindString, toolspec.TypeString
			sh.enum = m.constants(t)
			sc.Enum = sh.enum
		case u.Kind() == types.Bool:
			sh.kind, sc.Type = kindBool, toolspec.TypeBoolean
		case u.Info()&types.IsInteger != 0 && u.Info()&types.IsUnsigned != 0:
			sh.kind, sc.Type, sc.Kind = kindUint, toolspec.TypeInteger, u.Name()
		case u.Info()&types.IsInteger != 0:
			sh.kind, sc.Type, sc.Kind = kindInt, toolspec.TypeInteger, u.Name()
		case u.Info()&types.IsFloat != 0:
			sh.kind, sc.Type, sc.Kind = kindFloat, toolspec.TypeNumber, u.Name()
		default:
			return nil, nil, typeErrorf("unsupported type %s: JSON has no %s", goType, u.Name())
		}
	case *types.Slice:
		elem, items, err := m.mapType(u.Elem())
		if err != nil {
			return nil, nil, err
		}
		sh.kind, sh.elem = kindSlice, elem
		sc.Type, sc.Items = toolspec.TypeArray, items
	case *types.Array:
		elem, items, err := m.mapType(u.Elem())
		if err != nil {
			return nil, nil, err
		}
		sh.kind, sh.elem, sh.arrayLen = kindArray, elem, u.Len()
		sc.Type, sc.Items = toolspec.TypeArray, items
	case *types.Map:
		k, ok := types.Unalias(u.Key()).Underlying().(*types.Basic)
		if !ok || k.Kind() != types.String {
			return nil, nil, typeErrorf("unsupported type %s: map keys must be strings, as JSON object keys are", goType)
		}
		if kn, ok := types.Unalias(u.Key()).(*types.Named); ok && kn.Obj().Pkg() != m.pkg && !kn.Obj().Exported() {
			return nil, nil, typeErrorf("type %s is not exported, so generated code cannot name it", goTypeString(kn))
		}
		elem, values, err := m.mapType(u.Elem())
		if err != nil {
			return nil, nil, err
		}
		sh.kind, sh.elem, sh.key = kindMap, elem, types.Unalias(u.Key())
		sc.Type, sc.AdditionalProperties = toolspec.TypeObject, values
	case *types.Struct:
		if err := m.mapStruct(t, u, sh, sc, nil, map[string]bool{}); err != nil {
			return nil, nil, err
		}
		sh.kind, sc.Type = kindStruct, toolspec.TypeObject
	case *types.Pointer:
		if _, ok := types.Unalias(u.Elem()).Underlying().(*types.Pointer); ok {
			return nil, nil, typeErrorf("unsupported type %s: a pointer to a pointer", goType)
		}
		elem, s, err := m.mapType(u.Elem())
		if err != nil {
			return nil, nil, err
		}
		sh.kind, sh.elem = kindPointer, elem
		// A pointer is its element, optional: the schema is the element's,
		// marked as a pointer in GoType so that null is accepted for it.
		cp := *s
		cp.GoType = goType
		sc = &cp
	case *types.Interface:
		return nil, nil, typeErrorf("unsupported type %s: an interface has no schema; use a concrete type", goType)
	case *types.Chan:
		return nil, nil, typeErrorf("unsupported type %s: a channel cannot come from JSON", goType)
	case *types.Signature:
		return nil, nil, typeErrorf("unsupported type %s: a function cannot come from JSON", goType)
	default:
		return nil, nil, typeErrorf("unsupported type %s", goType)
	}
	return sh, sc, nil
}

// hasCustomDecoding reports whether n decodes its own JSON or text, which
// the generated code could not imitate without calling it.
func hasCustomDecoding(n *types.Named) bool {
	for _, name := range []string{"UnmarshalJSON", "UnmarshalText"} {
		obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(n), true, n.Obj().Pkg(), name)
		if _, ok := obj.(*types.Func); ok {
			return true
		}
	}
	return false
}

// mapStruct adds the fields of struct st to sh and sc, as encoding/json
// sees them: by json tag, "-" skipped, omitempty optional, embedded
// structs flattened.
func (m *typeMapper) mapStruct(t types.Type, st *types.Struct, sh *shape, sc *toolspec.Schema, path []string, names map[string]bool) error {
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := tooldoc.ParseJSON(st.Tag(i))
		if tag.Skip {
			continue
		}
		name := tag.Name
		ft := types.Unalias(f.Type())
		if f.Embedded() && name == "" {
			inner := ft
			if p, ok := ft.(*types.Pointer); ok {
				inner = types.Unalias(p.Elem())
				if _, ok := inner.Underlying().(*types.Struct); ok {
					return typeErrorf("unsupported type %s: embedded pointer %s", goTypeString(t), f.Name())
				}
			}
			if ist, ok := inner.Underlying().(*types.Struct); ok {
				if !f.Exported() && f.Pkg() != m.pkg {
					return typeErrorf("unsupported type %s: embedded %s is not exported, so generated code cannot set its fields", goTypeString(t), f.Name())
				}
				if n, ok := inner.(*types.Named); ok {
					if slices.Contains(m.stack, n) {
						return typeErrorf("recursive type %s: a JSON schema cannot describe it", goTypeString(n))
					}
					m.stack = append(m.stack, n)
				}
				err := m.mapStruct(inner, ist, sh, sc, append(slices.Clip(path), f.Name()), names)
				if _, ok := inner.(*types.Named); ok {
					m.stack = m.stack[:len(m.stack)-1]
				}
				if err != nil {
					return err
				}
				continue
			}
		}
		if !f.Exported() {
			continue
		}
		if name == "" {
			name = f.Name()
		}
		optional := tag.Optional
		if tag.Quoted {
			return typeErrorf("unsupported type %s: field %s uses the json \",string\" option", goTypeString(t), f.Name())
		}
		if names[name] {
			return typeErrorf("unsupported type %s: two fields are named %q in JSON", goTypeString(t), name)
		}
		names[name] = true
		fsh, fsc, err := m.mapType(ft)
		if err != nil {
			return typeErrorf("field %s: %v", f.Name(), err)
		}
		if _, ok := ft.Underlying().(*types.Pointer); ok {
			optional = true
		}
		if values, ok := tooldoc.Enum(st.Tag(i)); ok {
			tsh := enumTarget(fsh)
			switch {
			case len(values) == 0:
				return typeErrorf("field %s: the enum tag lists no values", f.Name())
			case tsh == nil:
				return typeErrorf("field %s: an enum tag is for a string (or a list or map of strings), not %s", f.Name(), goTypeString(ft))
			}
			for _, v := range values {
				if len(tsh.enum) > 0 && !slices.Contains(tsh.enum, v) {
					return typeErrorf("field %s: enum tag: %q is not a declared constant of type %s (its constants: %s)", f.Name(), v, goTypeString(tsh.typ), strings.Join(tsh.enum, ", "))
				}
			}
			fsh, fsc = withEnum(fsh, fsc, values)
		}
		if d := m.fieldDescription(f, st.Tag(i)); d != "" {
			cp := *fsc
			cp.Description = d
			fsc = &cp
		}
		sh.fields = append(sh.fields, &fieldShape{
			jsonName: name,
			goPath:   append(slices.Clip(path), f.Name()),
			required: !optional,
			shape:    fsh,
		})
		sc.Properties = append(sc.Properties, &toolspec.Property{Name: name, Schema: fsc, Required: !optional})
	}
	return nil
}

// constants returns the values of the constants declared of a named
// string type, in the order they are declared: the type's enum.
func (m *typeMapper) constants(t types.Type) []string {
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return nil
	}
	scope := n.Obj().Pkg().Scope()
	var consts []*types.Const
	for _, name := range scope.Names() {
		c, ok := scope.Lookup(name).(*types.Const)
		if !ok || !types.Identical(c.Type(), n) || c.Val().Kind() != constant.String {
			continue
		}
		if n.Obj().Pkg() != m.pkg && !c.Exported() {
			continue
		}
		consts = append(consts, c)
	}
	slices.SortFunc(consts, func(a, b *types.Const) int { return int(a.Pos() - b.Pos()) })
	var values []string
	for _, c := range consts {
		v := constant.StringVal(c.Val())
		if !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	return values
}

// enumTarget returns the string shape an enum of the Args applies to: the
// value itself, or what a pointer, slice, array or map holds.
func enumTarget(sh *shape) *shape {
	for {
		switch sh.kind {
		case kindString:
			return sh
		case kindPointer, kindSlice, kindArray, kindMap:
			sh = sh.elem
		default:
			return nil
		}
	}
}

// normalize checks that v, decoded from JSON with UseNumber, fits sh as
// the generated code would decode it, and returns it in canonical form:
// integers as integers, struct fields by their JSON names.
func normalize(sh *shape, v any) (any, error) {
	if v == nil {
		if sh.kind == kindPointer {
			return nil, nil
		}
		return nil, fmt.Errorf("null does not fit %s", goTypeString(sh.typ))
	}
	switch sh.kind {
	case kindPointer:
		return normalize(sh.elem, v)
	case kindString:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s is not a string", jsonText(v))
		}
		if len(sh.enum) > 0 && !slices.Contains(sh.enum, s) {
			return nil, fmt.Errorf("%q is not one of %s", s, strings.Join(sh.enum, ", "))
		}
		return s, nil
	case kindBool:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("%s is not a boolean", jsonText(v))
		}
		return b, nil
	case kindInt, kindUint:
		n, ok := v.(json.Number)
		if !ok {
			return nil, fmt.Errorf("%s is not an integer", jsonText(v))
		}
		return normalizeInt(sh, n)
	case kindFloat:
		n, ok := v.(json.Number)
		if !ok {
			return nil, fmt.Errorf("%s is not a number", jsonText(v))
		}
		bits := 64
		if b, ok := sh.typ.Underlying().(*types.Basic); ok && b.Kind() == types.Float32 {
			bits = 32
		}
		f, err := strconv.ParseFloat(string(n), bits)
		if err != nil {
			return nil, fmt.Errorf("%s does not fit %s", n, goTypeString(sh.typ))
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, bits)), nil
	case kindSlice, kindArray:
		list, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("%s is not an array", jsonText(v))
		}
		if sh.kind == kindArray && int64(len(list)) != sh.arrayLen {
			return nil, fmt.Errorf("%s has %d items, %s needs %d", jsonText(v), len(list), goTypeString(sh.typ), sh.arrayLen)
		}
		out := make([]any, len(list))
		for i, item := range list {
			n, err := normalize(sh.elem, item)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			out[i] = n
		}
		return out, nil
	case kindMap:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is not an object", jsonText(v))
		}
		out := make(map[string]any, len(obj))
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			n, err := normalize(sh.elem, obj[k])
			if err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
			out[k] = n
		}
		return out, nil
	case kindStruct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is not an object", jsonText(v))
		}
		out := make(map[string]any, len(obj))
		known := map[string]bool{}
		for _, f := range sh.fields {
			known[f.jsonName] = true
			fv, ok := obj[f.jsonName]
			if !ok || fv == nil {
				if f.required {
					return nil, fmt.Errorf("field %q is missing", f.jsonName)
				}
				continue
			}
			n, err := normalize(f.shape, fv)
			if err != nil {
				return nil, fmt.Errorf("field %q: %w", f.jsonName, err)
			}
			out[f.jsonName] = n
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if !known[k] {
				return nil, fmt.Errorf("%s has no field %q", goTypeString(sh.typ), k)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s cannot have a default", goTypeString(sh.typ))
}

func normalizeInt(sh *shape, n json.Number) (any, error) {
	b, _ := sh.typ.Underlying().(*types.Basic)
	bits := intBits(b)
	s := string(n)
	if !strings.ContainsAny(s, ".eE") {
		if sh.kind == kindUint {
			if u, err := strconv.ParseUint(s, 10, bits); err == nil {
				return json.Number(strconv.FormatUint(u, 10)), nil
			}
		} else if i, err := strconv.ParseInt(s, 10, bits); err == nil {
			return json.Number(strconv.FormatInt(i, 10)), nil
		}
		return nil, fmt.Errorf("%s is out of range for %s", s, goTypeString(sh.typ))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("%s is not an integer", s)
	}
	if sh.kind == kindUint {
		if f < 0 || f >= math.Ldexp(1, bits) {
			return nil, fmt.Errorf("%s is out of range for %s", s, goTypeString(sh.typ))
		}
		return json.Number(strconv.FormatUint(uint64(f), 10)), nil
	}
	if f < -math.Ldexp(1, bits-1) || f >= math.Ldexp(1, bits-1) {
		return nil, fmt.Errorf("%s is out of range for %s", s, goTypeString(sh.typ))
	}
	return json.Number(strconv.FormatInt(int64(f), 10)), nil
}

// intBits is the size of an integer kind. int, uint and uintptr are taken
// at 64 bits, as on every platform kesoku is built for.
func intBits(b *types.Basic) int {
	if b == nil {
		return 64
	}
	switch b.Kind() {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32:
		return 32
	}
	return 64
}

func jsonText(v any) string {
	b, err := encodeJSON(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b))
}

// fieldDescription is a struct field's description: its doc comment (or
// line comment), or else its description tag, which typed registration
// (registry.Add) reads too, so that one struct type is described alike
// both ways.
func (m *typeMapper) fieldDescription(f *types.Var, tag string) string {
	if d := m.fieldDoc(f); d != "" {
		// "Text is what to look for." stays; "Trace asks for a trace."
		// becomes "Asks for a trace.", as for a tool.
		_, desc := describe(f.Name(), strings.Split(d, "\n\n"))
		return desc
	}
	return tooldoc.Description(tag)
}

// fieldDoc is the description of a struct field: from the loaded syntax,
// or, for a type declared in a dependency, from its source file, which
// export data names with the field's line.
func (m *typeMapper) fieldDoc(f *types.Var) string {
	if d, ok := m.fieldDocs[f.Pos()]; ok {
		return d
	}
	if m.fset == nil || !f.Pos().IsValid() {
		return ""
	}
	pos := m.fset.Position(f.Pos())
	if pos.Filename == "" || pos.Line == 0 {
		return ""
	}
	byLine, ok := m.otherDocs[pos.Filename]
	if !ok {
		byLine = map[int]map[string]string{}
		fset := token.NewFileSet()
		if file, err := parser.ParseFile(fset, pos.Filename, nil, parser.ParseComments|parser.SkipObjectResolution); err == nil {
			docs := map[token.Pos]string{}
			fieldDocsOf([]*ast.File{file}, docs)
			ast.Inspect(file, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					if d, ok := docs[id.Pos()]; ok {
						line := fset.Position(id.Pos()).Line
						if byLine[line] == nil {
							byLine[line] = map[string]string{}
						}
						byLine[line][id.Name] = d
					}
				}
				return true
			})
		}
		if m.otherDocs == nil {
			m.otherDocs = map[string]map[int]map[string]string{}
		}
		m.otherDocs[pos.Filename] = byLine
	}
	return byLine[pos.Line][f.Name()]
}

// fieldDocsOf indexes the descriptions of every struct field declared in
// files: its doc comment, or else its line comment.
func fieldDocsOf(files []*ast.File, into map[token.Pos]string) {
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok || st.Fields == nil {
				return true
			}
			for _, field := range st.Fields.List {
				cg := field.Doc
				if cg == nil {
					cg = field.Comment
				}
				if cg == nil {
					continue
				}
				text := commentProse(cg)
				if text == "" {
					continue
				}
				if len(field.Names) == 0 {
					into[embeddedPos(field.Type)] = text
				}
				for _, name := range field.Names {
					into[name.Pos()] = text
				}
			}
			return true
		})
	}
}

// embeddedPos is where an embedded field's name is: the type name, past
// any star or package qualifier.
func embeddedPos(e ast.Expr) token.Pos {
	switch x := e.(type) {
	case *ast.StarExpr:
		return embeddedPos(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Pos()
	case *ast.IndexExpr:
		return embeddedPos(x.X)
	case *ast.IndexListExpr:
		return embeddedPos(x.X)
	}
	return e.Pos()
}

// commentProse is a comment's text as one paragraph per blank-line break,
// directives left out.
func commentProse(cg *ast.CommentGroup) string {
	lines := commentLines(cg, nil)
	var kept []docLine
	for _, l := range lines {
		if !l.directive {
			kept = append(kept, l.docLine)
		}
	}
	return strings.Join(paragraphs(kept, minIndent(kept)), "\n\n")
}

func minIndent(lines []docLine) int {
	least := -1
	for _, l := range lines {
		if strings.TrimSpace(l.Text) == "" {
			continue
		}
		if ind := indentOf(l.Text); least < 0 || ind < least {
			least = ind
		}
	}
	return max(least, 0)
}

// jsonTag is the json key of a struct tag: `json:"name,omitempty"`.
func jsonTag(tag string) string { return reflect.StructTag(tag).Get("json") }

// jsonName is the name part of a struct tag's json key.
func jsonName(tag string) string {
	name, _, _ := strings.Cut(jsonTag(tag), ",")
	return name
}

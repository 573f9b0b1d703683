package gen

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/tooldoc"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// directive is the comment line that makes a function a tool.
const directive = "kesoku:tool"

const registryPath = "github.com/kesoku/kesoku/registry"

// genimplPath is the package generated code calls.
const genimplPath = "github.com/kesoku/kesoku/registry/genimpl"

// spec is what the generated file says of a tool; gen never calls one.
type spec = toolspec.Spec[struct{}]

// injectKind says how a parameter is filled: from the arguments, or by the
// runner.
type injectKind int

const (
	fromArgs injectKind = iota
	injectContext
	injectToolContext
)

// resultKind is the shape of a tool's results.
type resultKind int

const (
	resultNone     resultKind = iota // func F()
	resultValue                      // func F() T
	resultError                      // func F() error
	resultValueErr                   // func F() (T, error)
)

// tool is one function marked //kesoku:tool, understood.
type tool struct {
	spec     *spec
	funcName string
	params   []*param
	results  resultKind
	pos      token.Position
	// directive is where the //kesoku:tool line is, for messages about
	// the name.
	directive token.Position
	// bad says the declaration has mistakes: no code is written for it.
	bad bool
	// check is the function that is the tool's Precheck, if any.
	check string
}

// param is one parameter of a tool's function, in signature order.
type param struct {
	name     string
	inject   injectKind
	shape    *shape
	variadic bool
	required bool
	// def is the default's canonical JSON value; hasDefault says there is
	// one (it may be null).
	def        any
	hasDefault bool
}

// commentLine is one line of a comment group, with whether it is a
// directive (//go:generate, //kesoku:tool), which no description shows.
type commentLine struct {
	docLine
	directive bool
	pos       token.Pos
}

// commentLines splits a comment group into lines without comment markers.
// fset may be nil when line numbers do not matter.
func commentLines(cg *ast.CommentGroup, fset *token.FileSet) []commentLine {
	var out []commentLine
	for _, c := range cg.List {
		line := 0
		if fset != nil {
			line = fset.Position(c.Slash).Line
		}
		if strings.HasPrefix(c.Text, "//") {
			text := c.Text[2:]
			dir := isDirective(text)
			if !dir {
				text = strings.TrimPrefix(text, " ")
			}
			out = append(out, commentLine{docLine: docLine{Text: strings.TrimRightFunc(text, unicode.IsSpace), Line: line}, directive: dir, pos: c.Slash})
			continue
		}
		body := strings.TrimSuffix(strings.TrimPrefix(c.Text, "/*"), "*/")
		for i, l := range strings.Split(body, "\n") {
			out = append(out, commentLine{docLine: docLine{Text: strings.TrimRightFunc(l, unicode.IsSpace), Line: line + i}, pos: c.Slash})
		}
	}
	return out
}

// isDirective reports whether c, a // comment without its slashes, is a
// directive, by the rule go/ast applies: "//line ", "//extern ",
// "//export ", or "//[a-z0-9]+:[a-z0-9]".
func isDirective(c string) bool {
	if strings.HasPrefix(c, "line ") || strings.HasPrefix(c, "extern ") || strings.HasPrefix(c, "export ") {
		return true
	}
	colon := strings.Index(c, ":")
	if colon <= 0 || colon+1 >= len(c) {
		return false
	}
	for i := 0; i <= colon+1; i++ {
		if i == colon {
			continue
		}
		b := c[i]
		if !('a' <= b && b <= 'z' || '0' <= b && b <= '9') {
			return false
		}
	}
	return true
}

// toolOptions are what a //kesoku:tool line says.
type toolOptions struct {
	name   string
	writes bool
	// check names the tool's Precheck: a function of the package,
	// func(*registry.ToolContext, map[string]any) error.
	check string
}

func parseDirective(text string) (toolOptions, error) {
	var o toolOptions
	rest := strings.TrimPrefix(text, directive)
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return o, fmt.Errorf("unknown directive //%s (want //kesoku:tool)", strings.Fields(text)[0])
	}
	for _, f := range strings.Fields(rest) {
		switch {
		case f == "writes":
			o.writes = true
		case strings.HasPrefix(f, "check="):
			if o.check != "" {
				return o, fmt.Errorf("//kesoku:tool: check given twice")
			}
			if o.check = strings.TrimPrefix(f, "check="); o.check == "" {
				return o, fmt.Errorf("//kesoku:tool: check= needs a function's name")
			}
		case strings.HasPrefix(f, "name="):
			if o.name != "" {
				return o, fmt.Errorf("//kesoku:tool: name given twice")
			}
			o.name = strings.TrimPrefix(f, "name=")
			if o.name == "" {
				return o, fmt.Errorf("//kesoku:tool: name= needs a name")
			}
		default:
			return o, fmt.Errorf("//kesoku:tool: unknown option %q (want name=NAME, writes or check=FUNC)", f)
		}
	}
	return o, nil
}

// toolFinder finds and understands the tools of one package.
type toolFinder struct {
	fset   *token.FileSet
	pkg    *types.Package
	mapper *typeMapper
	// rel writes a file name as messages show it.
	rel  func(string) string
	errs []*Error
}

func (f *toolFinder) errorf(pos token.Position, format string, args ...any) {
	pos.Filename = f.rel(pos.Filename)
	f.errs = append(f.errs, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// find returns the tools declared in files, in source order.
func (f *toolFinder) find(files []*ast.File) []*tool {
	var tools []*tool
	for _, file := range files {
		docs := map[*ast.CommentGroup]*ast.FuncDecl{}
		for _, d := range file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Doc != nil {
				docs[fd.Doc] = fd
			}
		}
		for _, cg := range file.Comments {
			var marks []commentLine
			for _, l := range commentLines(cg, f.fset) {
				if l.directive && strings.HasPrefix(l.Text, "kesoku:") {
					marks = append(marks, l)
				}
			}
			if len(marks) == 0 {
				continue
			}
			fd := docs[cg]
			pos := f.fset.Position(marks[0].pos)
			opts, err := parseDirective(marks[0].Text)
			switch {
			case err != nil:
				f.errorf(pos, "%v", err)
				continue
			case len(marks) > 1:
				f.errorf(f.fset.Position(marks[1].pos), "second //kesoku: directive in one doc comment")
				continue
			case fd == nil:
				f.errorf(pos, "//kesoku:tool must be in the doc comment of a function")
				continue
			case fd.Recv != nil:
				f.errorf(pos, "//kesoku:tool on method %s: only plain functions can be tools", fd.Name.Name)
				continue
			}
			if t := f.tool(fd, opts, pos); t != nil {
				tools = append(tools, t)
			}
		}
	}
	return tools
}

// tool understands one function marked //kesoku:tool.
func (f *toolFinder) tool(fd *ast.FuncDecl, opts toolOptions, dirPos token.Position) *tool {
	before := len(f.errs)
	pos := f.fset.Position(fd.Pos())
	fn, _ := f.pkg.Scope().Lookup(fd.Name.Name).(*types.Func)
	if fn == nil {
		f.errorf(pos, "func %s: no type information", fd.Name.Name)
		return nil
	}
	sig := fn.Signature()
	if sig.TypeParams().Len() > 0 {
		f.errorf(pos, "func %s has type parameters: a generic function cannot be a tool", fd.Name.Name)
		return nil
	}
	t := &tool{
		funcName:  fd.Name.Name,
		pos:       pos,
		directive: dirPos,
		spec: &spec{
			Name:    opts.name,
			Writes:  opts.writes,
			Source:  fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line),
			Package: f.pkg.Path(),
		},
	}
	if t.spec.Name == "" {
		t.spec.Name = snakeCase(fd.Name.Name)
	}
	if opts.check != "" {
		t.check = opts.check
		if !f.isCheck(opts.check) {
			f.errorf(dirPos, "//kesoku:tool check=%s: want a function of this package, func %s(tc *registry.ToolContext, args map[string]any) error", opts.check, opts.check)
		}
	}
	if !toolspec.ValidName(t.spec.Name) {
		f.errorf(dirPos, "tool name %q is invalid: names must match %s (set one with //kesoku:tool name=NAME)", t.spec.Name, toolspec.NamePattern)
	}

	var lines []docLine
	for _, l := range commentLines(fd.Doc, f.fset) {
		if !l.directive {
			lines = append(lines, l.docLine)
		}
	}
	d, derrs := parseDoc(lines)
	for _, e := range derrs {
		f.errorf(token.Position{Filename: pos.Filename, Line: e.Line}, "%s", e.Msg)
	}
	t.spec.Summary, t.spec.Description = describe(fd.Name.Name, d.Paragraphs)
	if t.spec.Summary == "" {
		f.errorf(pos, "tool %s: the doc comment says nothing about what it does: write a sentence before Args:", t.spec.Name)
	}
	t.spec.Returns = d.Returns

	entries := map[string]*argDoc{}
	for _, a := range d.Args {
		if prev, ok := entries[a.Name]; ok {
			f.errorf(f.at(pos, a.Line), "Args entry %q given twice (first at line %d)", a.Name, prev.Line)
			continue
		}
		entries[a.Name] = a
	}
	used := map[string]bool{}
	for i := range sig.Params().Len() {
		v := sig.Params().At(i)
		p := &param{name: v.Name(), variadic: sig.Variadic() && i == sig.Params().Len()-1}
		ppos := f.fset.Position(v.Pos())
		if kind := injected(v.Type()); kind != fromArgs {
			p.inject = kind
			t.params = append(t.params, p)
			if a, ok := entries[p.name]; ok && p.name != "" {
				used[p.name] = true
				f.errorf(f.at(pos, a.Line), "Args entry %q: parameter %s is given by the runner (%s) and takes no entry", a.Name, a.Name, goTypeString(v.Type()))
			}
			continue
		}
		if p.name == "" || p.name == "_" {
			f.errorf(ppos, "func %s: every parameter of a tool needs a name: it is the argument's name", fd.Name.Name)
			continue
		}
		used[p.name] = true
		sh, sc, err := f.mapper.mapType(v.Type())
		if err != nil {
			f.errorf(ppos, "parameter %s: %v", p.name, err)
			continue
		}
		p.shape = sh
		// A pointer is optional, and so are variadic arguments: absent,
		// the function gets none.
		p.required = sh.kind != kindPointer && !p.variadic
		a, ok := entries[p.name]
		if !ok {
			f.errorf(ppos, "parameter %s has no entry in Args: describe it there as \"%s: what it is\"", p.name, p.name)
		} else {
			sc = f.applyEntry(p, sh, sc, a, pos)
		}
		t.params = append(t.params, p)
		t.spec.Params = append(t.spec.Params, &toolspec.Property{Name: p.name, Schema: sc, Required: p.required})
	}
	var undescribed []string
	for _, n := range paramNames(sig) {
		if _, ok := entries[n]; !ok {
			undescribed = append(undescribed, n)
		}
	}
	for _, a := range d.Args {
		if !used[a.Name] {
			names := paramNames(sig)
			msg := fmt.Sprintf("Args entry %q names no parameter of %s", a.Name, fd.Name.Name)
			if s := english.Suggest(a.Name, undescribed); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			} else if len(names) > 0 {
				msg += fmt.Sprintf(" (its parameters: %s)", strings.Join(names, ", "))
			}
			f.errorf(f.at(pos, a.Line), "%s", msg)
		}
	}
	t.results = f.results(fd, sig, pos)
	if t.results == resultValue || t.results == resultValueErr {
		// The result's schema, when it is an object; the doc comment's
		// Returns section describes it.
		if t.spec.Result = f.mapper.resultSchema(sig.Results().At(0).Type()); t.spec.Result != nil {
			t.spec.Result.Description = d.Returns
		}
	}
	// A tool with mistakes is still returned, marked, so that its name
	// counts when duplicates are looked for.
	t.bad = len(f.errs) > before
	return t
}

// at is the position of a doc comment line in the file at pos.
func (f *toolFinder) at(pos token.Position, line int) token.Position {
	return token.Position{Filename: pos.Filename, Line: line}
}

func paramNames(sig *types.Signature) []string {
	var names []string
	for i := range sig.Params().Len() {
		v := sig.Params().At(i)
		if injected(v.Type()) == fromArgs && v.Name() != "" && v.Name() != "_" {
			names = append(names, v.Name())
		}
	}
	return names
}

// applyEntry takes a parameter's description, default and enum from its
// Args entry, and returns the parameter's schema with them.
func (f *toolFinder) applyEntry(p *param, sh *shape, sc *toolspec.Schema, a *argDoc, pos token.Position) *toolspec.Schema {
	where := f.at(pos, a.Line)
	cp := *sc
	sc = &cp
	sc.Description = a.Text
	if a.Text == "" {
		f.errorf(where, "Args entry %q is empty: say what the parameter is", a.Name)
	}
	if len(a.Enum) > 0 {
		tsh := enumTarget(sh)
		if tsh == nil {
			f.errorf(where, "Args entry %q: Must be one of: only a string (or a list or map of strings) can have one, and %s is not", a.Name, goTypeString(sh.typ))
		} else {
			if len(tsh.enum) > 0 {
				for _, v := range a.Enum {
					if !slices.Contains(tsh.enum, v) {
						f.errorf(where, "Args entry %q: Must be one of: %q is not a declared constant of type %s (its constants: %s)", a.Name, v, goTypeString(tsh.typ), strings.Join(tsh.enum, ", "))
					}
				}
			}
			// The enum is the parameter's own: copy the path down to it so
			// that a shared type keeps its schema.
			sh, sc = withEnum(sh, sc, a.Enum)
			p.shape = sh
		}
	}
	if a.HasDefault {
		v := a.Default
		if a.DefaultBare {
			if tsh, _ := stringTarget(sh); tsh != nil {
				if _, ok := v.(string); !ok {
					v = a.DefaultText
				}
			}
		}
		n, err := normalize(p.shape, v)
		if err != nil {
			f.errorf(where, "Args entry %q: Defaults to %s does not fit type %s: %v", a.Name, a.DefaultText, goTypeString(sh.typ), err)
			return sc
		}
		raw, err := encodeJSON(n)
		if err != nil {
			f.errorf(where, "Args entry %q: Defaults to %s: %v", a.Name, a.DefaultText, err)
			return sc
		}
		sc.Default = raw
		p.def, p.hasDefault, p.required = n, true, false
	}
	return sc
}

// stringTarget is the string a default written as a bare word is for: the
// parameter itself or what its pointer points to.
func stringTarget(sh *shape) (*shape, bool) {
	for sh.kind == kindPointer {
		sh = sh.elem
	}
	if sh.kind == kindString {
		return sh, true
	}
	return nil, false
}

// withEnum returns copies of sh and sc whose string target has enum.
func withEnum(sh *shape, sc *toolspec.Schema, enum []string) (*shape, *toolspec.Schema) {
	nsh, nsc := *sh, *sc
	switch sh.kind {
	case kindString:
		nsh.enum, nsc.Enum = enum, enum
	case kindPointer:
		// A pointer's schema is its element's, but for GoType.
		e, esc := withEnum(sh.elem, sc, enum)
		nsh.elem = e
		nsc = *esc
		nsc.GoType = sc.GoType
	case kindSlice, kindArray:
		nsh.elem, nsc.Items = withEnum(sh.elem, sc.Items, enum)
	case kindMap:
		nsh.elem, nsc.AdditionalProperties = withEnum(sh.elem, sc.AdditionalProperties, enum)
	}
	return &nsh, &nsc
}

// isCheck reports whether name is a function of the package that can be a
// tool's Precheck: func(*registry.ToolContext, map[string]any) error.
func (f *toolFinder) isCheck(name string) bool {
	fn, ok := f.pkg.Scope().Lookup(name).(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Signature()
	if sig.Recv() != nil || sig.TypeParams().Len() > 0 || sig.Params().Len() != 2 || sig.Results().Len() != 1 ||
		!types.Identical(sig.Results().At(0).Type(), errorType) || injected(sig.Params().At(0).Type()) != injectToolContext {
		return false
	}
	m, ok := types.Unalias(sig.Params().At(1).Type()).(*types.Map)
	if !ok || !types.Identical(m.Key(), types.Typ[types.String]) {
		return false
	}
	elem, ok := types.Unalias(m.Elem()).(*types.Interface)
	return ok && elem.Empty()
}

// injected says whether a parameter of type t is given by the runner: a
// context.Context or a *registry.ToolContext.
func injected(t types.Type) injectKind {
	t = types.Unalias(t)
	if isNamed(t, "context", "Context") {
		return injectContext
	}
	if p, ok := t.(*types.Pointer); ok && isNamed(types.Unalias(p.Elem()), registryPath, "ToolContext") {
		return injectToolContext
	}
	return fromArgs
}

func isNamed(t types.Type, pkgPath, name string) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == pkgPath && n.Obj().Name() == name
}

var errorType = types.Universe.Lookup("error").Type()

// results checks the results: nothing, T, error or (T, error), where T can
// be encoded as JSON.
func (f *toolFinder) results(fd *ast.FuncDecl, sig *types.Signature, pos token.Position) resultKind {
	res := sig.Results()
	bad := func() resultKind {
		f.errorf(pos, "func %s returns %s: a tool returns T, (T, error), error or nothing", fd.Name.Name, goTypeString(res))
		return resultNone
	}
	switch res.Len() {
	case 0:
		return resultNone
	case 1:
		if types.Identical(res.At(0).Type(), errorType) {
			return resultError
		}
		if err := encodable(res.At(0).Type(), nil); err != nil {
			f.errorf(pos, "func %s returns %s, which cannot be encoded as JSON: %v", fd.Name.Name, goTypeString(res.At(0).Type()), err)
		}
		return resultValue
	case 2:
		if !types.Identical(res.At(1).Type(), errorType) || types.Identical(res.At(0).Type(), errorType) {
			return bad()
		}
		if err := encodable(res.At(0).Type(), nil); err != nil {
			f.errorf(pos, "func %s returns %s, which cannot be encoded as JSON: %v", fd.Name.Name, goTypeString(res.At(0).Type()), err)
		}
		return resultValueErr
	}
	return bad()
}

// encodable reports why a value of type t cannot be encoded as JSON, or
// nil when it can (as far as the type tells).
func encodable(t types.Type, seen []types.Type) error {
	t = types.Unalias(t)
	for _, s := range seen {
		if types.Identical(s, t) {
			return nil
		}
	}
	seen = append(seen, t)
	switch u := t.Underlying().(type) {
	case *types.Basic:
		if u.Info()&types.IsComplex != 0 || u.Kind() == types.UnsafePointer {
			return fmt.Errorf("%s has no JSON form", goTypeString(t))
		}
	case *types.Chan, *types.Signature:
		return fmt.Errorf("%s has no JSON form", goTypeString(t))
	case *types.Pointer:
		return encodable(u.Elem(), seen)
	case *types.Slice:
		return encodable(u.Elem(), seen)
	case *types.Array:
		return encodable(u.Elem(), seen)
	case *types.Map:
		return encodable(u.Elem(), seen)
	case *types.Struct:
		if n, ok := t.(*types.Named); ok && hasMarshaler(n) {
			return nil
		}
		for i := range u.NumFields() {
			fld := u.Field(i)
			if !fld.Exported() && !fld.Embedded() || jsonName(u.Tag(i)) == "-" {
				continue
			}
			if err := encodable(fld.Type(), seen); err != nil {
				return fmt.Errorf("field %s: %w", fld.Name(), err)
			}
		}
	}
	return nil
}

func hasMarshaler(n *types.Named) bool {
	for _, name := range []string{"MarshalJSON", "MarshalText"} {
		obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(n), true, n.Obj().Pkg(), name)
		if _, ok := obj.(*types.Func); ok {
			return true
		}
	}
	return false
}

// snakeCase writes a Go name in snake case: CalculateSum → calculate_sum,
// HTTPGet → http_get, ReadFileV2 → read_file_v2.
func snakeCase(name string) string {
	runes := []rune(name)
	var b strings.Builder
	for i, r := range runes {
		if unicode.IsUpper(r) {
			if i > 0 {
				prev := runes[i-1]
				nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
				if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
					b.WriteByte('_')
				}
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// notVerbs are words that, after a function's name, do not start a
// sentence that reads well alone: "Sleep is …" stays as written.
var notVerbs = []string{"is", "are", "was", "were", "has", "have", "will", "can", "could", "should", "must", "may", "might", "does", "do"}

// describe builds a tool's summary and description from its doc
// comment's paragraphs. Go doc comments start with the function's name
// ("CalculateSum adds two integers."); a model calls the tool by another
// name, so the name is dropped: "Adds two integers."
func describe(funcName string, paras []string) (short, description string) {
	if len(paras) == 0 {
		return "", ""
	}
	first := paras[0]
	if rest, ok := strings.CutPrefix(first, funcName+" "); ok {
		word, _, _ := strings.Cut(rest, " ")
		r, size := utf8.DecodeRuneInString(rest)
		switch {
		case unicode.IsLower(r) && !slices.Contains(notVerbs, word):
			first = string(unicode.ToUpper(r)) + rest[size:]
		case unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsLower(r) && !unicode.IsTitle(r):
			// A script without case, as Chinese: "CalculateSum 计算…".
			first = rest
		}
	}
	out := append([]string{first}, paras[1:]...)
	return tooldoc.Summary(first), strings.Join(out, "\n\n")
}

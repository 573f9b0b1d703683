// Package gen is kesoku gen: it writes the registration of every Go
// function marked //kesoku:tool.
//
// It reads Go packages, finds the functions
// whose doc comment holds the directive //kesoku:tool, understands their
// Google-style doc comments (a summary, Args:, Returns:) and signatures,
// and writes one kesoku_gen.go per package that registers each tool in
// registry.Default with its schema and a Call that decodes arguments into
// the typed parameters without reflection. Source does the same for a
// package that imports nothing, without the go command, for kesoku init.
package gen

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"

	"github.com/kesoku/kesoku/internal/atomicfile"
)

// Error is a mistake in a tool's declaration, where it is.
type Error struct {
	// Pos is the place: its Filename is relative to the directory gen
	// ran in when it is below it.
	Pos token.Position
	Msg string
}

func (e *Error) Error() string {
	if e.Pos.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Pos.Filename, e.Pos.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Pos.Filename, e.Msg)
}

// Errors is every mistake found in one run, in file and line order: they
// are all reported at once, so that one run shows everything to fix.
type Errors []*Error

func (e Errors) Error() string {
	lines := make([]string, len(e))
	for i, err := range e {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

func (e Errors) sort() {
	slices.SortStableFunc(e, func(a, b *Error) int {
		if c := strings.Compare(a.Pos.Filename, b.Pos.Filename); c != 0 {
			return c
		}
		return a.Pos.Line - b.Pos.Line
	})
}

// Config says which packages to generate for.
type Config struct {
	// Dir is the directory the patterns are resolved in, and file names in
	// messages are relative to; "" is the current directory.
	Dir string
	// Patterns name the packages, as the go command takes them; none
	// means "./...".
	Patterns []string
	// Command is how the user runs gen, for messages that say to run it
	// again ("go run . gen ./..."); "" is "kesoku gen".
	Command string
	// NamesFrom, when set, is the directory file names in messages are
	// relative to instead of Dir: under go generate, which runs gen in
	// each package's directory, the module's, so that "tools.go:12" of
	// one package is told from another's.
	NamesFrom string
	// Env is the go command's environment; nil is this process's whole.
	Env []string
	// Compiled are the tools compiled into the kesoku that runs gen: its
	// built-in tools, and those of the packages already built into a
	// user's own kesoku. A tool of another package named as one of them
	// would stop that kesoku at start-up, so gen refuses it. The tools of
	// the packages gen writes for do not count: their generated files
	// are what it rewrites.
	Compiled []CompiledTool
}

// CompiledTool is a tool compiled into the kesoku that runs gen.
type CompiledTool struct {
	// Name is the tool's name, Package the import path of the package
	// that declares it, Source its file:line there.
	Name, Package, Source string
	// Typed says the tool was added with registry.Add, not by a
	// generated file: gen rewrites no registration of it, in its own
	// package either.
	Typed bool
}

// State says how a package's generated file on disk compares with what
// it should be.
type State int

// The states of a generated file.
const (
	UpToDate State = iota
	// Missing: the package has tools and no generated file.
	Missing
	// Stale: the generated file differs from what gen would write.
	Stale
	// Orphaned: the package has no tools any more, but a generated file.
	Orphaned
)

// File is one package's generated file: as it is on disk and as it
// should be.
type File struct {
	// Dir is the package's directory as messages show it:
	// "./internal/tools", relative to Config.Dir when below it.
	Dir string
	// Path is the generated file's absolute path.
	Path string
	// PkgPath is the package's import path.
	PkgPath string
	// Tools are the names of the package's tools, in source order.
	Tools []string
	// Want is what the file should hold; nil when the package has no
	// tools and the file should not exist.
	Want []byte
	// Have is what the file holds now; nil when it does not exist.
	Have []byte
}

// State compares the file on disk with what it should be.
func (f *File) State() State {
	switch {
	case f.Want == nil && f.Have == nil:
		return UpToDate
	case f.Want == nil:
		return Orphaned
	case f.Have == nil:
		return Missing
	case !bytes.Equal(f.Want, f.Have):
		return Stale
	}
	return UpToDate
}

// Generate loads the packages and computes each one's generated file. It
// writes nothing: Write does. Mistakes in tool declarations come back
// together as Errors.
func Generate(ctx context.Context, cfg Config) ([]*File, error) {
	dir, err := filepath.Abs(cmp.Or(cfg.Dir, "."))
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", cfg.Dir, err)
	}
	patterns := cfg.Patterns
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	listed, err := list(ctx, dir, cfg.Env, patterns)
	if err != nil {
		return nil, err
	}
	// Only packages whose files hold a directive are type-checked: that
	// is what costs, and an unrelated package that does not compile must
	// not stop the run.
	var withTools []string
	for _, pkg := range listed {
		if pkg.Dir == "" {
			// A pattern that names no package: nothing was loaded to
			// report about, only why.
			msgs := make([]string, len(pkg.Errors))
			for i, e := range pkg.Errors {
				msgs[i] = e.Msg
			}
			if len(msgs) == 0 {
				msgs = append(msgs, "no such package")
			}
			return nil, fmt.Errorf("load %s: %s", pkg.ID, strings.Join(msgs, "; "))
		}
		marked, err := mayHaveTools(pkg.GoFiles)
		if err != nil {
			return nil, err
		}
		if marked {
			withTools = append(withTools, pkg.PkgPath)
		}
	}
	loaded := map[string]*packages.Package{}
	fset := token.NewFileSet()
	if len(withTools) > 0 {
		var pkgs []*packages.Package
		// The packages the generated code imports are loaded with them:
		// where one cannot be, no file gen writes would build.
		pkgs, fset, err = load(ctx, dir, cfg.Env, append(slices.Clone(withTools), registryPath, genimplPath))
		if err != nil {
			return nil, err
		}
		if err := checkImportable(pkgs, withTools[0]); err != nil {
			err.Command = cfg.Command
			return nil, err
		}
		for _, p := range pkgs {
			loaded[p.PkgPath] = p
		}
	}
	names := dir
	if cfg.NamesFrom != "" {
		if names, err = filepath.Abs(cfg.NamesFrom); err != nil {
			return nil, fmt.Errorf("resolve %s: %w", cfg.NamesFrom, err)
		}
	}
	rel := func(name string) string { return relPath(names, name) }

	var files []*File
	var errs Errors
	byName := map[string]*tool{}
	compiled := compiledElsewhere(cfg.Compiled, listed)
	for _, lp := range listed {
		pkg := loaded[lp.PkgPath]
		if pkg == nil {
			pkg = lp
		}
		f := &File{Dir: relDir(names, pkg.Dir), Path: filepath.Join(pkg.Dir, FileName), PkgPath: pkg.PkgPath}
		have, err := os.ReadFile(f.Path)
		switch {
		case err == nil:
			if !bytes.HasPrefix(have, []byte(Header)) {
				// The user's own file that happens to have the name:
				// neither read as generated nor overwritten.
				if hasDirective(pkg.Syntax) {
					errs = append(errs, &Error{Pos: token.Position{Filename: rel(f.Path)}, Msg: fmt.Sprintf("%s exists and was not written by kesoku gen: rename it, so that the tools' registrations can go there", FileName)})
				}
				continue
			}
			f.Have = have
		case !errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		if !hasDirective(pkg.Syntax) {
			// A package without tools needs no file; one left from when
			// it had some is orphaned. Nothing else about it matters, not
			// even whether it compiles.
			if f.Have != nil {
				files = append(files, f)
			}
			continue
		}
		if len(pkg.Errors) > 0 || pkg.Types == nil {
			for _, e := range pkg.Errors {
				errs = append(errs, loadError(e, rel, f.Dir))
			}
			if len(pkg.Errors) == 0 {
				errs = append(errs, &Error{Pos: token.Position{Filename: f.Dir}, Msg: "package has no type information"})
			}
			continue
		}
		tools, terrs := findTools(fset, pkg.Types, pkg.Syntax, rel)
		errs = append(errs, terrs...)
		names, derrs := claimNames(tools, byName, rel)
		f.Tools, errs = names, append(errs, derrs...)
		errs = append(errs, takenNames(tools, byName, compiled, rel)...)
		if len(terrs) > 0 || len(tools) == 0 {
			// Nothing is written for a package with mistakes.
			continue
		}
		src, err := newEmitter(pkg.Types).file(tools)
		if err != nil {
			return nil, fmt.Errorf("package %s: %w", pkg.PkgPath, err)
		}
		f.Want = src
		files = append(files, f)
	}
	if len(errs) > 0 {
		errs.sort()
		return nil, errs
	}
	slices.SortFunc(files, func(a, b *File) int { return strings.Compare(a.Path, b.Path) })
	return files, nil
}

// findTools finds and understands the tools of a type-checked package.
func findTools(fset *token.FileSet, pkg *types.Package, syntax []*ast.File, rel func(string) string) ([]*tool, []*Error) {
	mapper := &typeMapper{fieldDocs: map[token.Pos]string{}, fset: fset, pkg: pkg}
	fieldDocsOf(syntax, mapper.fieldDocs)
	finder := &toolFinder{fset: fset, pkg: pkg, mapper: mapper, rel: rel}
	return finder.find(sortedFiles(fset, syntax)), finder.errs
}

// claimNames enters tools in byName, the tools of every package so far,
// and returns their names, and an error for each name another tool has.
func claimNames(tools []*tool, byName map[string]*tool, rel func(string) string) ([]string, []*Error) {
	var names []string
	var errs []*Error
	for _, t := range tools {
		if prev, ok := byName[t.spec.Name]; ok {
			errs = append(errs, &Error{
				Pos: token.Position{Filename: rel(t.directive.Filename), Line: t.directive.Line},
				Msg: fmt.Sprintf("duplicate tool name %q: %s at %s:%d has it too", t.spec.Name, prev.funcName, rel(prev.pos.Filename), prev.pos.Line),
			})
			continue
		}
		byName[t.spec.Name] = t
		names = append(names, t.spec.Name)
	}
	return names, errs
}

// compiledElsewhere returns the compiled tools by name, but the
// generated ones of the packages listed, whose generated files gen
// rewrites.
func compiledElsewhere(compiled []CompiledTool, listed []*packages.Package) map[string]CompiledTool {
	rewritten := map[string]bool{}
	for _, p := range listed {
		rewritten[p.PkgPath] = true
	}
	out := map[string]CompiledTool{}
	for _, c := range compiled {
		if c.Typed || !rewritten[c.Package] {
			out[c.Name] = c
		}
	}
	return out
}

// takenNames returns an error for each of tools, claimed in byName, whose
// name a compiled tool of another package has: the program built with
// both would refuse to start.
func takenNames(tools []*tool, byName map[string]*tool, compiled map[string]CompiledTool, rel func(string) string) []*Error {
	var errs []*Error
	for _, t := range tools {
		c, ok := compiled[t.spec.Name]
		if !ok || byName[t.spec.Name] != t {
			// A duplicate among the packages read is said once, as one.
			continue
		}
		by := fmt.Sprintf("a tool of %s (%s), which the kesoku running gen has built in", c.Package, c.Source)
		switch {
		case c.Typed:
			by = fmt.Sprintf("a tool that %s adds with registry.Add (%s)", c.Package, c.Source)
		case strings.HasPrefix(c.Package, kesokuModule+"/"):
			by = fmt.Sprintf("one of kesoku's own tools (%s)", c.Package)
		}
		errs = append(errs, &Error{
			Pos: token.Position{Filename: rel(t.directive.Filename), Line: t.directive.Line},
			Msg: fmt.Sprintf("tool name %q is taken by %s: name this one otherwise with //kesoku:tool name=NEW_NAME", t.spec.Name, by),
		})
	}
	return errs
}

// Source computes the generated file of the package in dir, whose import
// path is pkgPath, from its source files alone: no go command, no module,
// nothing downloaded or compiled. It is for a package that imports
// nothing (kesoku init writes one), so that its registrations exist
// before its module can be built; any import is an error, and kesoku gen
// is the way for every other package. It writes nothing: Write does.
func Source(dir, pkgPath string) (*File, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	fset := token.NewFileSet()
	var syntax []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		path := filepath.Join(dir, n)
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		f, err := parseFile(fset, path, src)
		if err != nil {
			return nil, err
		}
		syntax = append(syntax, f)
	}
	conf := types.Config{Importer: noImports{}}
	pkg, err := conf.Check(pkgPath, fset, syntax, nil)
	if err != nil {
		return nil, fmt.Errorf("package %s: %w", pkgPath, err)
	}
	rel := func(name string) string { return relPath(dir, name) }
	tools, errs := findTools(fset, pkg, syntax, rel)
	f := &File{Dir: ".", Path: filepath.Join(dir, FileName), PkgPath: pkgPath}
	names, derrs := claimNames(tools, map[string]*tool{}, rel)
	f.Tools, errs = names, append(errs, derrs...)
	if len(errs) > 0 {
		all := Errors(errs)
		all.sort()
		return nil, all
	}
	if have, err := os.ReadFile(f.Path); err == nil && bytes.HasPrefix(have, []byte(Header)) {
		f.Have = have
	}
	if len(tools) > 0 {
		if f.Want, err = newEmitter(pkg).file(tools); err != nil {
			return nil, fmt.Errorf("package %s: %w", pkgPath, err)
		}
	}
	return f, nil
}

// noImports refuses every import, for Source.
type noImports struct{}

func (noImports) Import(path string) (*types.Package, error) {
	return nil, fmt.Errorf("imports %s: only a package that imports nothing is generated without the go command; run kesoku gen", path)
}

// ModuleError says that the module gen runs in cannot build the code gen
// would write: the code imports kesoku's registry, which the module does
// not provide. Nothing is written then.
type ModuleError struct {
	// Module is the module of the packages with tools, and GoMod its
	// go.mod file ("" when it has none).
	Module, GoMod string
	// Required says the module requires kesoku's module, whose registry
	// still could not be loaded; Err says why.
	Required bool
	Err      string
	// Package is the package of kesoku's that could not be loaded: the
	// registry, or genimpl in a kesoku from before generated code called
	// it.
	Package string
	// Command is how the user runs gen (Config.Command).
	Command string
}

// kesokuModule is the module generated code imports.
const kesokuModule = "github.com/kesoku/kesoku"

// replacedVersion is the version the go command writes for a module that
// a replace directive provides and no proxy publishes.
const replacedVersion = "v0.0.0-00010101000000-000000000000"

func (e *ModuleError) Error() string {
	where := "in the module's directory"
	if e.GoMod != "" {
		where = "in " + filepath.Dir(e.GoMod)
	}
	again := cmp.Or(e.Command, "kesoku gen")
	if !e.Required {
		// A clone is not published: go get asks the proxy for any version
		// but the placeholder that stands for a replace directive.
		return fmt.Sprintf("module %s does not require %s, whose package %s the generated code imports: run, %s,\n\n"+
			"  go get %s\n\nor, to build against a clone of kesoku,\n\n"+
			"  go mod edit -replace %s=PATH_OF_THE_CLONE\n  go get %s@%s\n\nthen %s again; nothing written",
			e.Module, kesokuModule, cmp.Or(e.Package, registryPath), where, kesokuModule, kesokuModule, kesokuModule, replacedVersion, again)
	}
	return fmt.Sprintf("module %s requires %s, but the package the generated code imports, %s, cannot be loaded: %s; "+
		"run go get %s@latest %s (or fix its replace directive), then %s again; nothing written",
		e.Module, kesokuModule, cmp.Or(e.Package, registryPath), e.Err, kesokuModule, where, again)
}

// checkImportable makes sure the registry and genimpl loaded beside the
// packages with tools, so that the code gen writes for them compiles;
// toolPkg is one of them, whose module the error names.
func checkImportable(pkgs []*packages.Package, toolPkg string) *ModuleError {
	var reg, impl, tool *packages.Package
	for _, p := range pkgs {
		switch p.PkgPath {
		case registryPath:
			reg = p
		case genimplPath:
			impl = p
		case toolPkg:
			tool = p
		}
	}
	loaded := func(p *packages.Package) bool { return p != nil && len(p.Errors) == 0 && p.Types != nil }
	if loaded(reg) && loaded(impl) {
		return nil
	}
	e := &ModuleError{Module: "(none)", Err: "it was not loaded"}
	if loaded(reg) {
		// The registry without genimpl: a kesoku from before it.
		reg, e.Package = impl, genimplPath
	}
	if tool != nil && tool.Module != nil {
		e.Module, e.GoMod = tool.Module.Path, tool.Module.GoMod
	}
	if reg != nil && len(reg.Errors) > 0 {
		e.Err = reg.Errors[0].Msg
	}
	e.Required = requires(e.GoMod, kesokuModule)
	return e
}

// requires reports whether the go.mod file at path requires module.
func requires(path, module string) bool {
	if path == "" {
		return false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil {
		return false
	}
	for _, r := range f.Require {
		if r.Mod.Path == module {
			return true
		}
	}
	return false
}

// Write brings every file up to date: writes the missing and stale ones
// and removes the orphaned ones. It returns the files it changed.
func Write(files []*File) ([]*File, error) {
	var changed []*File
	for _, f := range files {
		switch f.State() {
		case UpToDate:
			continue
		case Orphaned:
			if err := os.Remove(f.Path); err != nil {
				return changed, fmt.Errorf("remove %s: %w", f.Path, err)
			}
		default:
			if err := writeFile(f.Path, f.Want); err != nil {
				return changed, err
			}
		}
		changed = append(changed, f)
	}
	return changed, nil
}

// writeFile replaces path's content in one step, so that an interrupted
// run never leaves half a file.
func writeFile(path string, data []byte) error {
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedImports | packages.NeedModule

// load loads the packages with their generated files left out, so that a
// stale generated file that no longer compiles never blocks the run that
// replaces it. The packages gen reads are parsed with their generated file
// emptied (parseFile); the build tag leaves generated files out of the
// dependencies go list compiles. A generated file that still breaks the
// load (one without the tag, edited by hand) is hidden by an overlay on a
// second load, which makes go/packages type-check every dependency from
// source: slower, but only then.
func load(ctx context.Context, dir string, env, patterns []string) ([]*packages.Package, *token.FileSet, error) {
	fset := token.NewFileSet()
	cfg := &packages.Config{
		Context:    ctx,
		Env:        env,
		Mode:       loadMode,
		Dir:        dir,
		Fset:       fset,
		BuildFlags: []string{"-tags=" + BuildTag},
		ParseFile:  parseFile,
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, nil, fmt.Errorf("load packages: %w", err)
	}
	// A generated file that fails to compile in a dependency, or that go
	// list itself trips over, is hidden by an overlay on a second load.
	overlay := map[string][]byte{}
	packages.Visit(pkgs, nil, func(pkg *packages.Package) {
		for _, e := range pkg.Errors {
			for _, m := range genFileRE().FindAllString(e.Error(), -1) {
				if !filepath.IsAbs(m) {
					m = filepath.Join(dir, m)
				}
				if _, err := os.Stat(m); err == nil {
					overlay[m] = nil
				}
			}
		}
	})
	if len(overlay) == 0 {
		return checkMatched(pkgs, patterns, fset)
	}
	for name := range overlay {
		pkgName, err := packageNameBeside(name)
		if err != nil {
			return nil, nil, err
		}
		overlay[name] = []byte("package " + pkgName + "\n")
	}
	fset = token.NewFileSet()
	cfg.Fset, cfg.Overlay = fset, overlay
	pkgs, err = packages.Load(cfg, patterns...)
	if err != nil {
		return nil, nil, fmt.Errorf("load packages: %w", err)
	}
	return checkMatched(pkgs, patterns, fset)
}

var genFileRE = lazyRegexp(`[^\s:]*` + regexp.QuoteMeta(FileName))

// parseFile parses a file for go/packages, leaving out a generated file's
// content: its declarations are what gen is about to replace.
func parseFile(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	if filepath.Base(filename) == FileName && bytes.HasPrefix(src, []byte(Header)) {
		name, err := packageNameBeside(filename)
		if err != nil {
			return nil, err
		}
		src = []byte("package " + name + "\n")
	}
	return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
}

// packageNameBeside reads the package name of a generated file's
// neighbours, since the file itself may be broken.
func packageNameBeside(genFile string) (string, error) {
	dir := filepath.Dir(genFile)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", dir, err)
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || n == FileName || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, n), nil, parser.PackageClauseOnly)
		if err == nil && f.Name.Name != "documentation" {
			return f.Name.Name, nil
		}
	}
	// Only the generated file is left: its own clause, if it has one.
	f, err := parser.ParseFile(token.NewFileSet(), genFile, nil, parser.PackageClauseOnly)
	if err != nil {
		return "", fmt.Errorf("find the package name of %s: %w", genFile, err)
	}
	return f.Name.Name, nil
}

// list lists the packages the patterns name, cheaply: names and files,
// no types. Generated files count here (no build tag), so that a
// directory left with nothing but one is found, and its file orphaned.
func list(ctx context.Context, dir string, env, patterns []string) ([]*packages.Package, error) {
	pkgs, err := packages.Load(&packages.Config{
		Context: ctx,
		Env:     env,
		Mode:    packages.NeedName | packages.NeedFiles,
		Dir:     dir,
	}, patterns...)
	if err != nil {
		return nil, fmt.Errorf("list packages: %w", err)
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(patterns, " "))
	}
	return pkgs, nil
}

// directiveRE finds a //kesoku: directive where a doc comment of a
// top-level declaration puts it: at the start of a line.
var directiveRE = lazyRegexp(`(?m)^//kesoku:`)

// mayHaveTools reports whether any of files holds a //kesoku: line. It
// reads bytes, not syntax: a match in a string literal costs a type check
// that finds nothing, never a wrong result.
func mayHaveTools(files []string) (bool, error) {
	for _, name := range files {
		if filepath.Base(name) == FileName {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return false, fmt.Errorf("read %s: %w", name, err)
		}
		if directiveRE().Match(src) {
			return true, nil
		}
	}
	return false, nil
}

// checkMatched refuses a run whose patterns matched nothing: a typo in a
// package path must not pass --check.
func checkMatched(pkgs []*packages.Package, patterns []string, fset *token.FileSet) ([]*packages.Package, *token.FileSet, error) {
	if len(pkgs) == 0 {
		return nil, nil, fmt.Errorf("no packages match %s", strings.Join(patterns, " "))
	}
	return pkgs, fset, nil
}

func hasDirective(files []*ast.File) bool {
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//kesoku:") {
					return true
				}
			}
		}
	}
	return false
}

func sortedFiles(fset *token.FileSet, files []*ast.File) []*ast.File {
	out := slices.Clone(files)
	slices.SortFunc(out, func(a, b *ast.File) int {
		return strings.Compare(fset.Position(a.Pos()).Filename, fset.Position(b.Pos()).Filename)
	})
	return out
}

// loadError turns a go/packages error into an Error at its place, or at
// the package's directory when it has none.
func loadError(e packages.Error, rel func(string) string, dir string) *Error {
	pos := token.Position{Filename: dir}
	if e.Pos != "" && e.Pos != "-" {
		parts := strings.Split(e.Pos, ":")
		pos.Filename = rel(parts[0])
		if len(parts) > 1 {
			fmt.Sscan(parts[1], &pos.Line)
		}
	}
	return &Error{Pos: pos, Msg: e.Msg}
}

// relPath writes name relative to dir when it is below it.
func relPath(dir, name string) string {
	if r, err := filepath.Rel(dir, name); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return name
}

// relDir writes a package directory as the go command would take it:
// "./internal/tools", or ".".
func relDir(dir, pkgDir string) string {
	r := relPath(dir, pkgDir)
	if filepath.IsAbs(r) || r == "." {
		return filepath.ToSlash(r)
	}
	return "./" + filepath.ToSlash(r)
}

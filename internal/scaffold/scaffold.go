// Package scaffold is kesoku init: a new Go module of one's own tools that
// runs at once.
//
// It writes the module: its
// go.mod requiring kesoku (a release, or a clone through a replace
// directive), a main.go that is the whole of kesoku, a tools package
// with one documented tool and the registrations kesoku gen would write
// for it, and requests that call it, so that the module runs at once.
package scaffold

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"

	"github.com/kesoku/kesoku/internal/gen"
)

// Options say what module to create.
type Options struct {
	// Dir is the module's directory, made when it does not exist.
	Dir string
	// Module is the module path; "" is Dir's name.
	Module string
	// Force allows a Dir that is not empty. No file in it is ever
	// replaced: one in the way is an error, and nothing is written.
	Force bool
	// Kesoku is where the module gets kesoku from.
	Kesoku Kesoku
}

// Result says what Create made.
type Result struct {
	// Dir is the module's directory, absolute; Module its path.
	Dir, Module string
	// Files are the files written, relative to Dir, in the order
	// written.
	Files []string
	// Tool is the name of the tool the module holds.
	Tool string
	// Complete says that go.mod and go.sum list everything a build
	// needs; without, the go command fetches what is missing (go mod
	// tidy).
	Complete bool
}

// NotEmptyError says that the directory holds files already.
type NotEmptyError struct {
	Dir string
	// Entries are some of the names in it.
	Entries []string
}

func (e *NotEmptyError) Error() string {
	return fmt.Sprintf("%s is not empty (it holds %s)", e.Dir, strings.Join(e.Entries, ", "))
}

// ExistsError says that a file the module needs is there already.
type ExistsError struct {
	Path string
}

func (e *ExistsError) Error() string {
	return fmt.Sprintf("%s exists already; nothing written", e.Path)
}

// ModulePathError says that a module path is not one the go command takes.
type ModulePathError struct {
	Path string
	// FromDir says the path is the directory's name, not one given.
	FromDir bool
	Err     error
}

func (e *ModulePathError) Error() string {
	return fmt.Sprintf("module path %q: %v", e.Path, e.Err)
}

func (e *ModulePathError) Unwrap() error { return e.Err }

// toolsDir is the package of the module's tools.
const toolsDir = "tools"

// Create writes the module. It checks everything first (the module path,
// the directory, every file it would write), so that a refusal leaves the
// directory as it was; should writing fail midway, the files it wrote are
// removed again.
func Create(opts Options) (*Result, error) {
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", opts.Dir, err)
	}
	res := &Result{Dir: dir, Module: opts.Module, Tool: "greet"}
	if res.Module == "" {
		res.Module = filepath.Base(dir)
		if err := module.CheckImportPath(res.Module); err != nil {
			return nil, &ModulePathError{Path: res.Module, FromDir: true, Err: err}
		}
	} else if err := module.CheckImportPath(res.Module); err != nil {
		return nil, &ModulePathError{Path: res.Module, Err: err}
	}
	gomod, complete, err := goMod(res.Module, opts.Kesoku)
	if err != nil {
		return nil, err
	}
	res.Complete = complete
	files := []struct {
		name string
		data []byte
	}{
		{"go.mod", gomod},
		{"go.sum", goSum(opts.Kesoku.Sums)},
		{"main.go", []byte(fmt.Sprintf(mainGo, path.Base(res.Module), res.Module+"/"+toolsDir))},
		{toolsDir + "/tools.go", []byte(fmt.Sprintf(toolsGo, res.Module))},
		// Written last, from the files before it.
		{toolsDir + "/" + gen.FileName, nil},
		{"requests.yaml", []byte(requestsYAML)},
	}
	if files[1].data == nil {
		files = slices.Delete(files, 1, 2)
	}

	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", dir, err)
	case len(entries) > 0 && !opts.Force:
		e := &NotEmptyError{Dir: dir}
		for _, en := range entries[:min(len(entries), 3)] {
			e.Entries = append(e.Entries, en.Name())
		}
		if len(entries) > 3 {
			e.Entries = append(e.Entries, "…")
		}
		return nil, e
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return nil, &ExistsError{Path: p}
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, toolsDir)); err == nil {
		// Another package's files would be read with the new tool.
		return nil, &ExistsError{Path: filepath.Join(dir, toolsDir)}
	}

	ok := false
	var made []string
	defer func() {
		if ok {
			return
		}
		for _, p := range slices.Backward(made) {
			os.Remove(p)
		}
	}()
	for _, d := range []string{dir, filepath.Join(dir, toolsDir)} {
		if _, err := os.Stat(d); err == nil {
			continue
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		made = append(made, d)
	}
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		data := f.data
		if data == nil {
			g, err := gen.Source(filepath.Join(dir, toolsDir), res.Module+"/"+toolsDir)
			if err != nil {
				return nil, fmt.Errorf("generate %s: %w", p, err)
			}
			data = g.Want
		}
		if err := writeNew(p, data); err != nil {
			return nil, err
		}
		made = append(made, p)
		res.Files = append(res.Files, f.name)
	}
	ok = true
	return res, nil
}

// writeNew writes a file that must not exist: a file made meanwhile is
// not replaced either.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return &ExistsError{Path: path}
		}
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// goMod writes the module's go.mod: kesoku required (through a replace
// directive for a clone), and kesoku's own requirements with it, at the
// same versions, so that the module builds with what building kesoku
// fetched. complete says those requirements were known.
func goMod(mod string, k Kesoku) ([]byte, bool, error) {
	f := &modfile.File{}
	if err := f.AddModuleStmt(mod); err != nil {
		return nil, false, err
	}
	goVersion := strings.TrimPrefix(runtime.Version(), "go")
	var kmod *modfile.File
	if k.GoMod != nil {
		parsed, err := modfile.ParseLax("go.mod", k.GoMod, nil)
		if err != nil {
			return nil, false, fmt.Errorf("read %s's go.mod: %w", KesokuModule, err)
		}
		kmod = parsed
		if kmod.Go != nil {
			goVersion = kmod.Go.Version
		}
	}
	if i := strings.IndexFunc(goVersion, func(r rune) bool { return r != '.' && (r < '0' || r > '9') }); i >= 0 {
		// A development toolchain ("1.27-devel"): its release's number.
		goVersion = goVersion[:i]
	}
	if err := f.AddGoStmt(goVersion); err != nil {
		return nil, false, err
	}
	if err := f.AddRequire(KesokuModule, k.Version); err != nil {
		return nil, false, err
	}
	if kmod != nil {
		for _, r := range kmod.Require {
			f.AddNewRequire(r.Mod.Path, r.Mod.Version, true)
		}
		f.SetRequireSeparateIndirect(f.Require)
	}
	if k.Dir != "" {
		if err := f.AddReplace(KesokuModule, "", k.Dir, ""); err != nil {
			return nil, false, err
		}
	}
	f.Cleanup()
	out, err := f.Format()
	if err != nil {
		return nil, false, err
	}
	return out, kmod != nil && k.Sums != nil, nil
}

// goSum writes the module's go.sum from kesoku's lines, sorted as the go
// command writes them; nil for none.
func goSum(sums []byte) []byte {
	if len(sums) == 0 {
		return nil
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	slices.Sort(lines)
	return []byte(strings.Join(lines, "\n") + "\n")
}

// The module's files. mainGo takes the command's name and the tools
// package's path; toolsGo the module's path.
const (
	mainGo = `// Command %[1]s is kesoku with this module's own tools: every command of
// kesoku (tools list, run, validate, session, mcp serve, gen, ...) with
// kesoku's built-in tools and those of ./tools.
package main

import (
	"os"

	"github.com/kesoku/kesoku/cmd"

	_ "%[2]s" // its kesoku_gen.go registers the tools
)

func main() { os.Exit(cmd.Main()) }
`

	toolsGo = `// Package tools holds this module's own tools. kesoku gen writes
// kesoku_gen.go from their doc comments; the blank import in main.go
// registers them.
package tools

// After editing a tool or its doc comment, regenerate the registrations
// with go generate ./... (this module's own kesoku, built without them, so
// that a stale kesoku_gen.go cannot stop it).
//go:generate go run -tags kesoku_nogen %s gen .

// Greet says hello to someone.
//
// Args:
//
//	name: Who to greet.
//	times: How many times to say it. Defaults to 1.
//
//kesoku:tool
func Greet(name string, times int) string {
	greeting := ""
	for range times {
		greeting += "hello " + name + "! "
	}
	return greeting
}
`

	requestsYAML = `# Tool calls to run: go run . run requests.yaml
requests:
  - id: hello
    name: greet
    args: {name: kesoku, times: 2}
  - id: sum
    name: calculate_sum
    args: {a: 1, b: 2}
`
)

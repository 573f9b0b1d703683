package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/kesoku/kesoku/internal/gen"
)

// selfCommand is how the user runs this program, for messages that tell
// them to run it again: "kesoku" when it was found on $PATH under that
// name, "./mytools" as it was typed, or "go run ." for a program that go
// run built (a user's own kesoku, typically), with -tags kesoku_nogen
// when it was built so.
func selfCommand() string {
	return commandOf(os.Args[0], readBuild(), exec.LookPath, modulePathOf)
}

// buildFacts are what of the build info selfCommand needs.
type buildFacts struct {
	// mainPkg is the main package's import path, module its module's.
	mainPkg, module string
	// noGen says it was built with the tag that leaves the generated
	// files out.
	noGen bool
}

func readBuild() buildFacts {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return buildFacts{}
	}
	b := buildFacts{mainPkg: info.Path, module: info.Main.Path}
	for _, s := range info.Settings {
		if s.Key == "-tags" && slices.Contains(strings.Split(s.Value, ","), gen.BuildTag) {
			b.noGen = true
		}
	}
	return b
}

// modulePathOf returns the module path of the go.mod in dir, "" when
// there is none.
func modulePathOf(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return ""
	}
	return modfile.ModulePath(data)
}

// commandOf is selfCommand over what it reads: the program's argv[0],
// its build, the lookup of a name on $PATH, and the module of a directory.
func commandOf(arg0 string, b buildFacts, lookPath func(string) (string, error), moduleOf func(string) string) string {
	if builtByGoRun(arg0) && b.mainPkg != "" {
		run := "go run "
		if b.noGen {
			run += "-tags " + gen.BuildTag + " "
		}
		// "." names the main package only in its module's root.
		if b.mainPkg == b.module && moduleOf(".") == b.module {
			return run + "."
		}
		return run + b.mainPkg
	}
	base := filepath.Base(arg0)
	if base == arg0 {
		return arg0
	}
	// A shell (or a test harness) that found the program on $PATH may
	// pass its full path: the name alone finds it again.
	if found, err := lookPath(base); err == nil && sameFile(found, arg0) {
		return base
	}
	return arg0
}

// builtByGoRun reports whether path is a binary go run built: it lives in
// the go command's scratch directory, as go-build*/b001/exe/NAME.
func builtByGoRun(path string) bool {
	exe := filepath.Dir(path)
	return filepath.Base(exe) == "exe" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(exe))), "go-build")
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

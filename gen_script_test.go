package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/mod/modfile"
)

func init() { scriptCmds["usekesoku"] = cmdUseKesoku }

// goEnv is what the gen scripts need of the developer's Go set-up: the
// caches, so that the go command they run finds every module and compiled
// package already there.
var goEnv = sync.OnceValue(func() map[string]string {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return nil
	}
	v := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(v) != 3 {
		return nil
	}
	return map[string]string{"GOCACHE": v[0], "GOMODCACHE": v[1], "GOPATH": v[2]}
})

// genScriptEnv lets a script build a Go module that imports kesoku from
// this checkout, offline: KESOKU_ROOT is the repository root, the caches
// are the developer's, and the go command may neither download anything
// nor switch toolchains.
func genScriptEnv(env *testscript.Env) {
	if wd, err := os.Getwd(); err == nil {
		env.Setenv("KESOKU_ROOT", wd)
	}
	for k, v := range goEnv() {
		env.Setenv(k, v)
	}
	env.Setenv("GOFLAGS", "-mod=mod")
	env.Setenv("GOPROXY", "off")
	env.Setenv("GOSUMDB", "off")
	env.Setenv("GOTOOLCHAIN", "local")
}

// cmdUseKesoku makes the module in the current directory use kesoku from
// this checkout, offline:
//
//	usekesoku
//
// It adds a requirement on kesoku with a replace directive to
// $KESOKU_ROOT, and every requirement of kesoku's own go.mod, with its
// go.sum. Listing them all matters: a module that requires only kesoku
// makes the go command walk kesoku's module graph further than a build of
// kesoku does (into go.mod files of versions that lost to newer ones), and
// a fresh module cache does not hold those. With the whole list, the
// script needs exactly the modules that building kesoku's tests fetched,
// whatever else the cache happens to hold.
func cmdUseKesoku(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: usekesoku")
	}
	root := ts.Getenv("KESOKU_ROOT")
	kdata, err := os.ReadFile(filepath.Join(root, "go.mod"))
	ts.Check(err)
	kmod, err := modfile.Parse("go.mod", kdata, nil)
	ts.Check(err)
	editGoMod(ts, func(mod *modfile.File) {
		ts.Check(mod.AddRequire(kesokuModule, "v0.0.0"))
		ts.Check(mod.AddReplace(kesokuModule, "", root, ""))
		for _, r := range kmod.Require {
			mod.AddNewRequire(r.Mod.Path, r.Mod.Version, true)
		}
		mod.SetRequireSeparateIndirect(mod.Require)
		mod.Cleanup()
	})
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs("go.sum"), sum, 0o644))
}

// editGoMod edits the go.mod file of the script's directory.
func editGoMod(ts *testscript.TestScript, edit func(*modfile.File)) {
	path := ts.MkAbs("go.mod")
	data, err := os.ReadFile(path)
	ts.Check(err)
	mod, err := modfile.Parse(path, data, nil)
	ts.Check(err)
	edit(mod)
	out, err := mod.Format()
	ts.Check(err)
	ts.Check(os.WriteFile(path, out, 0o644))
}

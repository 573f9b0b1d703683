package main

import (
	"os"
	"os/exec"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

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
// this checkout, offline: KESOKU_ROOT is the repository root (for a
// replace directive and a copy of go.sum), the caches are the
// developer's, and the go command may neither download anything nor
// switch toolchains.
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

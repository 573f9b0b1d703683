package scaffold

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
)

// KesokuModule is the module a new module of tools requires.
const KesokuModule = "github.com/kesoku/kesoku"

// Kesoku says where a new module gets kesoku from, and what it starts
// with so that it builds at once: kesoku's own requirements and sums,
// with which the go command needs nothing that building kesoku did not
// fetch.
type Kesoku struct {
	// Version is the version required: a release ("v1.2.0"), or the
	// placeholder that a replace directive to Dir stands in for.
	Version string
	// Dir, when set, is the directory of a clone of kesoku, which a
	// replace directive points to.
	Dir string
	// GoMod is kesoku's go.mod at that version, nil when unknown.
	GoMod []byte
	// Sums are go.sum lines: kesoku's own go.sum and, for a release,
	// kesoku's lines. Nil when unknown: the go command then has to fetch
	// them (go mod tidy).
	Sums []byte
}

// checkoutVersion is the version a replace directive stands in for, as
// go mod tidy writes it for a module that is replaced and not published.
const checkoutVersion = "v0.0.0-00010101000000-000000000000"

// NotKesokuError says that a directory given as kesoku's clone does not
// hold kesoku's module.
type NotKesokuError struct {
	Dir string
	Err error
}

func (e *NotKesokuError) Error() string {
	return fmt.Sprintf("%s is not a clone of %s: %v", e.Dir, KesokuModule, e.Err)
}

func (e *NotKesokuError) Unwrap() error { return e.Err }

// Checkout is kesoku from the clone in dir.
func Checkout(dir string) (Kesoku, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Kesoku{}, &NotKesokuError{Dir: dir, Err: err}
	}
	gomod, err := os.ReadFile(filepath.Join(abs, "go.mod"))
	if err != nil {
		return Kesoku{}, &NotKesokuError{Dir: dir, Err: err}
	}
	if p := modfile.ModulePath(gomod); p != KesokuModule {
		return Kesoku{}, &NotKesokuError{Dir: dir, Err: fmt.Errorf("its go.mod declares module %q", p)}
	}
	k := Kesoku{Version: checkoutVersion, Dir: abs, GoMod: gomod}
	if sums, err := os.ReadFile(filepath.Join(abs, "go.sum")); err == nil {
		k.Sums = sums
	}
	return k, nil
}

// Release is kesoku at version, a release, with what the module cache
// modCache holds of it: its go.mod, its go.sum and its own sums, when the
// go command downloaded it there (go install does). zipHash is the hash
// of the module's zip when known otherwise (from a binary's build info).
func Release(version, modCache, zipHash string) Kesoku {
	k := Kesoku{Version: version}
	if modCache == "" {
		return k
	}
	escPath, err1 := module.EscapePath(KesokuModule)
	escVersion, err2 := module.EscapeVersion(version)
	if err1 != nil || err2 != nil {
		return k
	}
	download := filepath.Join(modCache, "cache", "download", filepath.FromSlash(escPath), "@v", escVersion)
	gomod, err := os.ReadFile(download + ".mod")
	if err != nil {
		return k
	}
	k.GoMod = gomod
	if zipHash == "" {
		if h, err := os.ReadFile(download + ".ziphash"); err == nil {
			zipHash = strings.TrimSpace(string(h))
		}
	}
	modHash, err := dirhash.Hash1([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gomod)), nil
	})
	sums, err2 := os.ReadFile(filepath.Join(modCache, filepath.FromSlash(escPath)+"@"+escVersion, "go.sum"))
	if err != nil || err2 != nil || zipHash == "" {
		return k
	}
	own := fmt.Sprintf("%s %s %s\n%s %s/go.mod %s\n", KesokuModule, version, zipHash, KesokuModule, version, modHash)
	k.Sums = append([]byte(own), sums...)
	return k
}

// UnknownSourceError says that this program cannot tell where its kesoku
// came from: built from a clone with -trimpath, say, which leaves out
// where the clone was.
type UnknownSourceError struct {
	Version string
}

func (e *UnknownSourceError) Error() string {
	return fmt.Sprintf("this program's %s (%s) is neither a release nor a clone it can find", KesokuModule, e.Version)
}

// This is the kesoku this program was built from: the release it was
// installed at (go install github.com/kesoku/kesoku@v1.2.0), or the clone
// it was built in, where its source files still are.
func This(modCache func() string) (Kesoku, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return Kesoku{}, &UnknownSourceError{Version: "no build information"}
	}
	m := &info.Main
	if m.Path != KesokuModule {
		m = nil
		for _, d := range info.Deps {
			if d.Path == KesokuModule {
				m = d
			}
		}
		if m == nil {
			return Kesoku{}, &UnknownSourceError{Version: "not linked in"}
		}
	}
	if m.Replace != nil && m.Replace.Version != "" {
		// A fork, as a module: its own release.
		m = m.Replace
	}
	// A module the go command downloaded carries its checksum; a clone's
	// build has none, whatever version the build stamped from its VCS.
	if m.Sum != "" && semver.IsValid(m.Version) {
		return Release(m.Version, modCache(), m.Sum), nil
	}
	if dir := sourceRoot(); dir != "" {
		if k, err := Checkout(dir); err == nil {
			return k, nil
		}
	}
	return Kesoku{}, &UnknownSourceError{Version: m.Version}
}

// sourceRoot is the root of the module this file was compiled from, as
// the compiler recorded its path; "" under -trimpath, which records a
// module path in its place.
func sourceRoot() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	// internal/scaffold/kesoku.go, from the module's root.
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// ModCache is the go command's module cache: $GOMODCACHE, or what go env
// says, or "" without a go command.
func ModCache() string {
	if d := os.Getenv("GOMODCACHE"); d != "" {
		return d
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

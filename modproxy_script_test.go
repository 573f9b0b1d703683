package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	modpath "golang.org/x/mod/module"
)

func init() { scriptCmds["modproxy"] = cmdModProxy }

// cmdModProxy lets a script run the go commands a new user runs to start
// a module that requires kesoku (go get, go mod tidy), offline, on a
// module cache that holds only what building kesoku fetched:
//
//	modproxy [-forbid MODULE]
//
// -forbid answers every request about MODULE with 403 Forbidden, as a
// company's proxy answers for a module it does not serve (one that is
// not published, say).
//
// Those commands walk kesoku's whole module graph, into go.mod files of
// versions that lost to newer ones and that no build ever downloads; a
// fresh cache does not have them and GOPROXY=off cannot fetch them. So the
// script gets a module proxy on the loopback interface, serving the
// module cache's own download directory, and answering a go.mod that is
// not there with a stand-in that declares the module and requires
// nothing. A stand-in changes no version a build selects (kesoku's go.mod
// already lists every module it builds with, at the version selected), but
// it is not the real file: the script's go commands therefore get a module
// cache of their own ($WORK/modcache), and $REAL_GOMODCACHE names the real
// one, for the steps that only build. A stand-in never reaches the
// developer's cache.
func cmdModProxy(ts *testscript.TestScript, neg bool, args []string) {
	var forbid string
	switch {
	case neg:
		ts.Fatalf("usage: modproxy [-forbid MODULE]")
	case len(args) == 2 && args[0] == "-forbid":
		forbid = args[1]
	case len(args) != 0:
		ts.Fatalf("usage: modproxy [-forbid MODULE]")
	}
	real := ts.Getenv("GOMODCACHE")
	if real == "" {
		ts.Fatalf("modproxy: no GOMODCACHE")
	}
	own := ts.MkAbs("modcache")
	if own == real {
		ts.Fatalf("modproxy: the script's module cache is the real one")
	}
	srv := httptest.NewServer(&modProxy{dir: filepath.Join(real, "cache", "download"), forbid: forbid})
	ts.Defer(srv.Close)
	ts.Setenv("REAL_GOMODCACHE", real)
	ts.Setenv("GOMODCACHE", own)
	ts.Setenv("GOPROXY", srv.URL)
	ts.Setenv("GOSUMDB", "off")
	// What a user has (go.mod and go.sum read-only to builds), and a cache
	// the test's clean-up may remove.
	ts.Setenv("GOFLAGS", "-modcacherw")
}

// modProxy serves the module proxy protocol (go help goproxy) from a
// module cache's download directory, with stand-ins for go.mod files
// that are not there.
type modProxy struct {
	dir string
	// forbid is a module path answered with 403.
	forbid string
}

func (p *modProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if esc, err := modpath.EscapePath(p.forbid); p.forbid != "" && err == nil && strings.HasPrefix(r.URL.Path, "/"+esc+"/@") {
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	escaped, rest, ok := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/@v/")
	if !ok {
		// @latest, and anything else: not known here.
		http.NotFound(w, r)
		return
	}
	path, err := modpath.UnescapePath(escaped)
	if err != nil || strings.Contains(rest, "/") || strings.Contains(escaped, "..") {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if rest == "list" {
		// No versions to choose from: a script names the versions it
		// needs, or its go.mod does.
		return
	}
	file := filepath.Join(p.dir, filepath.FromSlash(escaped), "@v", rest)
	data, err := os.ReadFile(file)
	switch {
	case err == nil:
		w.Write(data)
		return
	case !errors.Is(err, fs.ErrNotExist):
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	version, ext := strings.TrimSuffix(rest, filepath.Ext(rest)), filepath.Ext(rest)
	if _, err := modpath.EscapeVersion(version); err != nil {
		http.NotFound(w, r)
		return
	}
	switch ext {
	case ".mod":
		w.Write([]byte("module " + path + "\n"))
	case ".info":
		json.NewEncoder(w).Encode(struct {
			Version string
			Time    time.Time
		}{version, time.Unix(0, 0).UTC()})
	default:
		// A module's files: never made up. A build that needs one that was
		// not fetched fails, as it should.
		http.NotFound(w, r)
	}
}

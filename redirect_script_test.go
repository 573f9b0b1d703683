package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kesoku/kesoku/internal/toolsource/mcptest"
)

func init() {
	scriptCmds["redirect"] = cmdRedirect
	scriptCmds["mcpredirect"] = cmdMCPRedirect
}

// cmdRedirect serves a server that answers every request with a 307 to
// the same path at another origin:
//
//	redirect URL
//
// sets REDIRECT_URL to URL at the redirecting server's origin (the same
// host, another port), and REDIRECT_ORIGIN to that origin.
func cmdRedirect(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: redirect URL")
	}
	to, err := url.Parse(args[0])
	ts.Check(err)
	srv := redirector(to.Scheme + "://" + to.Host)
	ts.Defer(srv.Close)
	ts.Setenv("REDIRECT_URL", srv.URL+to.RequestURI())
	ts.Setenv("REDIRECT_ORIGIN", srv.URL)
}

// redirector is a server that answers every request with a 307 to the
// same path and query at origin.
func redirector(origin string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, origin+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
}

// cmdMCPRedirect serves the fake MCP server (mcptest) over streamable
// HTTP at another origin than the one its clients are given:
//
//	mcpredirect TOKEN LOG
//
// MCP_URL is the URL given (at MCP_ORIGIN), whose server answers every
// request with a 307 to the same path at OTHER_URL's origin (the same host, another
// port). OTHER_URL is the MCP server itself, which takes TOKEN as
// mcphttp's does, and writes each request that reaches it to LOG, its
// headers and all, one line each: a client that followed the redirect
// with its headers would be answered there.
func cmdMCPRedirect(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: mcpredirect TOKEN LOG")
	}
	log := ts.MkAbs(args[1])
	ts.Check(os.WriteFile(log, nil, 0o644))
	var mu sync.Mutex
	mcp := mcptest.HTTPHandler(args[0])
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var line strings.Builder
		fmt.Fprintf(&line, "%s %s", r.Method, r.URL.RequestURI())
		names := make([]string, 0, len(r.Header))
		for name := range r.Header {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Fprintf(&line, " %s=%q", name, strings.Join(r.Header[name], ","))
		}
		mu.Lock()
		f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			fmt.Fprintln(f, line.String())
			f.Close()
		}
		mu.Unlock()
		mcp.ServeHTTP(w, r)
	}))
	ts.Defer(other.Close)
	front := redirector(other.URL)
	ts.Defer(front.Close)
	ts.Setenv("MCP_URL", front.URL+"/mcp")
	ts.Setenv("MCP_ORIGIN", front.URL)
	ts.Setenv("OTHER_URL", other.URL+"/mcp")
}

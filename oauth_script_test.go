package main

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kesoku/kesoku/internal/mcpauth/authtest"
)

func init() {
	scriptCmds["fakeoauth"] = cmdFakeOAuth
	scriptCommands["fakebrowser"] = func() { os.Exit(fakeBrowserMain(os.Args[1:])) }
}

// oauthServers are the servers behind OAuth the scripts started.
var oauthServers sync.Map // *testscript.TestScript → *authtest.Server

// cmdFakeOAuth plays an MCP server behind OAuth and its authorization
// server (authtest) in a script:
//
//	fakeoauth start [client-id=ID] [client-secret=S] [auth-methods=M,...]
//	                              start them; $MCP_URL is the MCP endpoint
//	fakeoauth count WHAT N        WHAT happened N times (register,
//	                              authorize, 401, "grant client_credentials")
//	fakeoauth clean FILE...       no secret handed out so far (token, code,
//	                              client secret) is in the files, nor in
//	                              the requests another origin got
//	fakeoauth revoke              the tokens issued stop working
func cmdFakeOAuth(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: fakeoauth start|count|clean|revoke ...")
	}
	srv := func() *authtest.Server {
		v, ok := oauthServers.Load(ts)
		if !ok {
			ts.Fatalf("fakeoauth %s: no server started", args[0])
		}
		return v.(*authtest.Server)
	}
	switch args[0] {
	case "start":
		var opts authtest.Options
		for _, a := range args[1:] {
			k, v, _ := strings.Cut(a, "=")
			switch k {
			case "client-id":
				opts.ClientID = v
			case "client-secret":
				opts.ClientSecret = v
			case "auth-methods":
				opts.AuthMethods = strings.Split(v, ",")
			default:
				ts.Fatalf("fakeoauth start: unknown option %q", a)
			}
		}
		s := authtest.New(opts)
		oauthServers.Store(ts, s)
		ts.Defer(func() {
			oauthServers.CompareAndDelete(ts, s)
			s.Close()
		})
		ts.Setenv("MCP_URL", s.URL)
	case "count":
		if len(args) != 3 {
			ts.Fatalf("usage: fakeoauth count WHAT N")
		}
		want, err := strconv.Atoi(args[2])
		ts.Check(err)
		if got := srv().Count(args[1]); got != want {
			ts.Fatalf("fakeoauth count %s: %d, want %d", args[1], got, want)
		}
	case "clean":
		s := srv()
		secrets := s.Secrets()
		if len(secrets) == 0 {
			ts.Fatalf("fakeoauth clean: no secret was handed out")
		}
		for _, f := range args[1:] {
			data := ts.ReadFile(f)
			for _, sec := range secrets {
				if strings.Contains(data, sec) {
					ts.Fatalf("fakeoauth clean: %s holds a secret (%.6s...)", f, sec)
				}
			}
		}
		for _, r := range s.Requests() {
			if r.Server == "other" {
				ts.Fatalf("fakeoauth clean: another origin got %s %s", r.Method, r.Path)
			}
		}
	case "revoke":
		srv().Revoke()
	default:
		ts.Fatalf("fakeoauth: unknown subcommand %q", args[0])
	}
}

// fakeBrowserMain is a person's browser for the scripts' $BROWSER: it
// opens the URL and follows the redirects, as the authorization server
// sends it back to kesoku with the code.
func fakeBrowserMain(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: fakebrowser URL")
		return 2
	}
	resp, err := http.Get(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakebrowser:", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "fakebrowser:", resp.Status)
		return 1
	}
	return 0
}

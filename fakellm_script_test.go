package main

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kesoku/kesoku/internal/llm/llmtest"
)

func init() { scriptCmds["fakellm"] = cmdFakeLLM }

// fakeServers are the fake provider servers the scripts started, one per
// script at a time.
var fakeServers sync.Map // *testscript.TestScript → *llmtest.Server

// cmdFakeLLM plays a fake Gemini or Claude server in a script:
//
//	fakellm start scenario.yaml   start a server playing the scenario
//	                              (llmtest.Scenario) and set $FAKELLM_URL
//	fakellm requests FILE         write the requests received so far to
//	                              FILE, one JSON object a line, for grep
//	fakellm waitfor FILE REGEXP   wait (up to 20s) until FILE, written by
//	                              a command in the background, matches
//	fakellm waitrequests N        wait (up to 20s) until the server has
//	                              received N requests
//
// The server speaks the provider's real REST format, plain and streamed,
// and lives until the script ends. A request line holds the method, path,
// whether a stream was asked for, the header the key came in (never the
// key) and the body as sent.
func cmdFakeLLM(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! fakellm")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: fakellm start SCENARIO | requests FILE | waitfor FILE REGEXP | waitrequests N")
	}
	switch args[0] {
	case "start":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm start SCENARIO")
		}
		sc, err := llmtest.LoadScenario(ts.MkAbs(args[1]))
		ts.Check(err)
		srv := sc.Start()
		if old, ok := fakeServers.Swap(ts, srv); ok {
			old.(*llmtest.Server).Close()
		}
		ts.Defer(func() {
			fakeServers.CompareAndDelete(ts, srv)
			srv.Close()
		})
		ts.Setenv("FAKELLM_URL", srv.URL)
	case "requests":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm requests FILE")
		}
		v, ok := fakeServers.Load(ts)
		if !ok {
			ts.Fatalf("fakellm requests: no server started")
		}
		var b bytes.Buffer
		for _, r := range v.(*llmtest.Server).Requests() {
			line, err := json.Marshal(r)
			ts.Check(err)
			b.Write(append(line, '\n'))
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b.Bytes(), 0o644))
	case "waitfor":
		if len(args) != 3 {
			ts.Fatalf("usage: fakellm waitfor FILE REGEXP")
		}
		re, err := regexp.Compile(args[2])
		ts.Check(err)
		deadline := time.Now().Add(20 * time.Second)
		for {
			data, _ := os.ReadFile(ts.MkAbs(args[1]))
			if re.Match(data) {
				return
			}
			if time.Now().After(deadline) {
				ts.Fatalf("fakellm waitfor: %s does not match %q after 20s", args[1], args[2])
			}
			time.Sleep(20 * time.Millisecond)
		}
	case "waitrequests":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm waitrequests N")
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		v, ok := fakeServers.Load(ts)
		if !ok {
			ts.Fatalf("fakellm waitrequests: no server started")
		}
		srv := v.(*llmtest.Server)
		deadline := time.Now().Add(20 * time.Second)
		for len(srv.Requests()) < n {
			if time.Now().After(deadline) {
				ts.Fatalf("fakellm waitrequests: %d requests after 20s, want %d", len(srv.Requests()), n)
			}
			time.Sleep(20 * time.Millisecond)
		}
	default:
		ts.Fatalf("fakellm: unknown subcommand %q", args[0])
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// cmdFakeLLM plays a fake Gemini, Claude or OpenAI server in a script:
//
//	fakellm start scenario.yaml   start a server playing the scenario
//	                              (llmtest.Scenario) and set $FAKELLM_URL
//	                              (the base URL a client is given: under
//	                              /v1 for OpenAI)
//	fakellm requests FILE         write the requests received so far to
//	                              FILE, one JSON object a line, for grep
//	fakellm files FILE            write the Files API requests received so
//	                              far (Gemini) to FILE, one a line:
//	                              method, path, upload command
//	fakellm waitfor FILE REGEXP   wait (up to 20s) until FILE, written by
//	                              a command in the background, matches
//	fakellm waitrequests N        wait (up to 20s) until the server has
//	                              received N requests
//	fakellm batches FILE          write the batches created so far to
//	                              FILE, one JSON object a line (id,
//	                              keys, requests, input file)
//	fakellm uploads FILE          write the files uploaded so far to
//	                              FILE, one a line (name, type, size,
//	                              whether it is deleted)
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
		ts.Fatalf("usage: fakellm start SCENARIO | requests FILE | files FILE | waitfor FILE REGEXP | waitrequests N")
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
		ts.Setenv("FAKELLM_URL", srv.BaseURL())
	case "requests":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm requests FILE")
		}
		var b bytes.Buffer
		for _, r := range startedServer(ts, "requests").Requests() {
			line, err := json.Marshal(r)
			ts.Check(err)
			b.Write(append(line, '\n'))
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b.Bytes(), 0o644))
	case "files":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm files FILE")
		}
		var b bytes.Buffer
		for _, r := range startedServer(ts, "files").FileRequests() {
			fmt.Fprintf(&b, "%s %s %s\n", r.Method, r.Path, r.Command)
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b.Bytes(), 0o644))
	case "waitfor":
		if len(args) != 3 {
			ts.Fatalf("usage: fakellm waitfor FILE REGEXP")
		}
		re, err := regexp.Compile(args[2])
		ts.Check(err)
		waitUntil(ts, func() bool {
			data, _ := os.ReadFile(ts.MkAbs(args[1]))
			return re.Match(data)
		}, func() string { return fmt.Sprintf("fakellm waitfor: %s does not match %q after 20s", args[1], args[2]) })
	case "waitrequests":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm waitrequests N")
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		srv := startedServer(ts, "waitrequests")
		waitUntil(ts, func() bool { return len(srv.Requests()) >= n },
			func() string {
				return fmt.Sprintf("fakellm waitrequests: %d requests after 20s, want %d", len(srv.Requests()), n)
			})
	case "batches", "uploads":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm %s FILE", args[0])
		}
		srv := startedServer(ts, args[0])
		var b bytes.Buffer
		if args[0] == "batches" {
			for _, bt := range srv.Batches() {
				line, err := json.Marshal(bt)
				ts.Check(err)
				b.Write(append(line, '\n'))
			}
		} else {
			for _, f := range srv.Uploads() {
				fmt.Fprintf(&b, "%s %s %d deleted=%v\n", f.Name, f.MIMEType, len(f.Data), f.Deleted)
			}
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), b.Bytes(), 0o644))
	default:
		ts.Fatalf("fakellm: unknown subcommand %q", args[0])
	}
}

// startedServer is the server the script started, for subcommand sub.
func startedServer(ts *testscript.TestScript, sub string) *llmtest.Server {
	v, ok := fakeServers.Load(ts)
	if !ok {
		ts.Fatalf("fakellm %s: no server started", sub)
	}
	return v.(*llmtest.Server)
}

// waitUntil polls done for up to 20s, and fails the script with failure's
// message when it never holds.
func waitUntil(ts *testscript.TestScript, done func() bool, failure func() string) {
	deadline := time.Now().Add(20 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			ts.Fatalf("%s", failure())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

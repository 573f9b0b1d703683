package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kesoku/kesoku/internal/tracing/otlptest"
)

func init() { scriptCmds["otlp"] = cmdOTLP }

// receivers are the OTLP receivers the scripts started, one per script.
var receivers sync.Map // *testscript.TestScript → *otlptest.Receiver

// cmdOTLP plays an OpenTelemetry collector in a script:
//
//	otlp start              start an OTLP/HTTP receiver and set $OTLP_URL
//	otlp hang               start one that takes requests and never
//	                        answers them (until the script ends)
//	otlp tree FILE          write the spans received so far to FILE as
//	                        their tree: names, and the attributes of the
//	                        GenAI and MCP conventions and kesoku's own
//	otlp records FILE       check that every record of FILE names a span
//	                        received (trace_id, span_id), of its kind: a
//	                        tool_result an execute_tool, a model's record
//	                        a chat, a verdict an invoke_agent
//	otlp types FILE         write the Content-Type of each request
//	otlp header NAME FILE   write the header NAME of each request
func cmdOTLP(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! otlp")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: otlp start | hang | tree FILE | records FILE | types FILE | header NAME FILE")
	}
	switch args[0] {
	case "start", "hang":
		r := otlptest.Start()
		if args[0] == "hang" {
			r = otlptest.StartHung()
		}
		if old, ok := receivers.Swap(ts, r); ok {
			old.(*otlptest.Receiver).Close()
		}
		ts.Defer(func() {
			receivers.CompareAndDelete(ts, r)
			r.Close()
		})
		ts.Setenv("OTLP_URL", r.URL())
	case "tree":
		if len(args) != 2 {
			ts.Fatalf("usage: otlp tree FILE")
		}
		tree := otlptest.Tree(receiver(ts).Spans(), func(k string) bool {
			if k == "gen_ai.conversation.id" {
				return false // a new id each run
			}
			return strings.HasPrefix(k, "gen_ai.") || strings.HasPrefix(k, "mcp.") || strings.HasPrefix(k, "kesoku.") || k == "error.type"
		})
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(tree), 0o644))
	case "records":
		if len(args) != 2 {
			ts.Fatalf("usage: otlp records FILE")
		}
		checkTracedRecords(ts, args[1])
	case "types":
		if len(args) != 2 {
			ts.Fatalf("usage: otlp types FILE")
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(strings.Join(receiver(ts).ContentTypes(), "\n")+"\n"), 0o644))
	case "header":
		if len(args) != 3 {
			ts.Fatalf("usage: otlp header NAME FILE")
		}
		var b strings.Builder
		for _, h := range receiver(ts).Headers() {
			b.WriteString(h.Get(args[1]) + "\n")
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(b.String()), 0o644))
	default:
		ts.Fatalf("otlp: unknown subcommand %q", args[0])
	}
}

func receiver(ts *testscript.TestScript) *otlptest.Receiver {
	r, ok := receivers.Load(ts)
	if !ok {
		ts.Fatalf("otlp: no receiver started")
	}
	return r.(*otlptest.Receiver)
}

func checkTracedRecords(ts *testscript.TestScript, file string) {
	spans := map[string]otlptest.Span{}
	for _, s := range receiver(ts).Spans() {
		spans[s.TraceID+"/"+s.SpanID] = s
	}
	data, err := os.ReadFile(ts.MkAbs(file))
	ts.Check(err)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var rec struct {
			Type, Role string
			TraceID    string `json:"trace_id"`
			SpanID     string `json:"span_id"`
		}
		ts.Check(json.Unmarshal(sc.Bytes(), &rec))
		n++
		s, ok := spans[rec.TraceID+"/"+rec.SpanID]
		if !ok {
			ts.Fatalf("record %d (%s): trace_id %q span_id %q name no span received", n, rec.Type, rec.TraceID, rec.SpanID)
		}
		var want []string
		switch {
		case rec.Type == "tool_result":
			// A request refused before it ran is under its run's span.
			want = []string{"execute_tool ", "kesoku "}
		case rec.Role == "assistant":
			want = []string{"chat "}
		case rec.Type == "verdict", rec.Role == "user":
			want = []string{"invoke_agent"}
		}
		if len(want) > 0 && !slices.ContainsFunc(want, func(w string) bool { return strings.HasPrefix(s.Name, w) }) {
			ts.Fatalf("record %d (%s of %s): under span %q, want one of %q", n, rec.Type, rec.Role, s.Name, want)
		}
	}
	ts.Check(sc.Err())
	if n == 0 {
		ts.Fatalf("%s holds no record", file)
	}
}

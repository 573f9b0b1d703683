package toolsource

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/kesoku/kesoku/internal/toolsource/mcptest"
)

// nested is a JSON object that nests levels deep.
func nested(levels int) string {
	return strings.Repeat(`{"a":`, levels-1) + "{}" + strings.Repeat("}", levels-1)
}

// TestStdioConnDeepAnswer: an answer nested deeper than the SDK reads is
// an error of its own call at once, found by its id wherever the id is
// (servers written in TypeScript put it after the result); a deep line
// that answers no call is skipped, as is a log line that has an id and a
// result but is no JSON-RPC message; the connection goes on.
func TestStdioConnDeepAnswer(t *testing.T) {
	t.Parallel()
	deep := nested(1500)
	in := `{"jsonrpc":"2.0","id":4,"result":` + deep + "}\n" +
		`{"result":` + deep + `,"jsonrpc":"2.0","id":"five"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/message","params":` + deep + "}\n" +
		`{"jsonrpc":"2.0","id":9,"result":` + deep + "}\n" +
		`{"level":30,"id":6,"result":` + deep + "}\n" +
		`{"jsonrpc":"2.0","id":6,"result":{}}` + "\n"
	var skipped []string
	c := newStdioConn(io.NopCloser(strings.NewReader(in)), nopWriteCloser{io.Discard}, 1<<20, &toolList{}, func(l string) { skipped = append(skipped, l[:20]) })
	c.calls[mustID(t, 4.0)] = "tools/call"
	c.calls[mustID(t, "five")] = "tools/call"
	c.calls[mustID(t, 6.0)] = "tools/call"
	c.start()
	got := received(c)
	const why = "the server sent an answer nested 1501 levels deep, more than the 1000 kesoku reads: kesoku did not read it"
	want := []string{"error 4: " + why, "error five: " + why, "result 6"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages mismatch (-want +got):\n%s", diff)
	}
	if len(skipped) != 3 {
		t.Errorf("skipped %q, want the notification, the answer to no call and the log line", skipped)
	}
}

// TestServerDeepAnswer: a result nested deeper than kesoku reads fails
// its own call at once, over standard input and output as over HTTP (an
// event of the call's stream, a JSON body), and the server's next call
// succeeds.
func TestServerDeepAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(mcptest.HTTPHandler("s3cret"))
	t.Cleanup(srv.Close)
	// A server that answers with a JSON body, its id after its result.
	jsonSrv := answering("tools/call", func(w http.ResponseWriter, id json.RawMessage, params []byte) bool {
		var p struct {
			Name      string
			Arguments struct{ Levels int }
		}
		if json.Unmarshal(params, &p) != nil || p.Name != "nest" {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"result":{"content":[],"structuredContent":`+nested(p.Arguments.Levels)+`},"jsonrpc":"2.0","id":`+string(id)+`}`)
		return true
	})
	t.Cleanup(jsonSrv.Close)
	for name, set := range map[string]*Set{
		"fake": fakeServer(t, context.Background(), Options{}),
		"web":  httpServer(t, Options{}, srv.URL+"/mcp"),
		"json": setOf(t, context.Background(), Options{}, "mcpServers:\n  json:\n    type: http\n    url: "+jsonSrv.URL+"/mcp\n    headers: {Authorization: \"Bearer s3cret\"}\n"),
	} {
		if name == "json" {
			if _, err := call(t, set, name+"__nest", map[string]any{"levels": 3}); err != nil {
				t.Errorf("%s: a shallow result: %v", name, err)
			}
		} else if v, err := call(t, set, name+"__nest", map[string]any{"levels": 3}); err != nil {
			t.Errorf("%s: a shallow result: %v", name, err)
		} else if diff := cmp.Diff(map[string]any{"a": map[string]any{"a": map[string]any{"a": 1.0}}}, v); diff != "" {
			t.Errorf("%s: a shallow result mismatch (-want +got):\n%s", name, diff)
		}
		_, err := call(t, set, name+"__nest", map[string]any{"levels": 1500})
		if want := "more than the 1000 kesoku reads"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: a deep result: %v, want %q", name, err, want)
		}
		if v, err := call(t, set, name+"__echo", map[string]any{"text": "after"}); err != nil || v != "after" {
			t.Errorf("%s: the call after: %v, %v", name, v, err)
		}
	}
}

// TestServerToolDeeperThanAnyReader: a tool whose schema nests past what
// any JSON reader of kesoku's reads (encoding/json stops at 10,000
// levels) is left out with a warning, over standard input and output as
// over HTTP, and the server's other tools are offered.
func TestServerToolDeeperThanAnyReader(t *testing.T) {
	t.Parallel()
	const levels = 6000 // two JSON levels each
	deepTool := `{"name":"deeper","inputSchema":{"type":"object","properties":{"a":` +
		strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"string"}` + strings.Repeat("}}", levels) + "}}}"
	srv := answering("tools/list", func(w http.ResponseWriter, id json.RawMessage, _ []byte) bool {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}},`+deepTool+`]}}`)
		return true
	})
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	var warnings []string
	opts := Options{Warn: func(m string) { mu.Lock(); warnings = append(warnings, m); mu.Unlock() }}
	for name, set := range map[string]*Set{
		"fake": fakeServer(t, context.Background(), opts, "-bad-tools", "deeper"),
		"web":  httpServer(t, opts, srv.URL+"/mcp"),
	} {
		if err := set.Registry.Load(); err != nil {
			t.Errorf("%s: the server's tools: %v", name, err)
			continue
		}
		if _, ok := set.Registry.Lookup(name + "__deeper"); ok {
			t.Errorf("%s__deeper is offered", name)
		}
		if v, err := call(t, set, name+"__echo", map[string]any{"text": "hi"}); err != nil || v != "hi" {
			t.Errorf("%s__echo: %v, %v", name, v, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, name := range []string{"fake", "web"} {
		want := fmt.Sprintf(`mcp server %s (`, name)
		if !slices.ContainsFunc(warnings, func(w string) bool {
			return strings.HasPrefix(w, want) && strings.Contains(w, `tool "deeper" is not offered: it nests 12004 levels deep, more than the 200 kesoku reads`)
		}) {
			t.Errorf("no warning for %s in:\n%s", name, strings.Join(warnings, "\n"))
		}
	}
}

// answering is the fake server over HTTP, but for the requests of method
// that answer takes (it is given the request's id and params, and
// reports whether it answered): a server whose answers the SDK's server
// would not write.
func answering(method string, answer func(w http.ResponseWriter, id json.RawMessage, params []byte) bool) *httptest.Server {
	inner := mcptest.HTTPHandler("s3cret")
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		if req.Method == method && answer(w, req.ID, req.Params) {
			return
		}
		inner.ServeHTTP(w, r)
	}))
}

// received is what c hands the SDK until its end, a line each: "result
// ID", "error ID: message", "request METHOD".
func received(c *stdioConn) []string {
	var got []string
	for {
		msg, err := c.Read(context.Background())
		if err != nil {
			return got
		}
		switch m := msg.(type) {
		case *jsonrpc.Response:
			if m.Error != nil {
				got = append(got, fmt.Sprintf("error %v: %v", m.ID.Raw(), m.Error))
			} else {
				got = append(got, fmt.Sprintf("result %v", m.ID.Raw()))
			}
		case *jsonrpc.Request:
			got = append(got, "request "+m.Method)
		}
	}
}

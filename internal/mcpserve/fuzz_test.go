package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

// FuzzTokenGate holds requireToken to its one promise: whatever the
// request, nothing reaches the server behind it without the token.
func FuzzTokenGate(f *testing.F) {
	const token = "k3soku-fuzz-token-0123456789abcdef"
	for _, auth := range []string{"", "Bearer " + token, "bearer " + token, "Bearer  " + token, "Bearer " + token + " ", "Bearer", "Basic " + token, token, "Bearer " + token[:10], "Bearer\t" + token} {
		f.Add(auth, "POST", []byte(initialize))
	}
	f.Fuzz(func(t *testing.T, auth, method string, body []byte) {
		reached := false
		h := requireToken(token, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", bytes.NewReader(body))
		if err != nil {
			t.Skip()
		}
		if m := strings.TrimSpace(method); m != "" && !strings.ContainsAny(m, " \t\r\n") {
			req.Method = m
		}
		req.Header["Authorization"] = []string{auth}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if reached && !(strings.HasPrefix(strings.ToLower(auth), "bearer ") && strings.TrimSpace(auth[len("bearer "):]) == token) {
			t.Fatalf("Authorization %q reached the server", auth)
		}
		if !reached && (auth == "Bearer "+token || auth == "bearer "+token) {
			t.Fatalf("Authorization %q did not reach the server", auth)
		}
		if !reached && rec.Code != http.StatusUnauthorized {
			t.Fatalf("Authorization %q: %d, want 401", auth, rec.Code)
		}
	})
}

// FuzzCallArguments sends whatever arguments to the tools: every call is
// answered with a result, never a protocol error or a crash.
func FuzzCallArguments(f *testing.F) {
	for _, seed := range []struct{ name, args string }{
		{"calculate_sum", `{"a":1,"b":2}`},
		{"calculate_sum", `{"a":1.0,"b":-2}`},
		{"calculate_sum", `{"a":"1","b":2}`},
		{"calculate_sum", `{"a":9223372036854775807,"b":1}`},
		{"calculate_sum", `{"a":1e400,"b":1}`},
		{"calculate_sum", `[1,2]`},
		{"calculate_sum", `null`},
		{"calculate_sum", ``},
		{"calculate_sum", `{"a":1,"b":2,"a":3}`},
		{"read_file", `{"path":"../x"}`},
		{"read_file", `{"path":"/etc/passwd","offset":-1}`},
		{"read_file", `{"path":"\u0000"}`},
		{"list_dir", `{"path":{"deep":[[[[]]]]}}`},
		{"grep", `{"pattern":"(","path":"."}`},
		{"glob", `{"pattern":"**/{a,b"}`},
	} {
		f.Add(seed.name, []byte(seed.args))
	}
	tt := toolset.New()
	for _, spec := range registry.Default.All() {
		// Nothing that writes, nothing that waits.
		if !spec.Writes && spec.Name != "sleep" {
			tt.MustRegister(toolset.FromSpec(spec))
		}
	}
	opts := Options{Version: "fuzz"}
	opts.Runner.Jobs = 4
	opts.Runner.MaxOutput = 1 << 16
	opts.Runner.AWD = f.TempDir()
	s := New(tt, opts)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(context.Background(), st, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fuzz", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		f.Fatal(err)
	}
	defer cs.Close()
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		if _, ok := tt.Lookup(name); !ok {
			t.Skip()
		}
		req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: name, Arguments: json.RawMessage(args)}}
		res, err := s.call(context.Background(), req)
		if err != nil {
			t.Fatalf("%s %q: protocol error %v", name, args, err)
		}
		if len(res.Content) != 1 {
			t.Fatalf("%s %q: %d content blocks", name, args, len(res.Content))
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("%s %q: the result does not encode: %v", name, args, err)
		}
		// What a client that checks results against the output schema
		// needs: an error with nothing structured, or an object.
		sc, _ := res.StructuredContent.(json.RawMessage)
		if res.IsError && res.StructuredContent != nil {
			t.Fatalf("%s %q: an error with structured content %s", name, args, sc)
		}
		if !res.IsError && s.outputs[name].object && (len(sc) == 0 || sc[0] != '{') {
			t.Fatalf("%s %q: structured content %s where the output schema is an object's", name, args, sc)
		}
	})
}

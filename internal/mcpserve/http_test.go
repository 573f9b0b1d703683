package mcpserve

import (
	"context"
	"errors"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Serving to a network without a token is impossible: an address that is
// not loopback is refused before anything listens, unless the server
// checks a token.
func TestListen(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr      string
		withToken bool
		// want is the host listened on; "" for a refusal.
		want string
	}{
		{"0", false, "127.0.0.1"},
		{":0", false, "127.0.0.1"},
		{"127.0.0.1:0", false, "127.0.0.1"},
		{"[::1]:0", false, "::1"},
		{"localhost:0", false, "127.0.0.1"},
		{"0.0.0.0:0", false, ""},
		{"[::]:0", false, ""},
		{"192.0.2.1:0", false, ""}, // refused before binding: no such local address
		{"0.0.0.0:0", true, "0.0.0.0"},
	} {
		ln, err := Listen(context.Background(), tc.addr, tc.withToken)
		if tc.want == "" {
			if err == nil {
				ln.Close()
				t.Errorf("Listen(%q) without a token listened on %s", tc.addr, ln.Addr())
			} else if !errors.Is(err, ErrNeedsToken) {
				t.Errorf("Listen(%q): %v, want ErrNeedsToken", tc.addr, err)
			}
			continue
		}
		if err != nil {
			if tc.addr == "[::1]:0" {
				continue // a machine without IPv6
			}
			t.Errorf("Listen(%q, token %v): %v", tc.addr, tc.withToken, err)
			continue
		}
		if u := URL(ln); !strings.HasPrefix(u, "http://127.0.0.1:") && !strings.HasPrefix(u, "http://[::1]:") {
			t.Errorf("Listen(%q): URL %s is not one a client here can use", tc.addr, u)
		}
		host, _, _ := net.SplitHostPort(ln.Addr().String())
		if host != tc.want && !(tc.want == "127.0.0.1" && net.ParseIP(host).IsLoopback()) && !(tc.want == "0.0.0.0" && host == "::") {
			t.Errorf("Listen(%q) listens on %s, want %s", tc.addr, ln.Addr(), tc.want)
		}
		ln.Close()
	}
	for _, addr := range []string{"", "a:b:c", "127.0.0.1:x y"} {
		var ae *AddrError
		if _, err := Listen(context.Background(), addr, false); !errors.As(err, &ae) {
			t.Errorf("Listen(%q): %v, want an AddrError", addr, err)
		}
	}
}

// httpClient connects to the server at url. It gives up on the server
// at once when its stream of notifications breaks, unless retries says
// how often to try again (0 for the SDK's default).
func httpClient(t *testing.T, url string, hc *http.Client, retries int) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: retries}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestHTTP(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	srv := httptest.NewServer(New(tt.reg, testOptions(t)).Handler(""))
	t.Cleanup(srv.Close)
	cs := httpClient(t, srv.URL+Path, nil, -1)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != len(tt.reg.Names()) {
		t.Fatalf("tools/list: %v, %v", res, err)
	}
	if r := call(t, cs, "calculate_sum", map[string]any{"a": 40, "b": 2}); text(t, r) != "42" {
		t.Errorf("calculate_sum: %q", text(t, r))
	}
	if r := call(t, cs, "calculate_sum", map[string]any{"a": "x"}); !r.IsError {
		t.Errorf("a bad argument over HTTP: not an error: %q", text(t, r))
	}

	// Nothing is served but the endpoint.
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /: %s, want 404", resp.Status)
	}
}

// initialize is the body of a client's first request.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// firstRequests are the first request of a client of each revision: one
// with sessions initializes, one without lists the tools at once.
var firstRequests = []struct {
	era     string
	body    string
	headers map[string]string
}{
	{"sessions", initialize, nil},
	{"stateless",
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}},
}

// postBody sends body with the headers given.
func postBody(t *testing.T, url, body string, headers map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// bearer is an http.RoundTripper that sends a token.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// With a token, a request without it, or with another, gets 401; the
// right one lets the client in.
func TestHTTPToken(t *testing.T) {
	t.Parallel()
	const token = "k3soku-test-token-0123456789abcdef"
	tt := newTestTools(t)
	srv := httptest.NewServer(New(tt.reg, testOptions(t)).Handler(token))
	t.Cleanup(srv.Close)
	url := srv.URL + Path
	for _, first := range firstRequests {
		for _, auth := range []string{"", "Bearer", "Bearer wrong", "Bearer " + token + "x", "Basic " + token, token} {
			resp := postBody(t, url, first.body, with(first.headers, "Authorization", auth))
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s, Authorization %q: %s, want 401", first.era, auth, resp.Status)
			}
			if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Errorf("%s, Authorization %q: WWW-Authenticate %q", first.era, auth, got)
			}
		}
		for _, auth := range []string{"Bearer " + token, "bearer " + token} {
			if resp := postBody(t, url, first.body, with(first.headers, "Authorization", auth)); resp.StatusCode != http.StatusOK {
				t.Errorf("%s, Authorization %q: %s, want 200", first.era, auth, resp.Status)
			}
		}
	}
	// The SDK's own client, with the token, lists and calls.
	cs := httpClient(t, url, &http.Client{Transport: bearer(token)}, -1)
	if r := call(t, cs, "calculate_sum", map[string]any{"a": 1, "b": 2}); text(t, r) != "3" {
		t.Errorf("calculate_sum with the token: %q", text(t, r))
	}
	// Without it, it never gets in.
	c := mcp.NewClient(&mcp.Implementation{Name: "intruder", Version: "1"}, nil)
	if cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil); err == nil {
		cs.Close()
		t.Error("a client without the token connected")
	}
}

// DNS rebinding: a request that reaches the loopback address with a Host
// that is not loopback (a web page's name, rebound to 127.0.0.1) is
// refused, token or not.
func TestHTTPRebinding(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	const token = "k3soku-test-token-0123456789abcdef"
	for _, tok := range []string{"", token} {
		srv := httptest.NewServer(New(tt.reg, testOptions(t)).Handler(tok))
		t.Cleanup(srv.Close)
		_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		for _, first := range firstRequests {
			h := with(first.headers, "Authorization", "Bearer "+tok)
			h["Host"] = "evil.example:" + port
			if resp := postBody(t, srv.URL+Path, first.body, h); resp.StatusCode != http.StatusForbidden {
				t.Errorf("%s, token %q, Host evil.example: %s, want 403", first.era, tok, resp.Status)
			}
			h["Host"] = "localhost:" + port
			if resp := postBody(t, srv.URL+Path, first.body, h); resp.StatusCode != http.StatusOK {
				t.Errorf("%s, token %q, Host localhost: %s, want 200", first.era, tok, resp.Status)
			}
		}
	}
}

// An interrupt stops the HTTP server cleanly: the call in flight returns
// its result to its client, then the listener is gone.
func TestServeListenerInterrupt(t *testing.T) {
	t.Parallel()
	for _, version := range []string{modern, legacy} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			testServeListenerInterrupt(t, version)
		})
	}
}

func testServeListenerInterrupt(t *testing.T, version string) {
	tt := newTestTools(t)
	opts := testOptions(t)
	store := &memStore{}
	opts.Records = store
	s := New(tt.reg, opts)
	ln, err := Listen(context.Background(), "127.0.0.1:0", false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- s.ServeListener(ctx, ln, "") }()
	// The client's stream of notifications ends as the server stops, and
	// may end before the client has read the answer that came before: a
	// client that retries (as the SDK's does by default) reads it.
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: URL(ln)}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res := callAsync(t, cs, "block", map[string]any{"tag": "x"})
	await(t, tt.started)
	stop()
	r := await(t, res)
	if r == nil || !r.IsError || !strings.HasPrefix(text(t, r), "aborted: interrupted while running") {
		t.Fatalf("the call in flight: %+v", r)
	}
	if err := await(t, served); err != nil {
		t.Errorf("ServeListener returned %v after an interrupt", err)
	}
	if recs := store.all(); len(recs) != 1 {
		t.Errorf("%d records, want 1", len(recs))
	}
	if _, err := http.Post(URL(ln), "application/json", strings.NewReader(initialize)); err == nil {
		t.Error("the server still answers after it stopped")
	}
}

// Without a token, a web page's request from another origin is refused:
// a page the user opens cannot call the tools. With a token, the token
// decides, and a browser-based client that has it gets in.
func TestHTTPCrossOrigin(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	const token = "k3soku-test-token-0123456789abcdef"
	srv := httptest.NewServer(New(tt.reg, testOptions(t)).Handler(""))
	t.Cleanup(srv.Close)
	withToken := httptest.NewServer(New(tt.reg, testOptions(t)).Handler(token))
	t.Cleanup(withToken.Close)
	for _, first := range firstRequests {
		browser := with(with(first.headers, "Origin", "https://evil.example"), "Sec-Fetch-Site", "cross-site")
		if resp := postBody(t, srv.URL+Path, first.body, browser); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: a cross-origin page, no token: %s, want 403", first.era, resp.Status)
		}
		if resp := postBody(t, srv.URL+Path, first.body, with(first.headers, "Sec-Fetch-Site", "same-origin")); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: same origin, no token: %s, want 200", first.era, resp.Status)
		}
		browser["Authorization"] = "Bearer " + token
		if resp := postBody(t, withToken.URL+Path, first.body, browser); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: a cross-origin page with the token: %s, want 200", first.era, resp.Status)
		}
	}
}

// with is a copy of h with k set to v.
func with(h map[string]string, k, v string) map[string]string {
	out := maps.Clone(h)
	if out == nil {
		out = map[string]string{}
	}
	out[k] = v
	return out
}

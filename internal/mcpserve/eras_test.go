package mcpserve

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/message"
)

// sdkClient connects the SDK's client to url, asking for version ("" for
// its default: the stateless revision, falling back to the last one with
// sessions).
func sdkClient(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// sessions counts the sessions the server keeps: the SDK's and kesoku's
// own state of them.
func sessions(s *Server) (sdk, ours int) {
	for range s.mcp.Sessions() {
		sdk++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return sdk, len(s.sessions)
}

// waitFor polls cond until it holds, failing the test when it never does.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 4000 {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("after 20s: %s", what)
}

// httpServed is a server of the test tools over HTTP, its records kept.
type httpServed struct {
	tt    *testTools
	s     *Server
	store *memStore
	url   string
}

// serveHTTP serves the test tools over HTTP, with the options that
// configure (nil for none) changes.
func serveHTTP(t *testing.T, configure func(*Options)) *httpServed {
	t.Helper()
	h := &httpServed{tt: newTestTools(t), store: &memStore{}}
	opts := testOptions(t)
	opts.Records = h.store
	if configure != nil {
		configure(&opts)
	}
	h.s = New(h.tt.reg, opts)
	srv := httptest.NewServer(h.s.Handler(""))
	t.Cleanup(srv.Close)
	h.url = srv.URL + Path
	return h
}

// Over HTTP, a client of the stateless revision is served without a
// session, and a client of the last revision with sessions as before; the
// SDK's client, which tries the first and falls back, gets the first.
func TestHTTPBothEras(t *testing.T) {
	t.Parallel()
	h := serveHTTP(t, nil)
	tt, store, url := h.tt, h.store, h.url

	for _, version := range []string{"", legacy} {
		cs := sdkClient(t, url, version)
		got := cs.InitializeResult().ProtocolVersion
		if want := version; got != want && !(want == "" && got == modern) {
			t.Errorf("client asking for %q: protocol %s", version, got)
		}
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil || len(res.Tools) != len(tt.reg.Names()) {
			t.Fatalf("%s: tools/list: %v, %v", got, res, err)
		}
		r := call(t, cs, "calculate_sum", map[string]any{"a": 40, "b": 2})
		if text(t, r) != "42" {
			t.Errorf("%s: calculate_sum: %q", got, text(t, r))
		}
		// Structured content of any JSON value is the stateless
		// revision's; before it, only an object.
		if wantStructured := got >= modern; (r.StructuredContent != nil) != wantStructured {
			t.Errorf("%s: calculate_sum: structured %v", got, r.StructuredContent)
		}
		if r := call(t, cs, "calculate_sum", map[string]any{"a": "x"}); !r.IsError {
			t.Errorf("%s: a bad argument: not an error: %q", got, text(t, r))
		}
	}

	// By hand: no initialize for the stateless revision.
	mc := newRawClient(t, url, modern)
	resp, err := mc.callTool(context.Background(), "calculate_sum", map[string]any{"a": 1, "b": 2})
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := resp.toolResult(t); text != "3" || isErr {
		t.Errorf("a call of the stateless revision: %q, isError %v", text, isErr)
	}
	if resp.header.Get("Mcp-Session-Id") != "" {
		t.Errorf("a stateless answer carries a session id")
	}
	lc := newRawClient(t, url, legacy)
	lc.mustInitialize()
	resp, err = lc.callTool(context.Background(), "calculate_sum", map[string]any{"a": 2, "b": 2})
	if err != nil {
		t.Fatal(err)
	}
	if text, isErr := resp.toolResult(t); text != "4" || isErr {
		t.Errorf("a call in a session: %q, isError %v", text, isErr)
	}
	if n := len(store.all()); n != 6 {
		t.Errorf("%d records, want 6", n)
	}
}

// Each request of the stateless revision is a session of the SDK's that
// ends with it: kesoku keeps nothing of it, and its records carry the one
// session id of the run, its calls numbered through the run.
func TestHTTPStatelessRecords(t *testing.T) {
	t.Parallel()
	h := serveHTTP(t, nil)
	s, store, url := h.s, h.store, h.url
	for i := range 5 {
		c := newRawClient(t, url, modern)
		resp, err := c.callTool(context.Background(), "calculate_sum", map[string]any{"a": i, "b": 0})
		if err != nil {
			t.Fatal(err)
		}
		if text, _ := resp.toolResult(t); text != strconv.Itoa(i) {
			t.Errorf("call %d: %q", i, text)
		}
	}
	recs := store.all()
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5", len(recs))
	}
	for i, r := range recs {
		if r.SessionID == "" || r.SessionID != recs[0].SessionID {
			t.Errorf("record %d: session %q, want the run's one, %q", i, r.SessionID, recs[0].SessionID)
		}
		if want := "call_" + strconv.Itoa(i+1); r.ParentID != want {
			t.Errorf("record %d: parent %q, want %q", i, r.ParentID, want)
		}
	}
	if sdk, ours := sessions(s); sdk != 0 || ours != 0 {
		t.Errorf("%d sessions of the SDK and %d of kesoku kept after stateless requests", sdk, ours)
	}

	// A session of the older revision is one of its own.
	cs := sdkClient(t, url, legacy)
	call(t, cs, "calculate_sum", map[string]any{"a": 1, "b": 1})
	if recs := store.all(); recs[5].SessionID == recs[0].SessionID {
		t.Errorf("a client's session shares the stateless session id %s", recs[0].SessionID)
	}
}

// Two servers behind a proxy that sends each request to the next of them
// in turn serve one client of the stateless revision: none of its requests
// needs the server of the one before.
func TestHTTPRoundRobin(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	var backends []*url.URL
	var stores []*memStore
	for range 2 {
		opts := testOptions(t)
		store := &memStore{}
		opts.Records = store
		stores = append(stores, store)
		srv := httptest.NewServer(New(tt.reg, opts).Handler(""))
		t.Cleanup(srv.Close)
		u, _ := url.Parse(srv.URL)
		backends = append(backends, u)
	}
	var next atomic.Int64
	var hits [2]atomic.Int64
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		i := next.Add(1) % 2
		hits[i].Add(1)
		r.SetURL(backends[i])
	}})
	t.Cleanup(proxy.Close)

	cs := sdkClient(t, proxy.URL+Path, "")
	if v := cs.InitializeResult().ProtocolVersion; v != modern {
		t.Fatalf("protocol %s through the proxy", v)
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != len(tt.reg.Names()) {
		t.Fatalf("tools/list: %v, %v", res, err)
	}
	for i := range 4 {
		if r := call(t, cs, "calculate_sum", map[string]any{"a": i, "b": 1}); text(t, r) != strconv.Itoa(i+1) {
			t.Errorf("call %d: %q", i, text(t, r))
		}
	}
	if hits[0].Load() == 0 || hits[1].Load() == 0 {
		t.Errorf("requests per server %d, %d: want both used", hits[0].Load(), hits[1].Load())
	}
	if a, b := len(stores[0].all()), len(stores[1].all()); a == 0 || b == 0 || a+b != 4 {
		t.Errorf("records per server %d, %d: want 4 calls, served by both", a, b)
	}
}

// A client that goes away with a call in flight (its connection closed)
// has the call cancelled and recorded as aborted, in either revision: no
// one could read its answer. Its slot is free for the next call.
func TestHTTPClientGoesAway(t *testing.T) {
	t.Parallel()
	for _, version := range []string{modern, legacy} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			h := serveHTTP(t, func(o *Options) { o.Runner.Jobs = 1 })
			tt, store, url := h.tt, h.store, h.url
			c := newRawClient(t, url, version)
			if version < modern {
				c.mustInitialize()
			}
			ctx, drop := context.WithCancel(context.Background())
			returned := make(chan error, 1)
			go func() {
				_, err := c.callTool(ctx, "block", map[string]any{"tag": "x"})
				returned <- err
			}()
			await(t, tt.started)
			drop()
			if err := await(t, returned); !errors.Is(err, context.Canceled) {
				t.Fatalf("the dropped request returned %v", err)
			}
			recs := waitRecords(t, store, 1)
			if r := recs[0]; r.Status != message.StatusAborted || r.Error == nil || r.Error.Kind != message.KindAborted {
				t.Errorf("record of the call whose client went away: %+v", r)
			}
			// The only slot is free again.
			other := sdkClient(t, url, version)
			if r := call(t, other, "calculate_sum", map[string]any{"a": 1, "b": 2}); text(t, r) != "3" {
				t.Errorf("the next call: %q", text(t, r))
			}
		})
	}
}

// A client of the last revision with sessions cancels a call with
// notifications/cancelled, its connection still open; one of the
// stateless revision by closing the request. Either way the call's
// context is cancelled and its record says aborted.
func TestHTTPCancel(t *testing.T) {
	t.Parallel()
	h := serveHTTP(t, nil)
	tt, store, url := h.tt, h.store, h.url

	c := newRawClient(t, url, legacy)
	c.mustInitialize()
	answered := make(chan *rawResponse, 1)
	go func() {
		resp, err := c.callTool(context.Background(), "block", map[string]any{"tag": "x"})
		if err != nil {
			t.Error(err)
		}
		answered <- resp
	}()
	await(t, tt.started)
	// The call's id is the client's second: initialize was the first.
	if resp, err := c.send(context.Background(), "notifications/cancelled", "", map[string]any{"requestId": 2, "reason": "changed my mind"}); err != nil || resp.status != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %+v, %v", resp, err)
	}
	recs := waitRecords(t, store, 1)
	if recs[0].Status != message.StatusAborted {
		t.Errorf("the cancelled call: %+v", recs[0])
	}
	if resp := await(t, answered); resp == nil {
		t.Error("the cancelled call's request never ended")
	}

	for i, version := range []string{legacy, ""} {
		cs := sdkClient(t, url, version)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{"tag": "y"}})
			done <- err
		}()
		await(t, tt.started)
		cancel()
		if err := await(t, done); !errors.Is(err, context.Canceled) {
			t.Errorf("%q: the cancelled call returned %v", version, err)
		}
		if r := waitRecords(t, store, i+2)[i+1]; r.Status != message.StatusAborted {
			t.Errorf("%q: the cancelled call: %+v", version, r)
		}
	}
}

// Sessions that go idle expire, so that clients that initialize and go
// away cost nothing for ever; a session with a call in flight is not
// idle, however long the call.
func TestSessionsExpire(t *testing.T) {
	t.Parallel()
	h := serveHTTP(t, func(o *Options) { o.SessionTimeout = 50 * time.Millisecond })
	tt, s, store, url := h.tt, h.s, h.store, h.url

	// The busy client's session may expire before its call comes, on a
	// slow machine: then it starts again.
	var busy *rawClient
	ctx, drop := context.WithCancel(context.Background())
	defer drop()
	returned := make(chan *rawResponse, 1)
	for busy == nil {
		c := newRawClient(t, url, legacy)
		c.mustInitialize()
		started := make(chan *rawResponse, 1)
		go func() {
			resp, _ := c.callTool(ctx, "block", map[string]any{"tag": "busy"})
			started <- resp
		}()
		select {
		case <-tt.started:
			busy = c
			go func() { returned <- <-started }()
		case resp := <-started:
			if resp == nil || resp.status != http.StatusNotFound {
				t.Fatalf("the busy call: %+v", resp)
			}
		}
	}

	var idle []*rawClient
	for range 50 {
		c := newRawClient(t, url, legacy)
		c.mustInitialize()
		idle = append(idle, c)
		// A call makes kesoku's own state of the session too, unless
		// the session is already gone.
		c.callTool(context.Background(), "calculate_sum", map[string]any{"a": 1, "b": 1})
	}
	waitFor(t, "the idle sessions expire, the busy one stays", func() bool {
		sdk, ours := sessions(s)
		return sdk == 1 && ours == 1
	})
	select {
	case resp := <-returned:
		t.Fatalf("the busy call returned: %+v", resp)
	default:
	}
	// A client whose session expired is told it is gone.
	resp, err := idle[0].callTool(context.Background(), "calculate_sum", map[string]any{"a": 1, "b": 1})
	if err != nil || resp.status != http.StatusNotFound {
		t.Errorf("a call in an expired session: %+v, %v", resp, err)
	}
	// Once its call ends, the busy session goes idle too, and expires.
	drop()
	waitFor(t, "the busy session expires after its call", func() bool {
		sdk, ours := sessions(s)
		return sdk == 0 && ours == 0
	})
	for _, r := range store.all() {
		if r.Name == "block" && r.Status != message.StatusAborted {
			t.Errorf("the busy call's record: %+v", r)
		}
	}
}

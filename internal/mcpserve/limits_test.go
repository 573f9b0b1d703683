package mcpserve

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// hangGuard is how long a test waits on a connection that should close
// before it calls the server's failure to close it a hang. It bounds
// nothing the server is asked to do fast: the timeouts under test are a
// few milliseconds.
const hangGuard = 30 * time.Second

// listen serves s on a loopback listener of its own until the test ends,
// returning the listener's address.
func listen(t *testing.T, s *Server, token string) string {
	t.Helper()
	ln, err := Listen(context.Background(), "127.0.0.1:0", token != "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.ServeListener(ctx, ln, token) }()
	t.Cleanup(func() {
		stop()
		<-served
	})
	return ln.Addr().String()
}

// rawRequest is an HTTP/1.1 request as bytes, kept alive.
func rawRequest(host, body string, headers ...string) string {
	var b strings.Builder
	b.WriteString("POST " + Path + " HTTP/1.1\r\nHost: " + host + "\r\n")
	b.WriteString("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
	for _, h := range headers {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	return b.String()
}

// exchange sends req on a connection of its own to addr and reads the
// answer whole, leaving the connection open (closed when the test ends).
func exchange(t *testing.T, addr, req string) (net.Conn, *http.Response) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return conn, resp
}

// closedByServer reads conn until the server closes it, failing the test
// if it never does.
func closedByServer(t *testing.T, conn net.Conn, what string) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(hangGuard))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the server kept the connection open", what)
	}
}

// A connection that has sent its request and gone quiet is closed once it
// has been idle for the idle timeout, so that idle clients cannot hold
// every descriptor the server may open.
func TestServeListenerClosesIdleConnections(t *testing.T) {
	t.Parallel()
	opts := testOptions(t)
	opts.IdleTimeout = 10 * time.Millisecond
	addr := listen(t, New(newTestTools(t).reg, opts), "")
	conn, resp := exchange(t, addr, rawRequest(addr, initialize))
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("initialize: status %d, close %v", resp.StatusCode, resp.Close)
	}
	closedByServer(t, conn, "an idle keep-alive connection")
}

// A request whose body trickles in (or never comes) is given the body
// deadline, then its connection is closed: even a client with the token
// holds nothing for ever.
func TestServeListenerBodyDeadline(t *testing.T) {
	t.Parallel()
	opts := testOptions(t)
	opts.BodyTimeout = 10 * time.Millisecond
	const token = "secret-token"
	addr := listen(t, New(newTestTools(t).reg, opts), token)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req := rawRequest(addr, initialize, "Authorization: Bearer "+token)
	// All but the body's last bytes.
	if _, err := io.WriteString(conn, req[:len(req)-10]); err != nil {
		t.Fatal(err)
	}
	closedByServer(t, conn, "a body that never ends")
}

// A call may run far longer than the body deadline and the idle timeout:
// its answer, a stream, is not cut by either.
func TestServeListenerLongCallOutlivesDeadlines(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	opts := testOptions(t)
	opts.BodyTimeout = 5 * time.Millisecond
	opts.IdleTimeout = 5 * time.Millisecond
	addr := listen(t, New(tt.reg, opts), "")
	for _, version := range []string{modern, legacy} {
		c := newRawClient(t, "http://"+addr+Path, version)
		if version == legacy {
			c.mustInitialize()
		}
		done := make(chan *rawResponse, 1)
		go func() {
			resp, _ := c.send(context.Background(), "tools/call", "stubborn", map[string]any{"name": "stubborn", "arguments": map[string]any{}})
			done <- resp
		}()
		await(t, tt.started)
		// Many times both deadlines: a deadline left on the connection
		// would have cut the call by now.
		time.Sleep(100 * time.Millisecond)
		select {
		case resp := <-done:
			t.Fatalf("%s: the call ended before it returned: %+v", version, resp)
		default:
		}
		if version == legacy {
			close(tt.release)
		} else {
			tt.release <- struct{}{}
		}
		resp := <-done
		if resp == nil {
			t.Fatalf("%s: no answer", version)
		}
		if text, isErr := resp.toolResult(t); isErr || text != "done at last" {
			t.Errorf("%s: the call's result: %q, isError %v", version, text, isErr)
		}
	}
}

// A client the token turns away is told so and its connection closed at
// once: clients without the token cannot hold the server's descriptors.
func TestHTTPUnauthorizedClosesConnection(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(New(newTestTools(t).reg, testOptions(t)).Handler("secret-token"))
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")
	conn, resp := exchange(t, addr, rawRequest(addr, initialize))
	if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
		t.Fatalf("without the token: status %d, close %v", resp.StatusCode, resp.Close)
	}
	closedByServer(t, conn, "a client that got 401")
}

// Past MaxSessions, a new session of a client before the stateless
// revision takes the place of the one idle the longest; when every one is
// busy, the new one is refused with an answer that says why, and the
// busy ones go on.
func TestHTTPMaxSessions(t *testing.T) {
	t.Parallel()
	h := serveHTTP(t, func(o *Options) { o.MaxSessions = 3 })
	var cs []*rawClient
	for range 3 {
		c := newRawClient(t, h.url, legacy)
		c.mustInitialize()
		cs = append(cs, c)
	}
	// The second is the one idle the longest once the others are used.
	for _, c := range []*rawClient{cs[0], cs[2]} {
		if resp, err := c.callTool(context.Background(), "calculate_sum", map[string]any{"a": 1, "b": 1}); err != nil || resp.status != http.StatusOK {
			t.Fatalf("a call: %+v, %v", resp, err)
		}
	}
	fourth := newRawClient(t, h.url, legacy)
	fourth.mustInitialize()
	if sdk, _ := sessions(h.s); sdk != 3 {
		t.Errorf("%d sessions after a fourth, want 3", sdk)
	}
	if resp, err := cs[1].callTool(context.Background(), "calculate_sum", map[string]any{"a": 1, "b": 1}); err != nil || resp.status != http.StatusNotFound {
		t.Errorf("the session idle the longest: %+v, %v", resp, err)
	}
	for _, c := range []*rawClient{cs[0], cs[2], fourth} {
		if resp, err := c.callTool(context.Background(), "calculate_sum", map[string]any{"a": 1, "b": 1}); err != nil || resp.status != http.StatusOK {
			t.Errorf("a session kept: %+v, %v", resp, err)
		}
	}

	// Every session busy: the next is refused, and says why.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i, c := range []*rawClient{cs[0], cs[2], fourth} {
		go c.callTool(ctx, "block", map[string]any{"tag": strconv.Itoa(i)})
		await(t, h.tt.started)
	}
	fifth := newRawClient(t, h.url, legacy)
	resp, err := fifth.initialize(context.Background())
	if err != nil || resp.status != http.StatusServiceUnavailable || !strings.Contains(resp.body, "at most 3 sessions") {
		t.Errorf("a session past the cap, every one busy: %+v, %v", resp, err)
	}
	// A client of the stateless revision needs no session, and is served.
	modernClient := newRawClient(t, h.url, modern)
	if resp, err := modernClient.callTool(context.Background(), "calculate_sum", map[string]any{"a": 1, "b": 1}); err != nil || resp.status != http.StatusOK {
		t.Errorf("a stateless call past the cap: %+v, %v", resp, err)
	}
}

// A session its client ends (DELETE) leaves room at once: the next new
// one closes no other.
func TestHTTPMaxSessionsEnded(t *testing.T) {
	t.Parallel()
	h := serveHTTP(t, func(o *Options) { o.MaxSessions = 2 })
	older, ending := newRawClient(t, h.url, legacy), newRawClient(t, h.url, legacy)
	older.mustInitialize()
	ending.mustInitialize()
	req, err := http.NewRequest(http.MethodDelete, h.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", ending.session)
	req.Header.Set("MCP-Protocol-Version", legacy)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE: %v, %v", resp, err)
	}
	resp.Body.Close()
	newRawClient(t, h.url, legacy).mustInitialize()
	if resp, err := older.callTool(context.Background(), "calculate_sum", map[string]any{"a": 1, "b": 1}); err != nil || resp.status != http.StatusOK {
		t.Errorf("the older session, after another ended and a new one began: %+v, %v", resp, err)
	}
}

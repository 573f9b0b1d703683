package llm_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kesoku/kesoku/internal/llm"
)

// countingConn counts the writes made on a connection.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestSmallRequestIsOneWrite: a request whose body is small and in memory
// leaves in one write, its headers with its body, as net/http sends it
// without kesoku's Transport; the body arrives whole. A body net/http
// cannot see is in memory makes it write the headers on their own first:
// a system call more a request, and a read more for the server.
func TestSmallRequestIsOneWrite(t *testing.T) {
	body := strings.Repeat("a request's body. ", 40)
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(string(b))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	var writes atomic.Int64
	dialer := &net.Dialer{}
	tr := &llm.Transport{Provider: "gemini", Endpoint: srv.URL, Base: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return countingConn{Conn: c, writes: &writes}, nil
		},
	}}
	for i := range 3 {
		before := writes.Load()
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/x", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := tr.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if n := writes.Load() - before; n != 1 {
			t.Errorf("request %d: %d writes, want 1", i+1, n)
		}
		if got.Load() != body {
			t.Errorf("request %d: the server got %q", i+1, got.Load())
		}
	}
}

// TestConcurrentRequestsKeepTheirConnections: requests sent at once
// through Transports of the default Base, round after round (as an eval's
// --jobs sends them, each Transport a case's), go over the connections of
// the first round: those that come back are kept for the next, not
// closed for more to be dialled.
func TestConcurrentRequestsKeepTheirConnections(t *testing.T) {
	const n, rounds = 8, 4
	var conns atomic.Int64
	var mu sync.Mutex
	waiting, release := 0, make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Each answers once all n of its round have come: n at once.
		mu.Lock()
		waiting++
		this := release
		if waiting == n {
			close(release)
			waiting, release = 0, make(chan struct{})
		}
		mu.Unlock()
		<-this
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	for round := range rounds {
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for range n {
			wg.Go(func() {
				tr := &llm.Transport{Provider: "gemini", Endpoint: srv.URL}
				resp, err := tr.Client().Get(srv.URL + "/v1/x")
				if err != nil {
					errs <- err
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round+1, err)
		}
	}
	if got := conns.Load(); got != n {
		t.Errorf("%d rounds of %d requests at once took %d connections, want %d", rounds, n, got, n)
	}
}

package toolsource

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/registrysource"
	"github.com/kesoku/kesoku/internal/toolsource/mcptest"
)

// httpServer builds a Set with one MCP server over HTTP, "web", at url,
// with the headers Authorization: Bearer s3cret and X-Api-Key: k3y.
func httpServer(t *testing.T, opts Options, url string) *Set {
	t.Helper()
	return setOf(t, context.Background(), opts, "mcpServers:\n  web:\n    type: http\n    url: "+url+"\n    headers: {Authorization: \"Bearer s3cret\", X-Api-Key: k3y}\n")
}

// TestRedirectKeepsHeaders: a server that redirects to another origin
// (another port is another origin) is refused, and the other origin
// receives nothing, least of all the entry's headers; a redirect within
// the server's origin is followed, headers and all.
func TestRedirectKeepsHeaders(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, fmt.Sprintf("%s %s Authorization=%q X-Api-Key=%q", r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key")))
		mu.Unlock()
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	t.Cleanup(other.Close)
	away := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(away.Close)

	set := httpServer(t, Options{}, away.URL+"/mcp")
	err := registrysource.Load(set.Registry)
	want := fmt.Sprintf("start: the server redirected to %s/mcp, another origin than %s: refused, so that the headers of its entry go to its own origin alone", other.URL, away.URL)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a redirect to another origin: %v, want %q", err, want)
	}
	mu.Lock()
	if len(got) > 0 {
		t.Errorf("the other origin was sent:\n%s", strings.Join(got, "\n"))
	}
	mu.Unlock()

	inner := mcptest.HTTPHandler("s3cret")
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(home.Close)
	set = httpServer(t, Options{}, home.URL+"/old")
	if v, err := call(t, set, "web__echo", map[string]any{"text": "home"}); err != nil || v != "home" {
		t.Errorf("a redirect within the origin: %v, %v", v, err)
	}
}

// TestHeadersToTheOriginAlone: the entry's headers go with a request to
// the server's origin (the default port written or not), never with one
// to another.
func TestHeadersToTheOriginAlone(t *testing.T) {
	t.Parallel()
	var seen []string
	base := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = append(seen, r.URL.String()+" "+r.Header.Get("Authorization"))
		return &http.Response{StatusCode: 204, Body: http.NoBody, Header: http.Header{}}, nil
	})
	h := http.Header{}
	h.Set("Authorization", "Bearer s3cret")
	rt := &headerTransport{header: h, origin: "https://mcp.example.com:443", base: base}
	for _, u := range []string{"https://mcp.example.com/mcp", "https://MCP.example.com:443/x", "http://mcp.example.com/mcp", "https://mcp.example.com:8443/mcp", "https://evil.example/mcp"} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if _, err := rt.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"https://mcp.example.com/mcp Bearer s3cret", "https://MCP.example.com:443/x Bearer s3cret", "http://mcp.example.com/mcp ", "https://mcp.example.com:8443/mcp ", "https://evil.example/mcp "}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// hugeAnswers is the fake server over HTTP, but for a call of echo whose
// text is "huge json" or "huge sse": it answers that call with a body (or
// an event) of size bytes, written as it goes, never held.
func hugeAnswers(size int64) http.Handler {
	inner := mcptest.HTTPHandler("s3cret")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Arguments struct{ Text string } `json:"arguments"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &req)
		kind, ok := strings.CutPrefix(req.Params.Arguments.Text, "huge ")
		if req.Method != "tools/call" || !ok {
			inner.ServeHTTP(w, r)
			return
		}
		head := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"content":[{"type":"text","text":"`
		if kind == "sse" {
			w.Header().Set("Content-Type", "text/event-stream")
			head = "data: " + head
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		if _, err := io.WriteString(w, head); err != nil {
			return
		}
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		for n := int64(0); n < size; n += int64(len(chunk)) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		io.WriteString(w, `"}]}}`+"\n\n")
	})
}

// TestHTTPAnswerTooLarge: an answer larger than the bound, a JSON body or
// an event of a stream, is not read: the call fails saying so, kesoku
// holds a small multiple of the bound (not the answer: the server sends
// 512 MiB), and the server's next call succeeds. Not parallel: it
// measures what the process allocates.
func TestHTTPAnswerTooLarge(t *testing.T) {
	const bound = 8 << 20
	srv := httptest.NewServer(hugeAnswers(512 << 20))
	t.Cleanup(srv.Close)
	set := httpServer(t, Options{MaxMessage: bound}, srv.URL+"/mcp")
	if _, err := call(t, set, "web__echo", map[string]any{"text": "warm"}); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"json", "sse"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := call(t, set, "web__echo", map[string]any{"text": "huge " + kind})
		runtime.ReadMemStats(&after)
		if want := "mcp server web"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "the server sent an answer of more than 8 MiB (a result too large to take): kesoku did not read it") {
			t.Errorf("%s: a huge answer: %v", kind, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*bound {
			t.Errorf("%s: a huge answer took %d MiB, more than twice the bound of %d MiB", kind, alloc>>20, bound>>20)
		} else {
			t.Logf("%s: a 512 MiB answer, bound %d MiB: %d MiB allocated", kind, bound>>20, alloc>>20)
		}
		if v, err := call(t, set, "web__echo", map[string]any{"text": "after"}); err != nil || v != "after" {
			t.Errorf("%s: the call after: %v, %v", kind, v, err)
		}
	}
}

// TestManyTools: a tools/list of 10,000 tools (40 MB) is read in a
// multiple of its size: what the SDK alone would allocate to read it was
// more than 20 times its size, and all of it with the schemas compiled
// 130 times. Not parallel: it measures what the process allocates.
func TestManyTools(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	set := fakeServer(t, context.Background(), Options{}, "-many-tools", "10000")
	if err := registrysource.Load(set.Registry); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if _, ok := set.Registry.Lookup("fake__many_9999"); !ok {
		t.Fatal("fake__many_9999 is not listed")
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	const listing = 40 << 20
	if alloc > 40*listing {
		t.Errorf("listing 10,000 tools allocated %d MiB, more than 40 times the 40 MiB listed", alloc>>20)
	}
	t.Logf("10,000 tools listed in %v: %d MiB allocated, %d MiB in use", time.Since(start).Round(time.Millisecond), alloc>>20, after.HeapInuse>>20)
}

// TestSSEServer: a server of the older HTTP+SSE transport (the SDK's own
// handler), declared type: sse, lists its tools and answers calls, with
// the entry's headers on every request.
func TestSSEServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(mcptest.SSEHandler("s3cret"))
	t.Cleanup(srv.Close)
	set := setOf(t, context.Background(), Options{}, "mcpServers:\n  web:\n    type: sse\n    url: "+srv.URL+"/sse\n    headers: {Authorization: \"Bearer s3cret\"}\n")
	if err := registrysource.Load(set.Registry); err != nil {
		t.Fatalf("list the tools: %v", err)
	}
	for i := range 3 {
		text := fmt.Sprintf("sse %d", i)
		if v, err := call(t, set, "web__echo", map[string]any{"text": text}); err != nil || v != text {
			t.Errorf("call %d: %v, %v; want %q", i, v, err, text)
		}
	}
}

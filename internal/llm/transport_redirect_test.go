package llm_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/gemini"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
)

// elsewhere is a server at another origin than the provider's: it logs
// every request that reaches it, and answers as the provider would, so
// that a key that reached it would make the call succeed.
type elsewhere struct {
	*llmtest.Server
	mu   sync.Mutex
	seen []http.Header
}

func newElsewhere(t *testing.T, p llmtest.Provider) *elsewhere {
	e := &elsewhere{Server: llmtest.NewServer(p, testKey, llmtest.Reply{Text: "the key came here"})}
	inner := e.Server.Config.Handler
	e.Server.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.seen = append(e.seen, r.Header.Clone())
		e.mu.Unlock()
		inner.ServeHTTP(w, r)
	})
	t.Cleanup(e.Close)
	return e
}

// check fails t when anything reached e, and says whether the key did.
func (e *elsewhere) check(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, h := range e.seen {
		for name, vs := range h {
			for _, v := range vs {
				if strings.Contains(v, testKey) {
					t.Errorf("the key reached the other origin in %s", name)
				}
			}
		}
	}
	if len(e.seen) > 0 {
		t.Errorf("%d requests reached the other origin", len(e.seen))
	}
}

// redirecting is the provider's endpoint: it passes every request on to
// the fake provider home, but answers those that redirect says with a
// 307 to the same path and query at to.
func redirecting(t *testing.T, home *llmtest.Server, to string, redirect func(*http.Request) bool) *httptest.Server {
	target, err := url.Parse(home.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // streams go on as they come
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if redirect(r) {
			http.Redirect(w, r, to+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func always(*http.Request) bool { return true }

// build is a client of the provider p whose endpoint is base (under
// /v1 for OpenAI, as llmtest.Server.BaseURL).
func build(t *testing.T, p llmtest.Provider, base string) llm.Provider {
	t.Helper()
	if p == llmtest.OpenAI {
		base += "/v1"
	}
	return newProvider(t, p, llm.ClientOptions{APIKey: testKey, BaseURL: base, Retry: llm.Retry{MaxRetries: -1}})
}

// refused checks that err is the refusal of a redirect from front to
// other, and shows no key.
func refused(t *testing.T, err error, front *httptest.Server, other *elsewhere) {
	t.Helper()
	var oe *llm.OriginError
	if !errors.As(err, &oe) {
		t.Fatalf("error %v (%T), want an *llm.OriginError", err, err)
	}
	msg := err.Error()
	if !oe.Redirect || !strings.Contains(msg, "redirected to "+other.URL+"/") || !strings.Contains(msg, "another origin than "+front.URL+":") {
		t.Errorf("error %q: want the redirect to %s refused, naming %s", msg, other.URL, front.URL)
	}
	if strings.Contains(msg, testKey) {
		t.Errorf("error %q shows the key", msg)
	}
	other.check(t)
}

// TestRedirectKeepsTheKey: a redirect to another origin (here the same
// host on another port, where Go's client would forward every header,
// Authorization too) is refused, whatever the provider sends the key in,
// and nothing reaches the other origin.
func TestRedirectKeepsTheKey(t *testing.T) {
	for _, p := range []llmtest.Provider{llmtest.Gemini, llmtest.Claude, llmtest.OpenAI} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			home := llmtest.NewServer(p, testKey)
			defer home.Close()
			other := newElsewhere(t, p)
			front := redirecting(t, home, other.URL, always)
			_, _, err := ask(build(t, p, front.URL), true)
			refused(t, err, front, other)
		})
	}
}

// TestRedirectOfAFileOrABatchKeepsTheKey: the Files API and the batch
// APIs, the SDK's requests and kesoku's own download of a results file,
// keep the key to its origin too.
func TestRedirectOfAFileOrABatchKeepsTheKey(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name     string
		p        llmtest.Provider
		redirect func(*http.Request) bool
		run      func(llm.Provider) error
	}{
		{"gemini upload", llmtest.Gemini, func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/upload/") },
			func(p llm.Provider) error {
				_, err := p.(*gemini.Provider).Upload(ctx, strings.NewReader("GIF89a"), "image/gif", "a.gif")
				return err
			}},
		{"gemini results file", llmtest.Gemini, func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, ":download") },
			func(p llm.Provider) error { return batchResults(ctx, p.(llm.Batcher), true) }},
		{"claude results", llmtest.Claude, func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/results") },
			func(p llm.Provider) error { return batchResults(ctx, p.(llm.Batcher), false) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := llmtest.NewServer(tt.p, testKey, llmtest.Reply{Text: "an answer"})
			defer home.Close()
			home.SetBatchPolls(0)
			other := newElsewhere(t, tt.p)
			front := redirecting(t, home, other.URL, tt.redirect)
			refused(t, tt.run(build(t, tt.p, front.URL)), front, other)
		})
	}
}

// batchResults submits a batch of one request, as a file or not, and
// reads its results once it has ended.
func batchResults(ctx context.Context, b llm.Batcher, asFile bool) error {
	entry, err := b.BatchEntry("one", hello)
	if err != nil {
		return err
	}
	entry = append(entry, '\n')
	batch, err := b.SubmitBatch(ctx, llm.BatchInput{Entries: bytes.NewReader(entry), Bytes: int64(len(entry)), Count: 1, Name: "redirect", AsFile: asFile})
	if err != nil {
		return err
	}
	if batch, err = b.Batch(ctx, batch.ID); err != nil {
		return err
	}
	if !batch.Ended {
		return errors.New("the batch has not ended")
	}
	return b.BatchResults(ctx, batch, func(string, *llm.Response, error) error { return nil })
}

// TestTransportSendsToItsOriginAlone: a redirect within the endpoint's
// origin is followed; a request an SDK would send to another origin (a
// URL an answer named) is refused before it is sent.
func TestTransportSendsToItsOriginAlone(t *testing.T) {
	var got []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path+" "+r.Header.Get("X-Api-Key"))
		mu.Unlock()
		if r.URL.Path == "/v1/old" {
			http.Redirect(w, r, "/v1/new", http.StatusTemporaryRedirect)
			return
		}
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	other := newElsewhere(t, llmtest.Claude)
	tr := &llm.Transport{Provider: "claude", Endpoint: srv.URL + "/v1/"}
	c := tr.Client()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/old", nil)
	req.Header.Set("X-Api-Key", testKey)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := []string{"/v1/old " + testKey, "/v1/new " + testKey}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("requests %q, want %q", got, want)
	}

	req, _ = http.NewRequest(http.MethodGet, other.URL+"/v1/files?key="+testKey, nil)
	req.Header.Set("X-Api-Key", testKey)
	_, err = c.Do(req)
	var oe *llm.OriginError
	if !errors.As(err, &oe) || oe.Redirect {
		t.Fatalf("error %v, want an *llm.OriginError of a request", err)
	}
	want := "claude: a request to " + other.URL + "/v1/files, another origin than " + srv.URL + ": refused, so that the API key goes to its own origin alone"
	if oe.Error() != want {
		t.Errorf("error %q, want %q", oe.Error(), want)
	}
	other.check(t)
}

// TestTransportOriginFollowsItsEndpoint: the origin requests are held to
// is that of the Endpoint as it is when they are sent: one changed after
// a request holds the next to the new origin, not to one remembered.
func TestTransportOriginFollowsItsEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) }))
	defer srv.Close()
	other := newElsewhere(t, llmtest.Claude)
	tr := &llm.Transport{Provider: "claude", Endpoint: srv.URL + "/v1/"}
	send := func(to string) error {
		req, _ := http.NewRequest(http.MethodGet, to+"/v1/x", nil)
		req.Header.Set("X-Api-Key", testKey)
		resp, err := tr.Client().Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := send(srv.URL); err != nil {
		t.Fatal(err)
	}
	tr.Endpoint = other.URL + "/v1/"
	var oe *llm.OriginError
	if err := send(srv.URL); !errors.As(err, &oe) {
		t.Errorf("a request to the old origin: %v, want an *llm.OriginError", err)
	}
	if err := send(other.URL); err != nil {
		t.Errorf("a request to the new origin: %v", err)
	}
	tr.Endpoint = "not a URL"
	if err := send(other.URL); err == nil || !strings.Contains(err.Error(), "is not a URL") {
		t.Errorf("an endpoint that is not a URL: %v", err)
	}
}

// TestErrorQuotingTheRequestHidesTheKey: a proxy whose error page quotes
// the headers it was sent gets an error that shows the page without the
// key, whichever header the provider sends it in.
func TestErrorQuotingTheRequestHidesTheKey(t *testing.T) {
	for _, p := range []llmtest.Provider{llmtest.Gemini, llmtest.Claude, llmtest.OpenAI} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			var quoted atomic.Bool
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var page strings.Builder
				for _, h := range []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key"} {
					if v := r.Header.Get(h); v != "" {
						fmt.Fprintf(&page, "%s: %s\n", h, v)
						if strings.Contains(v, testKey) {
							quoted.Store(true)
						}
					}
				}
				w.Header().Set("Content-Type", "text/plain")
				w.WriteHeader(http.StatusBadGateway)
				io.WriteString(w, page.String())
			}))
			defer proxy.Close()
			_, _, err := ask(build(t, p, proxy.URL), true)
			var rerr *llm.RequestError
			if !errors.As(err, &rerr) || !quoted.Load() {
				t.Fatalf("error %v: want the proxy's page, quoting the key", err)
			}
			if msg := err.Error(); strings.Contains(msg, testKey) || !strings.Contains(msg, llm.Redacted) {
				t.Errorf("error %q: want the key redacted", msg)
			}
		})
	}
}

// TestQuoteCutShortHidesTheKey: an answer quoted in an error or a retry
// notice is cut short; a key where the cut falls is hidden whole, not
// left as the half before the cut.
func TestQuoteCutShortHidesTheKey(t *testing.T) {
	// The notice quotes 100 bytes of a page, the error 200.
	for _, pad := range []int{86, 186} {
		t.Run(strconv.Itoa(pad), func(t *testing.T) {
			page := strings.Repeat("x", pad) + testKey
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusBadGateway)
				io.WriteString(w, page)
			}))
			defer srv.Close()
			var n notices
			tr := llm.NewTransport("claude", srv.URL, llm.ClientOptions{APIKey: testKey, OnRetry: n.add,
				Retry: llm.Retry{MaxRetries: 1, InitialDelay: time.Millisecond, NoJitter: true}})
			_, err := tr.Client().Get(srv.URL + "/v1/messages")
			if err == nil {
				t.Fatal("no error")
			}
			half := testKey[:len(testKey)/2]
			for _, s := range append(n.all(), err.Error()) {
				if strings.Contains(s, half) {
					t.Errorf("%q shows part of the key", s)
				}
			}
		})
	}
}

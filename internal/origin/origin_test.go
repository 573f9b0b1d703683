package origin

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tt := range []struct{ url, want, shown string }{
		{"https://API.example.com/v1/", "https://api.example.com:443", "https://api.example.com"},
		{"https://api.example.com:443/", "https://api.example.com:443", "https://api.example.com"},
		{"HTTP://api.example.com", "http://api.example.com:80", "http://api.example.com"},
		{"http://api.example.com:443", "http://api.example.com:443", "http://api.example.com:443"},
		{"http://127.0.0.1:8080/x?key=1", "http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"http://[::1]:8080/", "http://::1:8080", "http://::1:8080"},
		{"https://user:pass@api.example.com/", "https://api.example.com:443", "https://api.example.com"},
	} {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		if got := Of(u); got != tt.want {
			t.Errorf("Of(%s) = %q, want %q", tt.url, got, tt.want)
		}
		if got := Show(Of(u)); got != tt.shown {
			t.Errorf("Show(Of(%s)) = %q, want %q", tt.url, got, tt.shown)
		}
	}
}

// TestRedirects: a redirect within the origin is followed, ten at most;
// one to another port of the same host, or from https to http, is
// refused before anything is sent there, though Go's client would send
// every header there, Authorization too.
func TestRedirects(t *testing.T) {
	reached := 0
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached++ }))
	defer other.Close()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		case "/here":
			http.Redirect(w, r, "/done", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		case "/done":
			fmt.Fprint(w, r.Header.Get("Authorization"))
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	home := Of(u)
	refusal := errors.New("refused")
	var refusedTo string
	c := &http.Client{CheckRedirect: Redirects(home, func(to *url.URL) error {
		refusedTo = to.String()
		return refusal
	})}
	get := func(path string) (string, error) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer secret")
		resp, err := c.Do(req)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if got, err := get("/here"); err != nil || got != "Bearer secret" {
		t.Errorf("a redirect within the origin: %q, %v; want it followed with its headers", got, err)
	}
	if _, err := get("/away"); !errors.Is(err, refusal) || refusedTo != other.URL+"/x" {
		t.Errorf("a redirect to %s: error %v (refused %q), want it refused", other.URL, err, refusedTo)
	}
	if reached != 0 {
		t.Errorf("the other origin was reached %d times", reached)
	}
	if _, err := get("/loop"); err == nil || !strings.Contains(err.Error(), "stopped after 10 redirects") {
		t.Errorf("a loop: error %v, want it stopped", err)
	}

	// The same host by another scheme is another origin.
	check := Redirects("https://api.example.com:443", func(to *url.URL) error { return refusal })
	req, _ := http.NewRequest(http.MethodGet, "http://api.example.com/v1", nil)
	if err := check(req, nil); !errors.Is(err, refusal) {
		t.Errorf("https to http: %v, want it refused", err)
	}
	req, _ = http.NewRequest(http.MethodGet, "https://API.example.com:443/v2", nil)
	if err := check(req, nil); err != nil {
		t.Errorf("the same origin written otherwise: %v", err)
	}
}

package mcpauth

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCallback: the loopback listener takes the answer that carries the
// login's state, refuses others without ending the wait, and says what
// an authorization server's refusal said.
func TestCallback(t *testing.T) {
	c, err := listen()
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if !strings.HasPrefix(c.redirectURI(), "http://127.0.0.1:") || !strings.HasSuffix(c.redirectURI(), "/callback") {
		t.Fatalf("redirect URI %s", c.redirectURI())
	}
	c.state.Store("st-1")
	get := func(q url.Values) int {
		resp, err := http.Get(c.redirectURI() + "?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(url.Values{"state": {"other"}, "code": {"x"}}); code != http.StatusBadRequest {
		t.Errorf("another state: %d, want 400", code)
	}
	if resp, err := http.Get(strings.TrimSuffix(c.redirectURI(), "/callback") + "/favicon.ico"); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("another path: %d", resp.StatusCode)
		}
	}
	select {
	case r := <-c.results:
		t.Fatalf("the wait ended with %+v", r)
	default:
	}
	if code := get(url.Values{"state": {"st-1"}, "code": {"the-code"}, "iss": {"https://as"}}); code != http.StatusOK {
		t.Errorf("the answer: %d", code)
	}
	r := <-c.results
	if r.err != nil || r.res.Code != "the-code" || r.res.State != "st-1" || r.res.Iss != "https://as" {
		t.Errorf("result %+v, %v", r.res, r.err)
	}

	c2, _ := listen()
	defer c2.close()
	c2.state.Store("st-2")
	resp, err := http.Get(c2.redirectURI() + "?" + url.Values{"state": {"st-2"}, "error": {"access_denied"}, "error_description": {"the user said no"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r := <-c2.results; r.err == nil || !strings.Contains(r.err.Error(), "refused the login: access_denied: the user said no") {
		t.Errorf("err = %v", r.err)
	}
}

// TestBrowser: $BROWSER is a colon-separated list of commands, the first
// that starts is used, %s stands for the URL (else it is added).
func TestBrowser(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "opened")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > "+out+".tmp && mv "+out+".tmp "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ env, want string }{
		{"/no/such/browser:" + script, "https://as.example/authorize?x=1\n"},
		{script + " --new-tab %s", "--new-tab\nhttps://as.example/authorize?x=1\n"},
	} {
		os.Remove(out)
		if err := Browser(tc.env)(context.Background(), "https://as.example/authorize?x=1"); err != nil {
			t.Fatalf("%s: %v", tc.env, err)
		}
		var got []byte
		for range 2000 { // up to 20s: the browser runs on its own
			if got, _ = os.ReadFile(out); got != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if string(got) != tc.want {
			t.Errorf("%s: opened with %q, want %q", tc.env, got, tc.want)
		}
	}
	if err := Browser("/no/such/browser")(context.Background(), "https://x"); err == nil {
		t.Error("no browser started, and no error")
	}
}

// TestBrowserEnviron: the browser gets what it needs to open on the
// person's display, and none of kesoku's secrets (a provider's key).
func TestBrowserEnviron(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	script := filepath.Join(dir, "browser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nenv > "+out+".tmp && mv "+out+".tmp "+out+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "sk-test-browser-0123")
	t.Setenv("GOOGLE_API_KEY", "test-google-browser-0123")
	t.Setenv("DISPLAY", ":7")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/7")
	if err := Browser(script)(context.Background(), "https://as.example/authorize"); err != nil {
		t.Fatal(err)
	}
	var got []byte
	for range 2000 { // up to 20s: the browser runs on its own
		if got, _ = os.ReadFile(out); got != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	env := string(got)
	if strings.Contains(env, "-browser-0123") || !strings.Contains(env, "DISPLAY=:7\n") || !strings.Contains(env, "XDG_RUNTIME_DIR=/run/user/7\n") {
		t.Errorf("the browser's environment:\n%s", env)
	}
}

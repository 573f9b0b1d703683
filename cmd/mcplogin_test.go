package cmd

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/mcpauth/authtest"
)

// TestOAuthWhoCanLogIn: a run logs in when a person can (a terminal, or a
// $BROWSER to open the page), and otherwise names kesoku mcp login at
// once; kesoku mcp login always can.
func TestOAuthWhoCanLogIn(t *testing.T) {
	for _, tc := range []struct {
		name         string
		errTTY, inTT bool
		browser      string
		login, want  bool
	}{
		{name: "no terminal, no $BROWSER"},
		{name: "a terminal", errTTY: true, want: true},
		{name: "standard input a terminal", inTT: true, want: true},
		{name: "$BROWSER", browser: "firefox", want: true},
		{name: "mcp login", login: true, want: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("BROWSER", tc.browser)
			t.Setenv("XDG_CONFIG_HOME", t.TempDir())
			g := &globals{IO: &ioStreams{ErrTTY: tc.errTTY, InTTY: tc.inTT}}
			o := g.oauth(tc.login)
			if (o.Login != nil) != tc.want {
				t.Errorf("Login = %v, want a login %v", o.Login, tc.want)
			}
			if got := o.LoginHint("corp"); got != "kesoku mcp login corp" {
				t.Errorf("LoginHint = %q", got)
			}
			if !strings.HasSuffix(o.Store.Dir, filepath.Join("kesoku", "tokens")) {
				t.Errorf("Store = %q", o.Store.Dir)
			}
		})
	}
}

// TestMCPLogin: kesoku mcp login opens globals.Browser at the page, says
// the URL even under -q, and says what it did; no token is printed.
func TestMCPLogin(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("BROWSER", "")
	cfg := filepath.Join(dir, "servers.yaml")
	os.WriteFile(cfg, []byte("mcpServers:\n  corp:\n    type: http\n    url: "+srv.URL+"\n"), 0o644)
	var out, errOut bytes.Buffer
	opened := 0
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}, AWD: dir,
		Browser: func(ctx context.Context, u string) error { opened++; return authtest.Browser(ctx, u) }}
	if code := run(context.Background(), g, []string{"--config", cfg, "mcp", "login", "corp"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if opened != 1 || !strings.Contains(errOut.String(), "needs a login: open http://127.0.0.1:") || !strings.Contains(errOut.String(), "kesoku: logged in to corp") {
		t.Errorf("opened %d times; stderr:\n%s", opened, errOut.String())
	}
	for _, s := range srv.Secrets() {
		if strings.Contains(errOut.String()+out.String(), s) {
			t.Errorf("a secret was printed:\n%s", errOut.String())
		}
	}
	errOut.Reset()
	if code := run(context.Background(), g, []string{"-q", "--config", cfg, "mcp", "login", "corp"}); code != 0 || !strings.Contains(errOut.String(), "needs a login: open ") || strings.Contains(errOut.String(), "logged in") {
		t.Errorf("-q: exit %d; stderr:\n%s", code, errOut.String())
	}
	if code := run(context.Background(), g, []string{"--config", cfg, "mcp", "login", "nope"}); code != 2 {
		t.Errorf("an unknown server: exit %d, want 2", code)
	}
}

// TestMCPLoginFails: a login that fails exits 1, whichever step failed:
// the person denies access in the browser, or the token endpoint refuses
// the code the browser brought back.
func TestMCPLoginFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		// back is where the browser goes instead of following the
		// authorization server's redirect to the loopback one: given
		// that redirect's URL.
		back func(*url.URL) string
	}{
		{name: "denied in the browser", back: func(u *url.URL) string {
			q := url.Values{"state": {u.Query().Get("state")}, "error": {"access_denied"}, "error_description": {"the person said no"}}
			u.RawQuery = q.Encode()
			return u.String()
		}},
		{name: "the token endpoint refuses", back: func(u *url.URL) string {
			q := u.Query()
			q.Set("code", "code-not-issued")
			u.RawQuery = q.Encode()
			return u.String()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, cfg := loginServer(t)
			var out, errOut bytes.Buffer
			g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}, AWD: dir,
				Browser: func(ctx context.Context, u string) error { return detour(ctx, u, tc.back) }}
			code := run(context.Background(), g, []string{"--config", cfg, "mcp", "login", "corp"})
			if code != 1 || strings.Contains(errOut.String(), "logged in to") {
				t.Errorf("exit %d, want 1; stderr:\n%s", code, errOut.String())
			}
		})
	}
}

// detour is a browser that visits the authorization page, but goes to
// back(the loopback redirect it was sent to) instead of following it.
func detour(ctx context.Context, page string, back func(*url.URL) string) error {
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	go func() {
		ctx := context.WithoutCancel(ctx)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, page, nil)
		resp, err := c.Do(req)
		if err != nil {
			return
		}
		resp.Body.Close()
		to, err := resp.Location()
		if err != nil {
			return
		}
		req, _ = http.NewRequestWithContext(ctx, http.MethodGet, back(to), nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	return nil
}

// TestMCPLoginNotKept: a login whose tokens cannot be kept exits 1, and
// says so: keeping them is what the command is for.
func TestMCPLoginNotKept(t *testing.T) {
	dir, cfg := loginServer(t)
	// A file where the directory of tokens goes.
	xdg := filepath.Join(dir, "xdg")
	os.MkdirAll(filepath.Join(xdg, "kesoku"), 0o700)
	os.WriteFile(filepath.Join(xdg, "kesoku", "tokens"), nil, 0o600)
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}, AWD: dir, Browser: authtest.Browser}
	code := run(context.Background(), g, []string{"--config", cfg, "mcp", "login", "corp"})
	if code != 1 || strings.Contains(errOut.String(), "logged in to") || !strings.Contains(errOut.String(), "keep the tokens") {
		t.Log(errOut.String())
		t.Errorf("exit %d, want 1 saying the tokens were not kept; stderr:\n%s", code, errOut.String())
	}
}

// loginServer starts a server behind OAuth for the test, and writes the
// config file cfg in dir that declares it as corp; the tokens go under
// dir/xdg.
func loginServer(t *testing.T) (dir, cfg string) {
	t.Helper()
	srv := authtest.New(authtest.Options{})
	t.Cleanup(srv.Close)
	dir = t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "xdg"))
	t.Setenv("BROWSER", "")
	cfg = filepath.Join(dir, "servers.yaml")
	os.WriteFile(cfg, []byte("mcpServers:\n  corp:\n    type: http\n    url: "+srv.URL+"\n"), 0o644)
	return dir, cfg
}

package cmd

import (
	"bytes"
	"context"
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

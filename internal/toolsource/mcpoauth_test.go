package toolsource

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/mcpauth"
	"github.com/kesoku/kesoku/internal/mcpauth/authtest"
	"github.com/kesoku/kesoku/registry"
)

// said collects what a Set says (Note and Warn), as -v shows it.
type said struct {
	mu    sync.Mutex
	lines []string
}

func (s *said) add(msg string) {
	s.mu.Lock()
	s.lines = append(s.lines, msg)
	s.mu.Unlock()
}

func (s *said) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}

// oauthSet builds a Set from the config yaml (${MCP_URL} names srv),
// saying what it says to log.
func oauthSet(t *testing.T, yaml string, oauth OAuth, log *said) *Set {
	t.Helper()
	return setOf(t, context.Background(), Options{OAuth: oauth, Note: log.add, Warn: log.add, StartTimeout: 30 * time.Second}, yaml)
}

// browser is a person who logs in.
func browser() *mcpauth.Login {
	return &mcpauth.Login{Open: authtest.Browser, Timeout: 20 * time.Second}
}

// noSecrets fails when a secret srv issued (or secret) is in what came
// back (a result, an error) or in what the Set said, or reached another
// origin.
func noSecrets(t *testing.T, srv *authtest.Server, log *said, got ...any) {
	t.Helper()
	var secrets []string
	for _, req := range srv.Requests() {
		if req.Server == "mcp" {
			if a := req.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
				secrets = append(secrets, strings.TrimPrefix(a, "Bearer "))
			}
		}
		if req.Server == "other" {
			t.Errorf("another origin got %s %s, with the headers %v", req.Method, req.Path, req.Header)
		}
	}
	if len(secrets) == 0 {
		t.Fatal("no request carried a token")
	}
	for _, g := range got {
		b, _ := json.Marshal(g)
		if e, ok := g.(error); ok && e != nil {
			b = []byte(e.Error())
		}
		for _, s := range secrets {
			if strings.Contains(string(b), s) {
				t.Errorf("a token came back: %s", b)
			}
		}
	}
	for _, s := range secrets {
		if strings.Contains(log.String(), s) {
			t.Errorf("a token was said:\n%s", log)
		}
	}
}

// TestOAuthServer: a server with no oauth entry that asks for OAuth gets a
// login; its tools are called with the token, and a result that echoes
// the token has it hidden; the token is kept for the next run.
func TestOAuthServer(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	t.Setenv("MCP_URL", srv.URL)
	st := mcpauth.StoreIn(t.TempDir())
	log := &said{}
	set := oauthSet(t, "mcpServers:\n  corp:\n    type: http\n    url: ${MCP_URL}\n", OAuth{Store: st, Login: browser()}, log)
	got, err := call(t, set, "corp__whoami", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(got); !strings.Contains(string(b), mcpauth.Redacted) {
		t.Errorf("whoami = %s, want the token redacted", b)
	}
	echo, err := call(t, set, "corp__echo", map[string]any{"text": "hi"})
	if err != nil || echo != "hi" {
		t.Errorf("echo = %v, %v", echo, err)
	}
	noSecrets(t, srv, log, got, echo)
	if !strings.Contains(log.String(), "logged in") {
		t.Errorf("-v did not say the login:\n%s", log)
	}
	set.Close()

	// The next run, with no one to log in, takes the kept token.
	next := oauthSet(t, "mcpServers:\n  corp:\n    type: http\n    url: ${MCP_URL}\n", OAuth{Store: st}, log)
	if _, err := call(t, next, "corp__echo", map[string]any{"text": "again"}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Count("authorize"); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
}

// TestOAuthLoginRequired: with no one to log in, a server that needs a
// login fails its calls at once, saying how to log in; nothing was
// registered.
func TestOAuthLoginRequired(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	t.Setenv("MCP_URL", srv.URL)
	log := &said{}
	set := oauthSet(t, "mcpServers:\n  corp:\n    type: http\n    url: ${MCP_URL}\n",
		OAuth{Store: mcpauth.StoreIn(t.TempDir()), LoginHint: func(name string) string { return "kesoku mcp login " + name }}, log)
	err := set.Registry.Load()
	var lr *mcpauth.LoginRequiredError
	if !errors.As(err, &lr) || !strings.Contains(err.Error(), "run kesoku mcp login corp first") || strings.Count(err.Error(), "mcp server corp") != 1 {
		t.Fatalf("err = %v, want one LoginRequiredError naming kesoku mcp login corp", err)
	}
	if n := srv.Count("register") + srv.Count("authorize"); n != 0 {
		t.Errorf("%d registrations and logins, want none", n)
	}
}

// TestOAuthClientCredentials: an entry with a client secret (${VAR} from
// the environment) takes the client-credentials grant; the secret goes to
// the token endpoint alone, and is hidden in what comes back.
func TestOAuthClientCredentials(t *testing.T) {
	srv := authtest.New(authtest.Options{ClientID: "kesoku-ci", ClientSecret: "ci-secret-7f3a9c", AuthMethods: []string{"client_secret_post"}})
	defer srv.Close()
	t.Setenv("MCP_URL", srv.URL)
	t.Setenv("CORP_SECRET", "ci-secret-7f3a9c")
	log := &said{}
	set := oauthSet(t, `mcpServers:
  corp:
    type: http
    url: ${MCP_URL}
    oauth:
      clientId: kesoku-ci
      clientSecret: ${CORP_SECRET}
      scopes: [tools.read]
`, OAuth{}, log)
	got, err := call(t, set, "corp__whoami", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	noSecrets(t, srv, log, got)
	for _, req := range srv.Requests() {
		if strings.Contains(req.Body, "ci-secret-7f3a9c") && req.Path != "/token" {
			t.Errorf("the client secret went to %s %s", req.Server, req.Path)
		}
	}
	if n := srv.Count("grant client_credentials"); n != 1 {
		t.Errorf("%d grants, want 1", n)
	}
}

// TestOAuthRevokedMidBatch: a server that stops taking its tokens in the
// middle of a batch: every call gets one new token (one refresh for all)
// and its answer.
func TestOAuthRevokedMidBatch(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	t.Setenv("MCP_URL", srv.URL)
	log := &said{}
	set := oauthSet(t, "mcpServers:\n  corp:\n    type: http\n    url: ${MCP_URL}\n", OAuth{Store: mcpauth.StoreIn(t.TempDir()), Login: browser()}, log)
	if _, err := call(t, set, "corp__echo", map[string]any{"text": "first"}); err != nil {
		t.Fatal(err)
	}
	srv.Revoke()
	var wg sync.WaitGroup
	results := make([]any, 16)
	for i := range results {
		wg.Go(func() {
			v, err := call(t, set, "corp__whoami", map[string]any{})
			if err != nil {
				v = err
			}
			results[i] = v
		})
	}
	wg.Wait()
	for i, r := range results {
		if e, ok := r.(error); ok {
			t.Errorf("call %d: %v", i, e)
		}
	}
	if n := srv.Count("grant refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	noSecrets(t, srv, log, results...)
}

// TestOAuthRedirectElsewhere: an MCP endpoint that redirects to another
// origin never gets the token sent there.
func TestOAuthRedirectElsewhere(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	t.Setenv("MCP_URL", srv.URL)
	log := &said{}
	set := oauthSet(t, "mcpServers:\n  corp:\n    type: http\n    url: ${MCP_URL}\n", OAuth{Store: mcpauth.StoreIn(t.TempDir()), Login: browser()}, log)
	if _, err := call(t, set, "corp__echo", map[string]any{"text": "first"}); err != nil {
		t.Fatal(err)
	}
	srv.RedirectNext()
	got, err := call(t, set, "corp__whoami", map[string]any{})
	noSecrets(t, srv, log, got, err)
}

// TestOAuthLoginLogout: Login authorizes a server now, its tokens kept;
// Logout forgets them; neither applies to a server kesoku starts, or one
// its headers authorize.
func TestOAuthLoginLogout(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	t.Setenv("MCP_URL", srv.URL)
	st := mcpauth.StoreIn(t.TempDir())
	yaml := `mcpServers:
  corp:
    type: http
    url: ${MCP_URL}
  local:
    command: fakemcp
  static:
    type: http
    url: ${MCP_URL}
    headers: {Authorization: "Bearer x"}
`
	log := &said{}
	set := oauthSet(t, yaml, OAuth{Store: st, Login: browser()}, log)
	res, err := set.Login(context.Background(), "corp")
	if err != nil {
		t.Fatal(err)
	}
	if !res.LoggedIn || res.Tools != 3 || res.URL != srv.URL {
		t.Errorf("Login = %+v", res)
	}
	// A second login logs in again, the kept token left aside.
	set2 := oauthSet(t, yaml, OAuth{Store: st, Login: browser()}, log)
	if _, err := set2.Login(context.Background(), "corp"); err != nil {
		t.Fatal(err)
	}
	if n := srv.Count("authorize"); n != 2 {
		t.Errorf("%d logins, want 2", n)
	}
	for _, name := range []string{"local", "static"} {
		var no *NotOAuthError
		if _, err := set2.Login(context.Background(), name); !errors.As(err, &no) {
			t.Errorf("Login(%s) = %v, want a NotOAuthError", name, err)
		}
	}
	var unknown *UnknownServerError
	if _, err := set2.Login(context.Background(), "nope"); !errors.As(err, &unknown) || !strings.Contains(err.Error(), "corp, local, static") {
		t.Errorf("Login(nope) = %v", err)
	}
	url, had, err := set2.Logout("corp")
	if err != nil || !had || url != srv.URL {
		t.Errorf("Logout = %q, %v, %v", url, had, err)
	}
	if saved, _ := st.Load(srv.URL); saved != nil {
		t.Error("the tokens are still kept")
	}
	if _, had, _ := set2.Logout("corp"); had {
		t.Error("a second Logout had tokens")
	}
}

// TestOAuthPausesStart: a person logging in is not bound by the server's
// start deadline.
func TestOAuthPausesStart(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	t.Setenv("MCP_URL", srv.URL)
	login := &mcpauth.Login{Timeout: 20 * time.Second, Open: func(ctx context.Context, u string) error {
		go func() {
			// Longer than the start's deadline, and the start goes on;
			// the rest of the start has the whole deadline again, ample
			// even on a machine under heavy load.
			time.Sleep(4100 * time.Millisecond)
			authtest.Browser(ctx, u)
		}()
		return nil
	}}
	set, err := buildOf(t, context.Background(), Options{OAuth: OAuth{Login: login}, StartTimeout: 4 * time.Second}, "mcpServers:\n  corp:\n    type: http\n    url: ${MCP_URL}\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Registry.Load(); err != nil {
		t.Fatal(err)
	}
}

// TestOAuthDeclarations: where an oauth entry cannot apply, or is not one,
// the error says so at its line.
func TestOAuthDeclarations(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"mcpServers:\n  a: {command: x, oauth: {clientId: y}}\n", "kesoku.yaml:2:26: mcpServers.a.oauth: OAuth is for a server reached over HTTP"},
		{"mcpServers:\n  a: {type: sse, url: 'http://x', oauth: {clientId: y}}\n", "mcpServers.a.oauth: OAuth needs type http"},
		{"mcpServers:\n  a: {type: http, url: 'http://x', headers: {authorization: z}, oauth: {clientId: y}}\n", "headers.authorization and oauth both authorize"},
		{"mcpServers:\n  a: {type: http, url: 'http://x', oauth: {clientSecret: y}}\n", "clientSecret without clientId"},
		{"mcpServers:\n  a: {type: http, url: 'http://x', oauth: {clientID: y}}\n", `unknown key "clientID" (did you mean "clientId"?)`},
		{"mcpServers:\n  a: {type: http, url: 'http://x', oauth: {scopes: ['a b']}}\n", "a scope is one word"},
		{"mcpServers:\n  a: {type: http, url: 'http://x', oauth: [x]}\n", "want a mapping with clientId"},
	} {
		_, err := buildOf(t, context.Background(), Options{}, tc.yaml)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	// Another program's file may hold keys of its own there.
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {"a": {"type": "http", "url": "http://x", "oauth": {"clientId": "y", "callbackPort": 8080}}}}`), 0o644)
	if _, err := Build(context.Background(), registry.New(), Options{MCPConfig: []string{path}, AWD: dir}); err != nil {
		t.Errorf("--mcp-config with Claude Code's oauth keys: %v", err)
	}
}

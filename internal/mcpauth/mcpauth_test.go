package mcpauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/mcpauth"
	"github.com/kesoku/kesoku/internal/mcpauth/authtest"
)

// run is a client of srv authorized by a handler with opts, through the
// SDK's own client and streamable transport; notes are what the handler
// said.
type run struct {
	t       *testing.T
	srv     *authtest.Server
	h       *mcpauth.Handler
	session *mcp.ClientSession
	notes   *notes
}

type notes struct {
	mu    sync.Mutex
	lines []string
}

func (n *notes) add(s string) {
	n.mu.Lock()
	n.lines = append(n.lines, s)
	n.mu.Unlock()
}

func (n *notes) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.lines, "\n")
}

// login is a person who logs in, in a browser that follows the
// authorization server's redirects.
func login(said *notes) *mcpauth.Login {
	return &mcpauth.Login{Open: authtest.Browser, Say: said.add, Timeout: 20 * time.Second}
}

func connect(t *testing.T, srv *authtest.Server, opts mcpauth.Options) (*run, error) {
	t.Helper()
	n := &notes{}
	opts.Server, opts.URL = "mcp server corp", srv.URL
	opts.Note = n.add
	if opts.Login != nil && opts.Login.Say == nil {
		opts.Login.Say = n.add
	}
	h, err := mcpauth.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{t: t, srv: srv, h: h, notes: n}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	r.session, err = client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL, OAuthHandler: h, MaxRetries: -1}, nil)
	if err == nil {
		t.Cleanup(func() { r.session.Close() })
	}
	return r, err
}

func mustConnect(t *testing.T, srv *authtest.Server, opts mcpauth.Options) *run {
	t.Helper()
	r, err := connect(t, srv, opts)
	if err != nil {
		t.Fatalf("connect: %v\nnotes:\n%s", err, r.notes)
	}
	return r
}

func (r *run) call(name string, args map[string]any) (string, error) {
	res, err := r.session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	var text []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	if res.IsError {
		return "", errors.New(strings.Join(text, "\n"))
	}
	return strings.Join(text, "\n"), nil
}

// checkSecrets fails when a secret the handler held went where it does
// not belong: anything at all to another origin, an access token or a
// client secret to the authorization server in a header... an access
// token anywhere but the MCP server, a refresh token or client secret to
// the MCP server; or a secret in what the handler said.
func (r *run) checkSecrets() {
	r.t.Helper()
	secrets := r.h.Secrets()
	if len(secrets) == 0 {
		r.t.Fatal("the handler holds no secret: nothing was authorized")
	}
	for _, sec := range secrets {
		if strings.Contains(r.notes.String(), sec) {
			r.t.Errorf("a secret is in what the handler said:\n%s", r.notes)
		}
	}
	for _, req := range r.srv.Requests() {
		b, _ := json.Marshal(req)
		wire := string(b)
		for _, sec := range secrets {
			if !strings.Contains(wire, sec) {
				continue
			}
			access := strings.HasPrefix(sec, "at-")
			switch {
			case req.Server == "other":
				r.t.Errorf("a secret reached another origin: %s %s", req.Method, req.Path)
			case req.Server == "mcp" && !access:
				r.t.Errorf("a refresh token or client secret reached the MCP server: %s %s", req.Method, req.Path)
			case req.Server == "as" && access:
				r.t.Errorf("an access token reached the authorization server: %s %s", req.Method, req.Path)
			}
		}
	}
}

func store(t *testing.T) *mcpauth.Store {
	return mcpauth.StoreIn(filepath.Join(t.TempDir(), "kesoku"))
}

// TestLoginDynamicRegistration: a server with no oauth entry; the first
// request's 401 leads to the metadata, a registration with the loopback
// redirect, a login in the browser, the code exchanged with PKCE and the
// resource; the token is kept, readable by the user alone.
func TestLoginDynamicRegistration(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	st := store(t)
	r := mustConnect(t, srv, mcpauth.Options{Store: st, Login: login(&notes{})})
	if got, err := r.call("echo", map[string]any{"text": "hi"}); err != nil || got != "hi" {
		t.Fatalf("echo: %q, %v", got, err)
	}
	if n := srv.Count("register"); n != 1 {
		t.Errorf("%d registrations, want 1", n)
	}
	if n := srv.Count("grant authorization_code"); n != 1 {
		t.Errorf("%d code grants, want 1", n)
	}
	if !r.h.LoggedIn() {
		t.Error("LoggedIn is false")
	}
	r.checkSecrets()
	files, _ := filepath.Glob(filepath.Join(st.Dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("kept files %v, want one", files)
	}
	for path, want := range map[string]os.FileMode{files[0]: 0o600, st.Dir: 0o700} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode().Perm(), err, want)
		}
	}
	saved, err := st.Load(srv.URL)
	if err != nil || saved == nil || saved.RefreshToken == "" || !slices.Contains(r.h.Secrets(), saved.AccessToken) {
		t.Fatalf("kept %+v, %v", saved, err)
	}

	// The next run takes the kept token: no login, no one to log in.
	next := mustConnect(t, srv, mcpauth.Options{Store: st})
	if _, err := next.call("echo", map[string]any{"text": "again"}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Count("authorize"); n != 1 {
		t.Errorf("%d logins, want the first alone", n)
	}
}

// TestRegisteredClientSecretKept: a client secret that dynamic
// registration hands out is kept in one place alone, the server's token
// file (mode 0600, in the user's config directory), beside the refresh
// token that needs it; refreshing takes it from there, and forgetting the
// login removes it.
func TestRegisteredClientSecretKept(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	st := store(t)
	r := mustConnect(t, srv, mcpauth.Options{Store: st, Login: login(&notes{})})
	if _, err := r.call("echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	var handedOut string
	for _, s := range srv.Secrets() {
		if strings.HasPrefix(s, "cs-") {
			handedOut = s
		}
	}
	if handedOut == "" {
		t.Fatal("the registration handed out no client secret")
	}
	root := filepath.Dir(st.Dir)
	var holding []string
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), handedOut) {
				holding = append(holding, path)
			}
		}
		return nil
	})
	saved, _ := st.Load(srv.URL)
	if len(holding) != 1 || filepath.Dir(holding[0]) != st.Dir || saved == nil || saved.ClientSecret != handedOut {
		t.Fatalf("the client secret is in %v (kept %+v); want the token file alone", holding, saved)
	}
	if fi, err := os.Stat(holding[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: mode %v, want 0600", holding[0], fi.Mode().Perm())
	}
	if !slices.Contains(r.h.Secrets(), handedOut) {
		t.Error("the client secret is not among the secrets hidden")
	}
	if forgot, err := st.Forget(srv.URL); !forgot || err != nil {
		t.Fatalf("Forget: %v, %v", forgot, err)
	}
	if files, _ := filepath.Glob(filepath.Join(st.Dir, "*")); len(files) != 0 {
		t.Errorf("left %v after the login was forgotten", files)
	}
}

// TestLoginClientIDMetadataDocument: a client ID that is an https URL is a
// metadata document's, taken where the server supports them: no
// registration.
func TestLoginClientIDMetadataDocument(t *testing.T) {
	const doc = "https://kesoku.example/oauth/client.json"
	srv := authtest.New(authtest.Options{CIMD: true})
	defer srv.Close()
	r := mustConnect(t, srv, mcpauth.Options{Config: &mcpauth.Config{ClientID: doc}, Login: login(&notes{})})
	if _, err := r.call("echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Count("register"); n != 0 {
		t.Errorf("%d registrations, want none", n)
	}
	for _, req := range srv.Requests() {
		if req.Path == "/authorize" && req.Form.Get("client_id") != doc {
			t.Errorf("authorize with client_id %q, want %q", req.Form.Get("client_id"), doc)
		}
	}
	r.checkSecrets()

	// Where the server takes none, dynamic registration.
	plain := authtest.New(authtest.Options{})
	defer plain.Close()
	r = mustConnect(t, plain, mcpauth.Options{Config: &mcpauth.Config{ClientID: doc}, Login: login(&notes{})})
	if n := plain.Count("register"); n != 1 {
		t.Errorf("%d registrations, want 1", n)
	}
}

// TestLoginPreregistered: a client ID the server gave, with no secret: a
// public client, no registration; the token request says who it is in
// the form alone.
func TestLoginPreregistered(t *testing.T) {
	srv := authtest.New(authtest.Options{ClientID: "kesoku-desktop", AuthMethods: []string{"none"}})
	defer srv.Close()
	r := mustConnect(t, srv, mcpauth.Options{Config: &mcpauth.Config{ClientID: "kesoku-desktop"}, Login: login(&notes{})})
	if _, err := r.call("echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Count("register"); n != 0 {
		t.Errorf("%d registrations, want none", n)
	}
	r.checkSecrets()
}

// TestRefreshBeforeExpiry: a kept token that expires within the margin is
// refreshed before the request is sent, and the new one kept.
func TestRefreshBeforeExpiry(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	st := store(t)
	access, refresh, clientID := srv.Issue([]string{"tools.read"}, time.Now().Add(30*time.Second))
	if err := st.Save(&mcpauth.Saved{URL: srv.URL, ClientID: clientID, TokenURL: srv.AS.URL + "/token", AccessToken: access, RefreshToken: refresh, Expiry: time.Now().Add(30 * time.Second), Scopes: []string{"tools.read"}}); err != nil {
		t.Fatal(err)
	}
	r := mustConnect(t, srv, mcpauth.Options{Store: st})
	if _, err := r.call("echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	if n := srv.Count("grant refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	if n := srv.Count("401"); n != 0 {
		t.Errorf("%d requests refused, want none: the token was refreshed before", n)
	}
	saved, _ := st.Load(srv.URL)
	if saved == nil || saved.AccessToken == access || saved.RefreshToken == refresh {
		t.Errorf("the refreshed token was not kept: %+v", saved)
	}
	r.checkSecrets()
	for _, req := range srv.Requests() {
		if req.Path == "/mcp" && strings.Contains(req.Header.Get("Authorization"), access) {
			t.Errorf("the expiring token was sent: %s", req.Method)
		}
	}
}

// TestRefreshedElsewhere: two runs share the kept tokens (shards of one
// batch); one refreshes and the server rotates the refresh token: the
// other takes the kept one, rather than a login.
func TestRefreshedElsewhere(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	st := store(t)
	first := mustConnect(t, srv, mcpauth.Options{Store: st, Login: login(&notes{})})
	second := mustConnect(t, srv, mcpauth.Options{Store: st})
	srv.Revoke()
	if _, err := first.call("echo", map[string]any{"text": "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := second.call("echo", map[string]any{"text": "b"}); err != nil {
		t.Fatalf("the second run: %v", err)
	}
	if n := srv.Count("authorize"); n != 1 {
		t.Errorf("%d logins, want 1", n)
	}
}

// TestRevokedMidBatch: tokens the server no longer takes, in the middle of
// calls in flight: each refused call gets one new token (one refresh for
// all of them) and one retry.
func TestRevokedMidBatch(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	r := mustConnect(t, srv, mcpauth.Options{Store: store(t), Login: login(&notes{})})
	if _, err := r.call("echo", map[string]any{"text": "first"}); err != nil {
		t.Fatal(err)
	}
	srv.Revoke()
	var wg sync.WaitGroup
	errs := make([]error, 16)
	for i := range errs {
		wg.Go(func() { _, errs[i] = r.call("echo", map[string]any{"text": "x"}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("call %d: %v", i, err)
		}
	}
	if n := srv.Count("grant refresh_token"); n != 1 {
		t.Errorf("%d refreshes, want 1 for all the refused calls", n)
	}
	if n := srv.Count("authorize"); n != 1 {
		t.Errorf("%d logins, want the first alone", n)
	}
	r.checkSecrets()
}

// TestLoginRequired: with no one to log in (no terminal, no $BROWSER), a
// server that needs a login is an error naming how to log in, at once,
// and nothing is registered; a kept token whose grant is gone too.
func TestLoginRequired(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	st := store(t)
	_, err := connect(t, srv, mcpauth.Options{Store: st, LoginHint: "kesoku mcp login corp"})
	var lr *mcpauth.LoginRequiredError
	if !errors.As(err, &lr) || !strings.Contains(err.Error(), "run kesoku mcp login corp first") {
		t.Fatalf("err = %v, want a LoginRequiredError naming kesoku mcp login", err)
	}
	if n := srv.Count("register") + srv.Count("authorize"); n != 0 {
		t.Errorf("%d registrations and logins, want none", n)
	}

	access, refresh, clientID := srv.Issue([]string{"tools.read"}, time.Now().Add(time.Hour))
	st.Save(&mcpauth.Saved{URL: srv.URL, ClientID: clientID, TokenURL: srv.AS.URL + "/token", AccessToken: access, RefreshToken: refresh, Expiry: time.Now().Add(time.Hour)})
	r := mustConnect(t, srv, mcpauth.Options{Store: st, LoginHint: "kesoku mcp login corp"})
	srv.RevokeRefresh()
	if _, err := r.call("echo", map[string]any{"text": "x"}); !errors.As(err, &lr) {
		t.Fatalf("err = %v, want a LoginRequiredError", err)
	}
	if n := srv.Count("register"); n != 0 {
		t.Errorf("%d registrations, want none", n)
	}
}

// TestStepUp: a 403 insufficient_scope asks for the scopes it names (a
// login, keeping those granted), once; a server that still refuses is an
// error, not another login.
func TestStepUp(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	r := mustConnect(t, srv, mcpauth.Options{Store: store(t), Login: login(&notes{})})
	if _, err := r.call("echo", map[string]any{"text": "read"}); err != nil {
		t.Fatal(err)
	}
	if got, err := r.call("write", map[string]any{"text": "w"}); err != nil || got != "wrote w" {
		t.Fatalf("write: %q, %v", got, err)
	}
	if n := srv.Count("authorize"); n != 2 {
		t.Errorf("%d logins, want 2 (the step-up)", n)
	}
	last := ""
	for _, req := range srv.Requests() {
		if req.Path == "/authorize" {
			last = req.Form.Get("scope")
		}
	}
	for _, want := range []string{"tools.read", "tools.write"} {
		if !slices.Contains(strings.Fields(last), want) {
			t.Errorf("the step-up asked for %q, want %s among them", last, want)
		}
	}
	r.checkSecrets()

	never := authtest.New(authtest.Options{Withhold: "tools.write"})
	defer never.Close()
	r = mustConnect(t, never, mcpauth.Options{Login: login(&notes{})})
	// The step-up's retry is refused too (the SDK says Forbidden); the
	// next call is not asked for again.
	if _, err := r.call("write", map[string]any{"text": "w"}); err == nil {
		t.Fatal("write succeeded without its scope")
	}
	_, err := r.call("write", map[string]any{"text": "w"})
	var se *mcpauth.ScopeError
	if n := never.Count("authorize"); n != 2 || !errors.As(err, &se) {
		t.Errorf("%d logins (%v), want 2: the first, and one step-up", n, err)
	}
}

// TestClientCredentials: a client secret takes the client-credentials
// grant, with client_secret_basic or client_secret_post as the server
// takes; no person, nothing kept; the entry's scopes asked for.
func TestClientCredentials(t *testing.T) {
	for _, method := range []string{"client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			srv := authtest.New(authtest.Options{ClientID: "kesoku-ci", ClientSecret: "ci-secret-7f3a9c", AuthMethods: []string{method}})
			defer srv.Close()
			st := store(t)
			r := mustConnect(t, srv, mcpauth.Options{Store: st, Config: &mcpauth.Config{ClientID: "kesoku-ci", ClientSecret: "ci-secret-7f3a9c", Scopes: []string{"tools.read", "extra.scope"}}})
			if _, err := r.call("echo", map[string]any{"text": "hi"}); err != nil {
				t.Fatal(err)
			}
			if n := srv.Count("grant client_credentials"); n != 1 {
				t.Errorf("%d grants, want 1", n)
			}
			for _, req := range srv.Requests() {
				if req.Path != "/token" {
					continue
				}
				basic := strings.HasPrefix(req.Header.Get("Authorization"), "Basic ")
				if basic != (method == "client_secret_basic") || (req.Form.Get("client_secret") != "") != (method == "client_secret_post") {
					t.Errorf("token request: basic %v, secret in the form %v; want %s", basic, req.Form.Get("client_secret") != "", method)
				}
				// The SDK unites scopes in no set order.
				got := strings.Fields(req.Form.Get("scope"))
				slices.Sort(got)
				if !slices.Equal(got, []string{"extra.scope", "tools.read"}) {
					t.Errorf("scope %q, want the entry's", req.Form.Get("scope"))
				}
			}
			if files, _ := filepath.Glob(filepath.Join(st.Dir, "*")); len(files) != 0 {
				t.Errorf("kept %v: a client-credentials token is asked for each run", files)
			}
			r.checkSecrets()
		})
	}
}

// TestClientCredentialsRenewedBeforeExpiry: a client-credentials token
// that expires within the margin is replaced before a request goes with
// it, without a refusal.
func TestClientCredentialsRenewedBeforeExpiry(t *testing.T) {
	srv := authtest.New(authtest.Options{ClientID: "kesoku-ci", ClientSecret: "ci-secret-7f3a9c"})
	defer srv.Close()
	// A margin longer than the token's life: every token is about to
	// expire when it is used.
	r := mustConnect(t, srv, mcpauth.Options{RefreshMargin: 2 * time.Hour, Config: &mcpauth.Config{ClientID: "kesoku-ci", ClientSecret: "ci-secret-7f3a9c"}})
	for range 2 {
		if _, err := r.call("echo", map[string]any{"text": "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if n, refused := srv.Count("grant client_credentials"), srv.Count("401"); n < 2 || refused != 1 {
		t.Errorf("%d grants and %d refusals: want a new token for each request (each expires within the margin), and the first refusal alone", n, refused)
	}
	r.checkSecrets()
}

// TestSecretsStayHome: a token endpoint that redirects to another origin
// does not get the client secret there; the grant fails saying so.
func TestSecretsStayHome(t *testing.T) {
	srv := authtest.New(authtest.Options{ClientID: "kesoku-ci", ClientSecret: "ci-secret-7f3a9c", RedirectToken: true})
	defer srv.Close()
	r, err := connect(t, srv, mcpauth.Options{Config: &mcpauth.Config{ClientID: "kesoku-ci", ClientSecret: "ci-secret-7f3a9c"}})
	if err == nil || !strings.Contains(err.Error(), "another origin") {
		t.Fatalf("err = %v, want the redirect refused", err)
	}
	for _, req := range srv.Requests() {
		if req.Server == "other" {
			t.Errorf("another origin got %s %s", req.Method, req.Path)
		}
	}
	r.checkSecrets()
}

// TestRedact: a server that echoes the token has it hidden in results and
// errors.
func TestRedact(t *testing.T) {
	srv := authtest.New(authtest.Options{})
	defer srv.Close()
	r := mustConnect(t, srv, mcpauth.Options{Login: login(&notes{})})
	res, err := r.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(raw), "at-") {
		t.Fatalf("whoami did not echo the token: %s", raw)
	}
	red, _ := json.Marshal(r.h.RedactValue(res.StructuredContent))
	blocks, _ := json.Marshal(r.h.RedactValue(res.Content))
	for _, b := range []string{string(red), string(blocks), r.h.RedactError(errors.New(string(raw))).Error()} {
		if strings.Contains(b, "at-") || !strings.Contains(b, mcpauth.Redacted) {
			t.Errorf("not redacted: %s", b)
		}
	}
	same := map[string]any{"a": "nothing secret"}
	if got := r.h.RedactValue(same); got.(map[string]any)["a"] != "nothing secret" {
		t.Errorf("RedactValue changed %v", got)
	}
}

// TestMetadataAtRoot: a challenge that names no metadata: the client
// looks at the path's well-known place, then the root's.
func TestMetadataAtRoot(t *testing.T) {
	srv := authtest.New(authtest.Options{PRMAtRoot: true})
	defer srv.Close()
	r := mustConnect(t, srv, mcpauth.Options{Login: login(&notes{})})
	if _, err := r.call("echo", map[string]any{"text": "root"}); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, req := range srv.Requests() {
		if strings.HasPrefix(req.Path, "/.well-known/oauth-protected-resource") {
			paths = append(paths, req.Path)
		}
	}
	if want := []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}; !slices.Equal(paths, want) {
		t.Errorf("metadata asked at %v, want %v", paths, want)
	}
	r.checkSecrets()
}

// TestNoChallenge: a 401 without a Bearer challenge, from a server with
// no oauth entry, is no OAuth: an error saying so, and no discovery.
func TestNoChallenge(t *testing.T) {
	var asked []string
	var mu sync.Mutex
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		http.Error(w, "no token", http.StatusUnauthorized)
	}))
	defer plain.Close()
	h, err := mcpauth.New(mcpauth.Options{Server: "mcp server plain", URL: plain.URL + "/mcp", Login: login(&notes{})})
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	_, err = client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: plain.URL + "/mcp", OAuthHandler: h, MaxRetries: -1}, nil)
	var nc *mcpauth.NoChallengeError
	if !errors.As(err, &nc) {
		t.Fatalf("err = %v, want a NoChallengeError", err)
	}
	for _, p := range asked {
		if p != "/mcp" {
			t.Errorf("asked %s: no OAuth was offered", p)
		}
	}
}

// TestLoginRegistrationAuthMethod: dynamic registration asks for a token
// endpoint method the authorization server lists, and the token requests
// then use the method the answer names, or the one asked for when it
// names none: a login against the TypeScript SDK's mcpAuthRouter (the
// form and none; an answer with a secret and no method) works.
func TestLoginRegistrationAuthMethod(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts authtest.Options
		// ask is the method registration must ask for, use the one the
		// token requests must use.
		ask, use string
	}{
		{"mcpAuthRouter", authtest.Options{MCPAuthRouter: true}, "none", "none"},
		{"mcpAuthRouter, secrets alone", authtest.Options{MCPAuthRouter: true, AuthMethods: []string{"client_secret_post"}}, "client_secret_post", "client_secret_post"},
		{"the form, unsaid", authtest.Options{MCPAuthRouter: true, MethodUnsaid: true, AuthMethods: []string{"client_secret_post"}}, "client_secret_post", "client_secret_post"},
		{"a header, unsaid", authtest.Options{MethodUnsaid: true, AuthMethods: []string{"client_secret_basic"}}, "client_secret_basic", "client_secret_basic"},
		{"the answer decides", authtest.Options{AuthMethods: []string{"client_secret_basic", "none"}}, "none", "client_secret_basic"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := authtest.New(tt.opts)
			defer srv.Close()
			r, err := connect(t, srv, mcpauth.Options{Store: store(t), Login: login(&notes{})})
			if err != nil {
				t.Fatalf("connect: %v\nnotes:\n%s", err, r.notes)
			}
			if _, err := r.call("echo", map[string]any{"text": "hi"}); err != nil {
				t.Fatal(err)
			}
			// A refresh authenticates as the code grant did.
			srv.Revoke()
			if _, err := r.call("echo", map[string]any{"text": "again"}); err != nil {
				t.Fatal(err)
			}
			if n := srv.Count("grant refresh_token"); n != 1 {
				t.Errorf("%d refreshes, want 1", n)
			}
			tokens := 0
			for _, req := range srv.Requests() {
				switch req.Path {
				case "/register":
					var meta struct {
						Method string `json:"token_endpoint_auth_method"`
					}
					if err := json.Unmarshal([]byte(req.Body), &meta); err != nil || meta.Method != tt.ask {
						t.Errorf("registration asked for %q (%v), want %q", meta.Method, err, tt.ask)
					}
				case "/token":
					tokens++
					used := "none"
					switch {
					case strings.HasPrefix(req.Header.Get("Authorization"), "Basic "):
						used = "client_secret_basic"
					case req.Form.Get("client_secret") != "":
						used = "client_secret_post"
					}
					if used != tt.use {
						t.Errorf("token request used %s, want %s", used, tt.use)
					}
				}
			}
			if tokens == 0 {
				t.Error("no token request")
			}
			r.checkSecrets()
		})
	}
}

// Package authtest is an MCP server behind OAuth 2.1, with its authorization
// server, for tests.
//
// Both are started in the test (httptest), speaking the
// real wire formats — protected resource metadata (RFC 9728), the
// authorization server's metadata (RFC 8414), dynamic client
// registration (RFC 7591), the authorization endpoint with PKCE and the
// resource indicator (RFC 7636, RFC 8707), the token endpoint's grants
// (authorization code, refresh token, client credentials) with
// client_secret_basic, client_secret_post and none — and refusing what a
// real server refuses, with the same status and error. The MCP server is
// the Go SDK's, behind the SDK's bearer-token middleware.
//
// A third server, Other, stands for another origin: whatever reaches it
// is kept, for tests to check that no secret did.
package authtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Options shape the servers.
type Options struct {
	// ClientID and ClientSecret are a client registered ahead: a
	// confidential one, for the client-credentials grant (and the code
	// grant). A ClientID without a secret is a public client.
	ClientID, ClientSecret string
	// AuthMethods are the token endpoint's authentication methods
	// (default client_secret_basic, client_secret_post, none); a client
	// registered dynamically gets the first.
	AuthMethods []string
	// MCPAuthRouter makes the authorization server behave as the one
	// the TypeScript SDK's mcpAuthRouter builds: its metadata lists
	// client_secret_post and none (AuthMethods, unless given); a
	// registration gets the method it asks for and its answer names no
	// other (none asked for: no secret; nothing asked for: a secret, and
	// no method named); the token endpoint reads the client from the form
	// alone, and answers one in a header with 400 invalid_request.
	MCPAuthRouter bool
	// MethodUnsaid leaves the token endpoint's method out of the answer
	// to a registration, whatever was asked for; the client must use the
	// one it asked for.
	MethodUnsaid bool
	// CIMD says the server takes client ID metadata documents (any https
	// URL is taken as one: the test does not serve it).
	CIMD bool
	// NoRegistration leaves dynamic registration out.
	NoRegistration bool
	// Lifetime is an access token's (default an hour); NoRefresh issues
	// no refresh tokens.
	Lifetime  time.Duration
	NoRefresh bool
	// Scope is what every request needs (default tools.read), WriteScope
	// what the tool write needs besides (default tools.write): asked for
	// with 403 insufficient_scope.
	Scope, WriteScope string
	// PRMAtRoot serves the resource's metadata at the root's well-known
	// path alone, and names it in no challenge: the client must look
	// there.
	PRMAtRoot bool
	// RedirectToken makes the token endpoint answer with a redirect (307)
	// to Other: the client must not follow it with its secrets.
	RedirectToken bool
	// RedirectMCP makes the MCP endpoint answer its next request with a
	// redirect (307) to Other, once.
	RedirectMCP bool
	// Withhold is a scope the authorization server never grants, though
	// asked: a step-up that cannot succeed.
	Withhold string
}

// Server is an MCP server behind OAuth and its authorization server.
type Server struct {
	// URL is the MCP endpoint's.
	URL string
	// MCP, AS and Other are the servers: the resource, the authorization
	// server, another origin.
	MCP, AS, Other *httptest.Server

	opts Options
	mu   sync.Mutex
	// tokens are the access tokens issued, refreshes the refresh tokens,
	// codes the codes: each to what it grants.
	tokens    map[string]*grant
	refreshes map[string]*grant
	codes     map[string]*codeGrant
	clients   map[string]*client
	requests  []Request
	counts    map[string]int
	// issued are the secrets handed out: tokens, codes, client secrets.
	issued   []string
	redirect bool
}

type grant struct {
	clientID string
	scopes   []string
	expiry   time.Time
}

type codeGrant struct {
	grant
	challenge, redirectURI, resource string
}

type client struct {
	id, secret, method string
	redirectURIs       []string
}

// Request is one request a server received.
type Request struct {
	// Server is "mcp", "as" or "other".
	Server string
	Method string
	Path   string
	// Header and Form are as they came (Form: the query, and the body
	// of a form).
	Header http.Header
	Form   url.Values
	Body   string
}

// New starts the servers; Close stops them.
func New(opts Options) *Server {
	if opts.AuthMethods == nil {
		opts.AuthMethods = []string{"client_secret_basic", "client_secret_post", "none"}
		if opts.MCPAuthRouter {
			opts.AuthMethods = []string{"client_secret_post", "none"}
		}
	}
	if opts.Lifetime == 0 {
		opts.Lifetime = time.Hour
	}
	if opts.Scope == "" {
		opts.Scope = "tools.read"
	}
	if opts.WriteScope == "" {
		opts.WriteScope = "tools.write"
	}
	s := &Server{
		opts: opts, tokens: map[string]*grant{}, refreshes: map[string]*grant{}, codes: map[string]*codeGrant{},
		clients: map[string]*client{}, counts: map[string]int{}, redirect: opts.RedirectMCP,
	}
	if opts.ClientID != "" {
		method := "none"
		if opts.ClientSecret != "" {
			method = ""
		}
		s.clients[opts.ClientID] = &client{id: opts.ClientID, secret: opts.ClientSecret, method: method}
	}
	s.Other = httptest.NewServer(s.keep("other", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "another origin", http.StatusTeapot)
	})))
	s.AS = httptest.NewServer(s.keep("as", s.asHandler()))
	// Its handler needs its URL (the challenge names the metadata's), known
	// once it listens.
	s.MCP = httptest.NewUnstartedServer(nil)
	s.URL = "http://" + s.MCP.Listener.Addr().String() + "/mcp"
	s.MCP.Config.Handler = s.keep("mcp", s.mcpHandler())
	s.MCP.Start()
	return s
}

// Close stops the servers.
func (s *Server) Close() {
	s.MCP.CloseClientConnections()
	s.MCP.Close()
	s.AS.Close()
	s.Other.Close()
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Count is how often something happened: "register", "authorize",
// "grant authorization_code", "grant refresh_token", "grant
// client_credentials", "401", "403".
func (s *Server) Count(what string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[what]
}

// Secrets returns every secret handed out so far: the access and refresh
// tokens, the codes, the client secrets (the one given in Options too).
func (s *Server) Secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.issued)
	if s.opts.ClientSecret != "" {
		out = append(out, s.opts.ClientSecret)
	}
	return out
}

// Revoke makes every access token issued so far invalid, as a server
// that restarted without them (the refresh tokens stay good).
func (s *Server) Revoke() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
}

// RevokeRefresh makes every refresh token invalid too: the grant is gone
// and only a new login helps.
func (s *Server) RevokeRefresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.tokens)
	clear(s.refreshes)
}

// Issue makes a token good for scopes until expiry, with a refresh token
// (for a test to keep ahead of a run, as a login did before); it returns
// the access and refresh tokens and the client registered for them.
func (s *Server) Issue(scopes []string, expiry time.Time) (access, refresh, clientID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := &client{id: "kept-" + secret(), method: "none"}
	s.clients[c.id] = c
	g := &grant{clientID: c.id, scopes: scopes, expiry: expiry}
	access, refresh = "at-"+secret(), "rt-"+secret()
	s.tokens[access], s.refreshes[refresh] = g, &grant{clientID: c.id, scopes: scopes}
	s.issued = append(s.issued, access, refresh)
	return access, refresh, c.id
}

// keep records each request name receives.
func (s *Server) keep(name string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		form := r.URL.Query()
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			if f, err := url.ParseQuery(string(body)); err == nil {
				for k, v := range f {
					form[k] = v
				}
			}
		}
		s.mu.Lock()
		s.requests = append(s.requests, Request{Server: name, Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Form: form, Body: string(body)})
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (s *Server) count(what string) {
	s.mu.Lock()
	s.counts[what]++
	s.mu.Unlock()
}

// secret is a random token.
func secret() string { return rand.Text() }

// mcpHandler is the MCP endpoint behind the SDK's bearer-token middleware
// (every request needs Scope; a 401 names the resource's metadata), the
// tool write behind a step-up (WriteScope, asked for with 403
// insufficient_scope), and the resource's metadata.
func (s *Server) mcpHandler() http.Handler {
	srv := mcp.NewServer(&mcp.Implementation{Name: "authtest", Version: "1"}, nil)
	type text struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Returns the text.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	// whoami echoes the Authorization header it got, as a careless
	// server's debugging tool might: the token must not reach a record.
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami", Description: "Says who called.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			h := req.Extra.Header.Get("Authorization")
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you sent " + h}}}, map[string]any{"authorization": h}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "write", Description: "Needs the write scope."},
		func(_ context.Context, _ *mcp.CallToolRequest, in text) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote " + in.Text}}}, nil, nil
		})
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	prmPath := "/.well-known/oauth-protected-resource/mcp"
	if s.opts.PRMAtRoot {
		prmPath = "/.well-known/oauth-protected-resource"
	}
	bearer := auth.RequireBearerTokenOptions{Scopes: []string{s.opts.Scope}}
	if !s.opts.PRMAtRoot {
		bearer.ResourceMetadataURL = strings.TrimSuffix(s.URL, "/mcp") + prmPath
	}
	protected := auth.RequireBearerToken(s.verify, &bearer)(s.stepUp(stream, bearer.ResourceMetadataURL))
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+prmPath, func(w http.ResponseWriter, r *http.Request) {
		resource := s.URL
		if s.opts.PRMAtRoot {
			resource = strings.TrimSuffix(s.URL, "/mcp")
		}
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:             resource,
			AuthorizationServers: []string{s.AS.URL},
			ScopesSupported:      []string{s.opts.Scope, s.opts.WriteScope},
		}).ServeHTTP(w, r)
	})
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		redirect := s.redirect
		s.redirect = false
		s.mu.Unlock()
		if redirect {
			http.Redirect(w, r, s.Other.URL+"/mcp", http.StatusTemporaryRedirect)
			return
		}
		rec := &statusRecorder{ResponseWriter: w}
		protected.ServeHTTP(rec, r)
		if rec.status == http.StatusUnauthorized || rec.status == http.StatusForbidden {
			s.count(fmt.Sprint(rec.status))
		}
	}))
	return mux
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// verify is the SDK middleware's TokenVerifier.
func (s *Server) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.tokens[token]
	if g == nil {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{Scopes: g.scopes, Expiration: g.expiry}, nil
}

// stepUp refuses a call of write without WriteScope, as the MCP spec's
// scope challenge says: 403, error="insufficient_scope", the scopes the
// call needs.
func (s *Server) stepUp(next http.Handler, prm string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			r.Body = io.NopCloser(strings.NewReader(string(body)))
			var msg struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			info := auth.TokenInfoFromContext(r.Context())
			if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" && msg.Params.Name == "write" && info != nil && !slices.Contains(info.Scopes, s.opts.WriteScope) {
				params := []string{`error="insufficient_scope"`, fmt.Sprintf("scope=%q", s.opts.Scope+" "+s.opts.WriteScope)}
				if prm != "" {
					params = append(params, fmt.Sprintf("resource_metadata=%q", prm))
				}
				w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
				http.Error(w, "insufficient scope", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// asHandler is the authorization server.
func (s *Server) asHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		meta := map[string]any{
			"issuer":                                s.AS.URL,
			"authorization_endpoint":                s.AS.URL + "/authorize",
			"token_endpoint":                        s.AS.URL + "/token",
			"response_types_supported":              []string{"code"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
			"code_challenge_methods_supported":      []string{"S256"},
			"token_endpoint_auth_methods_supported": s.opts.AuthMethods,
			"scopes_supported":                      []string{s.opts.Scope, s.opts.WriteScope, "offline_access"},
		}
		if !s.opts.NoRegistration {
			meta["registration_endpoint"] = s.AS.URL + "/register"
		}
		if s.opts.CIMD {
			meta["client_id_metadata_document_supported"] = true
		}
		writeJSON(w, http.StatusOK, meta)
	})
	mux.HandleFunc("POST /register", s.register)
	mux.HandleFunc("GET /authorize", s.authorize)
	mux.HandleFunc("POST /token", s.token)
	return mux
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// oauthError answers as RFC 6749 section 5.2 says.
func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if s.opts.NoRegistration {
		http.NotFound(w, r)
		return
	}
	var meta oauthex.ClientRegistrationMetadata
	if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || len(meta.RedirectURIs) == 0 {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_redirect_uri", "error_description": "redirect_uris is required"})
		return
	}
	c := &client{id: "dyn-" + secret(), method: s.opts.AuthMethods[0], redirectURIs: meta.RedirectURIs}
	if s.opts.MCPAuthRouter {
		// What was asked for, checked against nothing.
		c.method = meta.TokenEndpointAuthMethod
	}
	if c.method != "none" {
		c.secret = "cs-" + secret()
	}
	s.mu.Lock()
	s.clients[c.id] = c
	if c.secret != "" {
		s.issued = append(s.issued, c.secret)
	}
	s.mu.Unlock()
	s.count("register")
	resp := map[string]any{
		"client_id": c.id, "client_id_issued_at": time.Now().Unix(), "redirect_uris": c.redirectURIs,
		"token_endpoint_auth_method": c.method, "grant_types": meta.GrantTypes, "client_name": meta.ClientName,
	}
	if c.method == "" || s.opts.MethodUnsaid {
		delete(resp, "token_endpoint_auth_method")
	}
	if c.secret != "" {
		resp["client_secret"], resp["client_secret_expires_at"] = c.secret, 0
	}
	writeJSON(w, http.StatusCreated, resp)
}

// lookupClient is the client id names: registered, or (with CIMD) a
// metadata document's URL.
func (s *Server) lookupClient(id string) *client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.clients[id]; c != nil {
		return c
	}
	if s.opts.CIMD && strings.HasPrefix(id, "https://") {
		return &client{id: id, method: "none"}
	}
	return nil
}

// authorize approves at once, as a person who logs in would: the browser
// is sent back to the redirect URI with a code, or with an error.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c := s.lookupClient(q.Get("client_id"))
	redirect := q.Get("redirect_uri")
	switch {
	case c == nil:
		http.Error(w, "unknown client_id", http.StatusBadRequest)
		return
	case len(c.redirectURIs) > 0 && !slices.Contains(c.redirectURIs, redirect):
		http.Error(w, "redirect_uri was not registered", http.StatusBadRequest)
		return
	case !strings.HasPrefix(redirect, "http://127.0.0.1:") && !strings.HasPrefix(redirect, "http://localhost:"):
		http.Error(w, "redirect_uri must be a loopback one", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(redirect)
	bq := back.Query()
	bq.Set("state", q.Get("state"))
	fail := func(code, desc string) {
		bq.Set("error", code)
		bq.Set("error_description", desc)
		back.RawQuery = bq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	}
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "response_type must be code")
		return
	case q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "PKCE with S256 is required")
		return
	case q.Get("resource") != s.URL && q.Get("resource") != strings.TrimSuffix(s.URL, "/mcp"):
		fail("invalid_target", "resource must name the MCP server")
		return
	}
	s.count("authorize")
	code := "code-" + secret()
	s.mu.Lock()
	s.issued = append(s.issued, code)
	s.codes[code] = &codeGrant{grant: grant{clientID: c.id, scopes: strings.Fields(q.Get("scope"))}, challenge: q.Get("code_challenge"), redirectURI: redirect, resource: q.Get("resource")}
	s.mu.Unlock()
	bq.Set("code", code)
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token is the token endpoint.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if s.opts.RedirectToken {
		http.Redirect(w, r, s.Other.URL+"/token", http.StatusTemporaryRedirect)
		return
	}
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", "a form is required")
		return
	}
	c, ok := s.authenticate(w, r)
	if !ok {
		return
	}
	gt := r.PostForm.Get("grant_type")
	var g *grant
	switch gt {
	case "authorization_code":
		s.mu.Lock()
		cg := s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		s.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		switch {
		case cg == nil || cg.clientID != c.id:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown code")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != cg.challenge:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "code_verifier does not match the code_challenge")
			return
		case r.PostForm.Get("redirect_uri") != cg.redirectURI:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "redirect_uri differs from the authorization request's")
			return
		case r.PostForm.Get("resource") != cg.resource:
			oauthError(w, http.StatusBadRequest, "invalid_target", "resource differs from the authorization request's")
			return
		}
		g = &cg.grant
	case "refresh_token":
		s.mu.Lock()
		rg := s.refreshes[r.PostForm.Get("refresh_token")]
		// Rotated: the old refresh token is spent.
		delete(s.refreshes, r.PostForm.Get("refresh_token"))
		s.mu.Unlock()
		if rg == nil || rg.clientID != c.id {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token")
			return
		}
		g = rg
	case "client_credentials":
		if c.secret == "" {
			oauthError(w, http.StatusUnauthorized, "unauthorized_client", "client credentials need a confidential client")
			return
		}
		g = &grant{clientID: c.id, scopes: strings.Fields(r.PostForm.Get("scope"))}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", gt)
		return
	}
	s.count("grant " + gt)
	if s.opts.Withhold != "" {
		g = &grant{clientID: g.clientID, scopes: slices.DeleteFunc(slices.Clone(g.scopes), func(sc string) bool { return sc == s.opts.Withhold })}
	}
	access := "at-" + secret()
	issued := &grant{clientID: c.id, scopes: g.scopes, expiry: time.Now().Add(s.opts.Lifetime)}
	resp := map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": int(s.opts.Lifetime.Seconds()), "scope": strings.Join(g.scopes, " ")}
	s.mu.Lock()
	s.tokens[access] = issued
	s.issued = append(s.issued, access)
	if !s.opts.NoRefresh && gt != "client_credentials" {
		refresh := "rt-" + secret()
		s.refreshes[refresh] = &grant{clientID: c.id, scopes: g.scopes}
		s.issued = append(s.issued, refresh)
		resp["refresh_token"] = refresh
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, resp)
}

// authenticate checks the client's authentication at the token endpoint
// against the methods the server takes and the one the client has.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request) (*client, bool) {
	id, sec, basic := r.BasicAuth()
	if basic && s.opts.MCPAuthRouter {
		// It reads client_id from the form, and finds none.
		oauthError(w, http.StatusBadRequest, "invalid_request", "client_id: expected string, received undefined")
		return nil, false
	}
	method := "client_secret_basic"
	if basic {
		// RFC 6749 section 2.3.1: form-encoded in the header.
		id, _ = url.QueryUnescape(id)
		sec, _ = url.QueryUnescape(sec)
	} else {
		id, sec = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		method = "client_secret_post"
		if sec == "" {
			method = "none"
		}
	}
	c := s.lookupClient(id)
	status := http.StatusUnauthorized
	if s.opts.MCPAuthRouter {
		status = http.StatusBadRequest // every OAuth error of its own
	}
	switch {
	case c == nil:
		oauthError(w, status, "invalid_client", "unknown client")
	case !slices.Contains(s.opts.AuthMethods, method):
		oauthError(w, status, "invalid_client", method+" is not taken here")
	case c.method != "" && c.method != method:
		oauthError(w, status, "invalid_client", "the client was registered for "+c.method+", not "+method)
	case c.secret != sec:
		oauthError(w, status, "invalid_client", "wrong client secret")
	default:
		return c, true
	}
	return nil, false
}

// Browser is a person's browser for tests: it opens the URL and follows
// the redirects, as the authorization server sends it back to the
// loopback redirect with the code. It fails unless the last page said
// 200.
func Browser(ctx context.Context, u string) error {
	go func() {
		req, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodGet, u, nil)
		if err != nil {
			return
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
	}()
	return nil
}

// RedirectNext makes the MCP endpoint answer its next request with a
// redirect (307) to Other.
func (s *Server) RedirectNext() {
	s.mu.Lock()
	s.redirect = true
	s.mu.Unlock()
}

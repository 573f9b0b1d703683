// Package mcpauth authorizes kesoku's requests to an MCP server over HTTP
// with OAuth 2.1.
//
// It follows the MCP authorization spec, through
// the Go SDK's auth, auth/extauth and oauthex packages: the protected
// resource's metadata found from a 401's WWW-Authenticate (at the path,
// then the root), the authorization server's metadata, then either the
// client-credentials grant (a client secret: CI, machines) or the
// authorization code grant with PKCE and the resource indicator (a person
// in a browser, the answer taken on a loopback redirect; the client
// identified by a client ID, a client ID metadata document, or dynamic
// registration, as the server offers).
//
// A Handler is the SDK transport's OAuthHandler for one server: it holds
// the token, refreshes it before it expires, keeps it in the user's
// config directory (Store), gets one new token for a request refused with
// 401, and asks once for the scopes a 403 insufficient_scope names. Its
// requests follow no redirect to another origin, so that a token or a
// client secret goes only to the endpoints discovered. Redact hides every
// secret it has held in what a server sends back.
package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/kesoku/kesoku/internal/origin"
	"github.com/kesoku/kesoku/internal/secret"
)

// Config is a server's oauth entry, its ${VAR} expanded.
type Config struct {
	// ClientID identifies kesoku to the authorization server: an ID it
	// was given, or the https URL of a client ID metadata document
	// (used where the server supports those, else dynamic registration).
	// "" registers dynamically.
	ClientID string
	// ClientSecret, with ClientID, takes the client-credentials grant:
	// no person logs in.
	ClientSecret string
	// Scopes are asked for in place of those the server suggests (its
	// challenge's scopes are asked for too).
	Scopes []string
}

// Options say which server a Handler authorizes, and how.
type Options struct {
	// Server names the server in messages: `mcp server corp (kesoku.yaml:3:3)`.
	Server string
	// URL is the server's MCP endpoint: the resource, and the key of its
	// tokens in Store.
	URL string
	// Config is the server's oauth entry; nil when it has none, which
	// authorizes with the authorization code grant when the server asks
	// (a 401 with a Bearer challenge).
	Config *Config
	// Store keeps the tokens of a login; nil keeps none.
	Store *Store
	// Login is how a person logs in; nil when no one can in this run:
	// a login needed is then a *LoginRequiredError, at once.
	Login *Login
	// LoginHint says how to log in ahead of a run, for the
	// *LoginRequiredError: "kesoku mcp login corp".
	LoginHint string
	// Fresh leaves the kept tokens aside: the first request is sent
	// without one, and a login replaces them (kesoku mcp login).
	Fresh bool
	// Pause, when set, is called while a person is awaited; it returns
	// the function that ends the pause. The server's start deadline
	// bounds the server, not the person.
	Pause func() (resume func())
	// Context is the command's: refreshing a token in the middle of a
	// request uses it.
	Context context.Context
	// Transport carries the OAuth requests (discovery, registration,
	// tokens); nil is http.DefaultTransport.
	Transport http.RoundTripper
	// RefreshMargin is how long before its expiry a token is replaced;
	// 0 is a minute, or half its lifetime when that is shorter.
	RefreshMargin time.Duration
	// Note, when set, is told what a -v reader wants to know: a token
	// granted or refreshed (never the token).
	Note func(string)
	// Secrets, when set, is told every secret the handler holds, so that
	// what else kesoku shows or sends hides them too.
	Secrets *secret.Redactor
}

// refreshMargin is how long before its expiry a token is refreshed: a
// request sent with it must not arrive after it expired.
const refreshMargin = time.Minute

// marginLocked is how long before its expiry the token held is replaced:
// refreshMargin, or half its lifetime when that is shorter (a token good
// for a minute is not replaced at every request); the caller holds h.mu.
func (h *Handler) marginLocked() time.Duration {
	if h.opts.RefreshMargin > 0 {
		return h.opts.RefreshMargin
	}
	if !h.obtained.IsZero() && !h.tok.Expiry.IsZero() {
		return min(refreshMargin, h.tok.Expiry.Sub(h.obtained)/2)
	}
	return refreshMargin
}

// refreshTimeout bounds a refresh made in the middle of a request.
const refreshTimeout = 30 * time.Second

// Handler authorizes the requests to one server: the SDK's streamable
// transport takes the token for each request from TokenSource, and calls
// Authorize when one is refused (401, or 403).
type Handler struct {
	opts   Options
	client *http.Client
	// cc is the client-credentials grant, when the entry has a secret.
	cc *extauth.ClientCredentialsHandler

	// authMu makes one authorization at a time: the requests refused
	// together wait for the first one's token.
	authMu sync.Mutex
	// failed is the last authorization that failed, for the token
	// failedFor (the one the refused request carried): the requests
	// refused with it get the same error, not a login each.
	failed    error
	failedFor string

	mu  sync.Mutex
	tok *oauth2.Token
	// refresh is how tok is refreshed (the client and token endpoint it
	// was granted by); nil when it is not.
	refresh *oauth2.Config
	// granted are tok's scopes; asked those the last grant asked for;
	// wanted those a step-up that could not log in asked for.
	granted, asked, wanted []string
	// challenge is the last 401's, kept to renew a client-credentials
	// token before it expires.
	challenge *challenge
	// obtained is when tok was granted, zero for a kept one.
	obtained time.Time
	loggedIn bool
	// keepErr is why the last token to keep was not kept, nil when it
	// was.
	keepErr error
	secrets *secret.Redactor
}

// challenge is a refused request's URL and WWW-Authenticate.
type challenge struct {
	url    *url.URL
	header []string
}

// New returns the handler of the server opts name, holding the tokens
// kept for it (unless opts.Fresh, or the entry takes the client
// credentials grant, whose tokens are asked for each run: no person is
// needed for another, and a secret not written is one not leaked).
func New(opts Options) (*Handler, error) {
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	rt := opts.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	h := &Handler{opts: opts, secrets: secret.NewRedactor()}
	// Wrapped, the transport is used as it is: the SDK would otherwise
	// refuse to fetch metadata from private addresses, and a company's
	// authorization server is often at one. kesoku runs for the user who
	// named the server; what the server names is still held to https (or
	// loopback) by the SDK, and no redirect leaves its origin.
	h.client = &http.Client{Transport: roundTripper{rt}, CheckRedirect: sameOrigin}
	if c := opts.Config; c != nil && c.ClientSecret != "" {
		cc, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: c.ClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: c.ClientSecret}},
			HTTPClient:  h.client,
		})
		if err != nil {
			return nil, fmt.Errorf("%s: oauth: %w", opts.Server, err)
		}
		h.cc = cc
		h.remember(c.ClientSecret)
		return h, nil
	}
	if opts.Fresh {
		return h, nil
	}
	saved, err := opts.Store.Load(opts.URL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", opts.Server, err)
	}
	if saved != nil && (opts.Config == nil || opts.Config.ClientID == "" || opts.Config.ClientID == saved.ClientID) {
		h.tok, h.refresh = saved.token(), saved.config()
		h.granted, h.asked, h.wanted = saved.Scopes, saved.Scopes, saved.Wanted
		h.remember(saved.AccessToken, saved.RefreshToken, saved.ClientSecret)
	}
	return h, nil
}

type roundTripper struct{ rt http.RoundTripper }

func (t roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return t.rt.RoundTrip(r) }

// sameOrigin refuses a redirect to another origin than the first
// request's: a token request carries the client secret (in its header, or
// its body, which a 307 sends again), and the metadata of one origin is
// that origin's to serve. One client serves several origins (the server's,
// its authorization server's), so the origin kept to is each request's own.
func sameOrigin(req *http.Request, via []*http.Request) error {
	from := via[0].URL
	return origin.Redirects(origin.Of(from), func(to *url.URL) error {
		return fmt.Errorf("%s redirected to %s, another origin: refused, so that secrets go only where they were meant for", from.Redacted(), to.Redacted())
	})(req, via)
}

// LoggedIn reports whether a person logged in through the handler.
func (h *Handler) LoggedIn() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.loggedIn
}

// Authorized reports whether the handler holds a token: the server asked
// for authorization, and got it.
func (h *Handler) Authorized() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.tok != nil
}

// Scopes are the scopes of the token held.
func (h *Handler) Scopes() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	// A grant's scopes are a set; in order, so that what kesoku says of
	// them is the same from one login to the next.
	s := slices.Clone(h.granted)
	slices.Sort(s)
	return s
}

// TokenSource is the source of the token of each request: nil while the
// handler holds none (the request goes without, and the server's 401
// starts the authorization).
func (h *Handler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tok == nil {
		return nil, nil
	}
	return tokenSource{h}, nil
}

type tokenSource struct{ h *Handler }

// Token is the token held, refreshed first when it expires within
// refreshMargin. A token that cannot be refreshed (the grant is gone)
// is dropped: the request goes without (the SDK sends none for a nil
// token), and the server's 401 asks for a new one.
func (s tokenSource) Token() (*oauth2.Token, error) {
	h := s.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tok == nil {
		return nil, nil
	}
	if fresh(h.tok, h.marginLocked()) {
		return h.tok, nil
	}
	var err error
	switch {
	case h.refresh != nil && h.tok.RefreshToken != "":
		err = h.refreshLocked(h.opts.Context)
	case h.cc != nil && h.challenge != nil:
		err = h.renewLocked(h.opts.Context)
	default:
		err = errors.New("it cannot be refreshed")
	}
	if err == nil {
		return h.tok, nil
	}
	if fresh(h.tok, 0) && !isInvalidGrant(err) {
		// Not expired yet: the request may still go with it.
		return h.tok, nil
	}
	h.note(fmt.Sprintf("%s: the token expired and was not renewed: %v", h.opts.Server, h.secrets.String(err.Error())))
	h.tok = nil
	return nil, nil
}

// fresh reports whether t is good for at least margin more.
func fresh(t *oauth2.Token, margin time.Duration) bool {
	return t.AccessToken != "" && (t.Expiry.IsZero() || time.Until(t.Expiry) > margin)
}

func isInvalidGrant(err error) bool {
	var re *oauth2.RetrieveError
	return errors.As(err, &re) && re.ErrorCode == "invalid_grant"
}

// refreshLocked refreshes the token with its refresh token; the caller
// holds h.mu.
func (h *Handler) refreshLocked(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	ctx = context.WithValue(ctx, oauth2.HTTPClient, h.client)
	// A source of a token without an access token refreshes at once;
	// oauth2 keeps the refresh token when the answer has no new one.
	t, err := h.refresh.TokenSource(ctx, &oauth2.Token{RefreshToken: h.tok.RefreshToken}).Token()
	if isInvalidGrant(err) {
		// Another kesoku (a shard of the same batch) may have refreshed it
		// first, and the server rotated the refresh token: the kept one
		// is the newer.
		if saved, _ := h.opts.Store.Load(h.opts.URL); saved != nil && saved.RefreshToken != h.tok.RefreshToken && saved.ClientID == h.refresh.ClientID {
			h.tok = saved.token()
			h.remember(saved.AccessToken, saved.RefreshToken)
			if fresh(h.tok, h.marginLocked()) {
				return nil
			}
			t, err = h.refresh.TokenSource(ctx, &oauth2.Token{RefreshToken: saved.RefreshToken}).Token()
		}
	}
	if err != nil {
		return fmt.Errorf("refresh the token: %w", err)
	}
	h.adoptLocked(t, h.refresh, h.granted)
	h.note(fmt.Sprintf("%s: token refreshed%s", h.opts.Server, untilText(t)))
	return nil
}

// renewLocked asks for a new client-credentials token with the last
// challenge, before the token expires; the caller holds h.mu.
func (h *Handler) renewLocked(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	c := h.challenge
	req := &http.Request{Method: http.MethodPost, URL: c.url, Header: http.Header{}}
	resp := &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{"Www-Authenticate": c.header}, Body: http.NoBody}
	return h.clientCredentialsLocked(ctx, req, resp)
}

// adoptLocked makes t the token held, granted by cfg for scopes, and
// keeps it when it came from a login; the caller holds h.mu.
func (h *Handler) adoptLocked(t *oauth2.Token, cfg *oauth2.Config, scopes []string) {
	if s := tokenScopes(t); s != nil {
		scopes = s
	}
	h.tok, h.granted, h.obtained = t, scopes, time.Now()
	h.remember(t.AccessToken, t.RefreshToken)
	if cfg == nil {
		return
	}
	h.refresh = &oauth2.Config{ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, Endpoint: cfg.Endpoint}
	if cfg.ClientSecret == "" {
		// A public client says who it is in the form; a Basic header with
		// an empty secret is authentication it does not have.
		h.refresh.Endpoint.AuthStyle = oauth2.AuthStyleInParams
	}
	h.remember(cfg.ClientSecret)
	h.saveLocked()
}

func (h *Handler) saveLocked() {
	if h.refresh == nil || h.tok == nil {
		return
	}
	err := h.opts.Store.Save(&Saved{
		URL: h.opts.URL, ClientID: h.refresh.ClientID, ClientSecret: h.refresh.ClientSecret,
		TokenURL: h.refresh.Endpoint.TokenURL, AuthStyle: int(h.refresh.Endpoint.AuthStyle),
		Scopes: h.granted, Wanted: h.wanted,
		AccessToken: h.tok.AccessToken, TokenType: h.tok.TokenType, RefreshToken: h.tok.RefreshToken, Expiry: h.tok.Expiry,
		SavedAt: time.Now().UTC().Truncate(time.Second),
	})
	h.keepErr = err
	if err != nil {
		h.note(fmt.Sprintf("%s: %v", h.opts.Server, err))
	}
}

// KeepErr is why the token of the last login or refresh was not kept in
// the store (a run goes on with it in memory), nil when it was.
func (h *Handler) KeepErr() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.keepErr
}

// tokenScopes are the scopes a token answer names, nil when it names
// none.
func tokenScopes(t *oauth2.Token) []string {
	if s, ok := t.Extra("scope").(string); ok && s != "" {
		return strings.Fields(s)
	}
	return nil
}

func untilText(t *oauth2.Token) string {
	if t.Expiry.IsZero() {
		return ""
	}
	return ", good until " + t.Expiry.Local().Format(time.TimeOnly)
}

func (h *Handler) note(msg string) {
	if h.opts.Note != nil {
		h.opts.Note(msg)
	}
}

// Authorize is called for a request refused with 401 or 403; when it
// returns nil the SDK sends the request once more, with the token held
// then. A 401 gets one new token: the one another request got meanwhile,
// a refreshed one, or a new grant (a login, for the authorization code
// grant: in a run no one can log in from, a *LoginRequiredError at once,
// before anything is registered). A 403 insufficient_scope asks for the
// scopes it names, once.
func (h *Handler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	h.authMu.Lock()
	defer h.authMu.Unlock()

	sent := strings.TrimSpace(strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer "))
	h.mu.Lock()
	cur := h.tok
	h.mu.Unlock()
	if cur != nil && cur.AccessToken != sent && fresh(cur, 0) {
		// Another request got a new token since this one was sent.
		return nil
	}
	if h.failed != nil && h.failedFor == sent {
		return h.failed
	}
	err := h.authorize(ctx, req, resp, cur)
	if err == nil {
		return nil
	}
	err = &Error{h.RedactError(err)}
	if ctx.Err() == nil {
		h.failed, h.failedFor = err, sent
	}
	return err
}

func (h *Handler) authorize(ctx context.Context, req *http.Request, resp *http.Response, cur *oauth2.Token) error {
	challenges, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return fmt.Errorf("%s: the server's WWW-Authenticate: %w", h.opts.Server, err)
	}
	bearer := slices.IndexFunc(challenges, func(c oauthex.Challenge) bool { return c.Scheme == "bearer" })
	var challenged []string
	if bearer >= 0 {
		challenged = strings.Fields(challenges[bearer].Params["scope"])
	}
	var stepUp []string
	switch resp.StatusCode {
	case http.StatusForbidden:
		if bearer < 0 || challenges[bearer].Params["error"] != "insufficient_scope" {
			// Refused for another reason than scopes: no token changes
			// that. Said here, the refusal is the request's alone (the
			// SDK takes a second 403 for a broken connection).
			return &ForbiddenError{Server: h.opts.Server, Said: said(resp)}
		}
		h.mu.Lock()
		asked := slices.Clone(h.asked)
		h.mu.Unlock()
		if len(challenged) == 0 || isSubset(challenged, asked) {
			return &ScopeError{Server: h.opts.Server, Scopes: challenged, Asked: asked}
		}
		stepUp = challenged
	default:
		if bearer < 0 && h.opts.Config == nil {
			return &NoChallengeError{Server: h.opts.Server}
		}
		h.mu.Lock()
		var rerr error
		if cur != nil && h.tok == cur && cur.RefreshToken != "" && h.refresh != nil {
			rerr = h.refreshLocked(ctx)
			if rerr == nil {
				h.mu.Unlock()
				return nil
			}
		}
		h.mu.Unlock()
		if rerr != nil && !isInvalidGrant(rerr) {
			return fmt.Errorf("%s: %w", h.opts.Server, rerr)
		}
	}
	if h.cc != nil {
		h.mu.Lock()
		if resp.StatusCode == http.StatusUnauthorized {
			h.challenge = &challenge{url: req.URL, header: resp.Header.Values("WWW-Authenticate")}
		}
		err = h.clientCredentialsLocked(ctx, req, resp)
		h.mu.Unlock()
	} else {
		err = h.login(ctx, req, resp, challenged, stepUp)
	}
	if err != nil || len(stepUp) == 0 {
		return err
	}
	// A step-up the authorization server granted less than asked would
	// be refused again: said here, the refusal is this request's alone.
	if granted := h.Scopes(); !isSubset(stepUp, granted) {
		return &ScopeError{Server: h.opts.Server, Scopes: stepUp, Granted: granted}
	}
	return nil
}

// said is the start of what a refusal's body says, when it is text.
func said(resp *http.Response) string {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	text := strings.TrimSpace(string(b))
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = text[:i]
	}
	if !utf8.ValidString(text) || strings.HasPrefix(text, "<") {
		return ""
	}
	return text
}

// clientCredentialsLocked takes the client-credentials grant through the
// SDK's handler, which finds the token endpoint from the challenge; the
// caller holds h.mu.
func (h *Handler) clientCredentialsLocked(ctx context.Context, req *http.Request, resp *http.Response) error {
	challenged := challengedScopes(resp.Header.Values("WWW-Authenticate"))
	want := challenged
	if cfg := h.opts.Config; len(cfg.Scopes) > 0 {
		// The SDK's handler asks for the challenge's scopes (else the
		// resource's): a challenge before the server's names the
		// entry's. The resource metadata is still found in the server's.
		want = union(cfg.Scopes, challenged)
		r := *resp
		r.Header = resp.Header.Clone()
		r.Header["Www-Authenticate"] = append([]string{fmt.Sprintf("Bearer scope=%q", strings.Join(want, " "))}, resp.Header.Values("WWW-Authenticate")...)
		resp = &r
	}
	if err := h.cc.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("%s: the client-credentials grant: %w", h.opts.Server, err)
	}
	ts, err := h.cc.TokenSource(ctx)
	if err != nil || ts == nil {
		return fmt.Errorf("%s: the client-credentials grant gave no token", h.opts.Server)
	}
	t, err := ts.Token()
	if err != nil {
		return fmt.Errorf("%s: the client-credentials grant: %w", h.opts.Server, err)
	}
	h.asked = union(h.asked, want)
	h.adoptLocked(t, nil, h.asked)
	h.note(fmt.Sprintf("%s: token granted (client credentials)%s", h.opts.Server, untilText(t)))
	return nil
}

// login takes the authorization code grant through the SDK's handler: a
// person logs in in a browser. The loopback listener is open before the
// handler registers a client (the redirect URI names its port), and in a
// run no one can log in from nothing is registered.
func (h *Handler) login(ctx context.Context, req *http.Request, resp *http.Response, challenged, stepUp []string) error {
	h.mu.Lock()
	granted, wanted := slices.Clone(h.granted), slices.Clone(h.wanted)
	h.mu.Unlock()
	if h.opts.Login == nil {
		if len(stepUp) > 0 {
			// The next login asks for them too.
			h.mu.Lock()
			h.wanted = union(h.wanted, stepUp)
			h.saveLocked()
			h.mu.Unlock()
		}
		return &LoginRequiredError{Server: h.opts.Server, Hint: h.opts.LoginHint, Scopes: stepUp}
	}
	cb, err := listen()
	if err != nil {
		return fmt.Errorf("%s: %w", h.opts.Server, err)
	}
	defer cb.close()
	redirect := cb.redirectURI()
	var asked []string
	var grantCfg *oauth2.Config
	var grantTok *oauth2.Token
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirect,
		AuthorizationCodeFetcher: h.fetcher(cb),
		RequestRefreshToken:      true,
		// A client registered here must be one the token endpoint takes.
		Client: &http.Client{Transport: &registrar{next: h.client.Transport}, CheckRedirect: h.client.CheckRedirect},
		ScopeFilter: func(discovered []string) []string {
			want := discovered
			if c := h.opts.Config; c != nil && len(c.Scopes) > 0 {
				want = union(c.Scopes, challenged)
			}
			// A new login keeps what was granted before, and what a
			// step-up asked for since.
			asked = union(union(granted, wanted), want)
			return asked
		},
		NewTokenSource: func(_ context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			grantCfg, grantTok = c, t
			return oauth2.StaticTokenSource(t), nil
		},
	}
	dcr := &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
		RedirectURIs:  []string{redirect},
		ClientName:    "kesoku",
		GrantTypes:    []string{"authorization_code", "refresh_token"},
		ResponseTypes: []string{"code"},
	}}
	switch id := h.clientID(); {
	case id == "":
		cfg.DynamicClientRegistrationConfig = dcr
	case isMetadataURL(id):
		// Where the server takes no metadata documents, dynamic
		// registration.
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: id}
		cfg.DynamicClientRegistrationConfig = dcr
	default:
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: id}
	}
	inner, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return fmt.Errorf("%s: oauth: %w", h.opts.Server, err)
	}
	if err := inner.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("%s: the login: %w", h.opts.Server, err)
	}
	if grantTok == nil {
		return fmt.Errorf("%s: the login gave no token", h.opts.Server)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked, h.wanted, h.loggedIn = asked, nil, true
	h.adoptLocked(grantTok, grantCfg, asked)
	h.note(fmt.Sprintf("%s: logged in%s", h.opts.Server, untilText(grantTok)))
	return nil
}

func (h *Handler) clientID() string {
	if h.opts.Config == nil {
		return ""
	}
	return h.opts.Config.ClientID
}

// isMetadataURL reports whether a client ID is the URL of a client ID
// metadata document: https, with a path.
func isMetadataURL(id string) bool {
	u, err := url.Parse(id)
	return err == nil && u.Scheme == "https" && u.Host != "" && strings.Trim(u.Path, "/") != ""
}

// challengedScopes are the scopes of the first Bearer challenge that
// names some.
func challengedScopes(header []string) []string {
	cs, err := oauthex.ParseWWWAuthenticate(header)
	if err != nil {
		return nil
	}
	for _, c := range cs {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}

// union is a's scopes, then those of b that a lacks.
func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func isSubset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

package toolsource

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/mcpauth"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// OAuth says how the MCP servers reached over HTTP are authorized when
// they ask (mcpauth): where the tokens of logins are kept, and whether a
// person can log in during the run.
type OAuth struct {
	// Store keeps the tokens of logins; nil keeps none.
	Store *mcpauth.Store
	// Login is how a person logs in; nil when no one can in this run,
	// and a server that needs a login is an error at once.
	Login *mcpauth.Login
	// LoginHint says how to log in to the server named ahead of a run:
	// "kesoku mcp login corp".
	LoginHint func(server string) string
}

// oauthDecl is a server's oauth entry, as declared.
type oauthDecl struct {
	clientID, clientSecret string
	scopes                 []string
	scopeNodes             []ast.Node
	// nodes are where each value is, for the errors of expanding ${VAR}.
	nodes map[string]ast.Node
}

// parseOAuth reads a server's oauth entry: clientId, clientSecret (with
// it, the client-credentials grant) and scopes, each a string (${VAR}
// expanded when the server starts).
func parseOAuth(file string, n ast.Node, what string, strict bool) (*oauthDecl, error) {
	m := yamlpos.Mapping(n)
	if m == nil {
		return nil, errAt(file, n, "%s: want a mapping with clientId, clientSecret and scopes, not %s", what, yamlpos.KindOf(n))
	}
	known := oauthKeys
	if !strict {
		// Another program's file (.mcp.json) may hold keys of its own
		// there (Claude Code's callbackPort).
		known = nil
	}
	es, err := entries(file, m, what, known)
	if err != nil {
		return nil, err
	}
	o := &oauthDecl{nodes: map[string]ast.Node{}}
	for _, e := range es {
		o.nodes[e.key] = e.value
		switch e.key {
		case "clientId":
			o.clientID, err = stringValue(file, e.value, what+".clientId")
		case "clientSecret":
			o.clientSecret, err = stringValue(file, e.value, what+".clientSecret")
		case "scopes":
			o.scopes, o.scopeNodes, err = stringList(file, e.value, what+".scopes")
			for i, sc := range o.scopes {
				if err == nil && (sc == "" || strings.ContainsAny(sc, " \t\"\\")) {
					err = errAt(file, o.scopeNodes[i], "%s.scopes[%d]: %q: a scope is one word, without spaces or quotes", what, i, sc)
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if o.clientSecret != "" && o.clientID == "" {
		return nil, errAt(file, o.nodes["clientSecret"], "%s: clientSecret without clientId: the client-credentials grant needs both", what)
	}
	return o, nil
}

// checkOAuth refuses an oauth entry where it cannot apply: a server
// kesoku starts, one over SSE (the SDK authorizes streamable HTTP alone),
// one whose headers authorize it already.
func (d *serverDecl) checkOAuth(what string) error {
	if d.oauth == nil {
		return nil
	}
	n := d.nodes["oauth"]
	switch d.transport {
	case transportStdio:
		return errAt(d.file, n, "%s.oauth: OAuth is for a server reached over HTTP (type http and url), not one kesoku starts", what)
	case transportSSE:
		return errAt(d.file, n, "%s.oauth: OAuth needs type http (streamable HTTP): kesoku authorizes no SSE server with it", what)
	}
	if d.authHeader() != "" {
		return errAt(d.file, n, "%s: headers.%s and oauth both authorize the server: want one", what, d.authHeader())
	}
	return nil
}

// authHeader is the name of the entry's Authorization header as written,
// "" without one.
func (d *serverDecl) authHeader() string {
	for _, h := range d.headers {
		if strings.EqualFold(h.key, "Authorization") {
			return h.key
		}
	}
	return ""
}

// oauthConfig is the server's oauth entry with ${VAR} expanded; nil
// without one.
func (d *serverDecl) oauthConfig() (*mcpauth.Config, error) {
	o := d.oauth
	if o == nil {
		return nil, nil
	}
	c := &mcpauth.Config{}
	var err error
	if c.ClientID, err = d.expand(o.clientID, o.nodes["clientId"], "oauth.clientId"); err != nil {
		return nil, err
	}
	if c.ClientSecret, err = d.expand(o.clientSecret, o.nodes["clientSecret"], "oauth.clientSecret"); err != nil {
		return nil, err
	}
	if o.clientSecret != "" && c.ClientSecret == "" {
		// An empty variable must not turn a CI job's grant into a login.
		return nil, &config.Error{Pos: yamlpos.Of(d.file, o.nodes["clientSecret"]), Msg: fmt.Sprintf("%s.%s.oauth.clientSecret: %s is empty: the client-credentials grant needs the secret", config.ServersKey, d.name, o.clientSecret)}
	}
	for i, sc := range o.scopes {
		v, err := d.expand(sc, o.scopeNodes[i], fmt.Sprintf("oauth.scopes[%d]", i))
		if err != nil {
			return nil, err
		}
		c.Scopes = append(c.Scopes, v)
	}
	if c.ClientSecret != "" && c.ClientID == "" {
		return nil, &config.Error{Pos: yamlpos.Of(d.file, o.nodes["clientId"]), Msg: fmt.Sprintf("%s.%s.oauth.clientId: empty, with a clientSecret", config.ServersKey, d.name)}
	}
	return c, nil
}

// authHandler is what authorizes the server's requests when it asks:
// nil for a server whose headers authorize it (an Authorization header
// of its entry) or over SSE.
func (s *server) authHandler(endpoint string) (*mcpauth.Handler, error) {
	d := s.decl
	if d.transport != transportHTTP || (d.oauth == nil && d.authHeader() != "") {
		return nil, nil
	}
	cfg, err := d.oauthConfig()
	if err != nil {
		return nil, err
	}
	o := s.set.opts.OAuth
	opts := mcpauth.Options{
		Server: d.where(), URL: endpoint, Config: cfg,
		Store: o.Store, Login: o.Login, Fresh: s.fresh,
		Pause: s.pauseStart, Context: s.ctx, Note: s.set.opts.Note,
		Secrets: s.set.secrets,
	}
	if o.LoginHint != nil {
		opts.LoginHint = o.LoginHint(d.name)
	}
	return mcpauth.New(opts)
}

// hide is msg with every secret kesoku holds hidden (the tokens of the
// server's authorization among them): a server may echo a token in a
// result, an error, a tool's name.
func (s *server) hide(msg string) string { return s.secrets().String(msg) }

// hidden is a call's result and error, every secret hidden in both. (A
// result is hidden again by the runner, in its record: here only where
// the server holds tokens of its own, as they may be refreshed.)
func (s *server) hidden(v any, err error) (any, error) {
	if v != nil && s.auth != nil {
		v = s.secrets().Value(v)
	}
	return v, s.secrets().Error(err)
}

// startDeadline is a server's start deadline, which a person logging in
// pauses: it bounds the server, not the person.
type startDeadline struct {
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	timer  *time.Timer
	left   time.Duration
	since  time.Time
	paused int
}

// withStartDeadline is parent, cancelled with context.DeadlineExceeded as
// its cause once it has run for d, its pauses not counted.
func withStartDeadline(parent context.Context, d time.Duration) (context.Context, *startDeadline, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sd := &startDeadline{cancel: cancel, left: d, since: time.Now()}
	sd.timer = time.AfterFunc(d, func() { cancel(context.DeadlineExceeded) })
	return ctx, sd, func() { sd.timer.Stop(); cancel(context.Canceled) }
}

// pause stops the clock until the function it returns is called.
func (sd *startDeadline) pause() func() {
	sd.mu.Lock()
	defer sd.mu.Unlock()
	if sd.paused++; sd.paused == 1 && sd.timer.Stop() {
		sd.left -= time.Since(sd.since)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			sd.mu.Lock()
			defer sd.mu.Unlock()
			if sd.paused--; sd.paused == 0 {
				sd.since = time.Now()
				sd.timer.Reset(max(sd.left, 0))
			}
		})
	}
}

// pauseStart pauses the start deadline of the server, when it is
// starting.
func (s *server) pauseStart() func() {
	s.deadlineMu.Lock()
	sd := s.deadline
	s.deadlineMu.Unlock()
	if sd == nil {
		return func() {}
	}
	return sd.pause()
}

// UnknownServerError is a server name no config declares.
type UnknownServerError struct {
	Name string
	// Declared are the names of the servers declared.
	Declared []string
}

func (e *UnknownServerError) Error() string {
	if len(e.Declared) == 0 {
		return fmt.Sprintf("no MCP server %s: the config files declare none", e.Name)
	}
	return fmt.Sprintf("no MCP server %s: the config files declare %s", e.Name, strings.Join(e.Declared, ", "))
}

// NotOAuthError is a server that OAuth does not apply to: one kesoku
// starts, or whose headers authorize it.
type NotOAuthError struct {
	Server string
	Why    string
}

func (e *NotOAuthError) Error() string { return e.Server + ": " + e.Why }

// LoginResult is what logging in to a server did.
type LoginResult struct {
	// Server names it; URL is its endpoint.
	Server, URL string
	// LoggedIn says a person logged in, and the tokens are kept;
	// ClientCredentials that the client-credentials grant gave a token
	// (kept for no other run: none is needed); neither, that the server
	// asked for no authorization.
	LoggedIn, ClientCredentials bool
	// Scopes are the token's.
	Scopes []string
	// Tools is how many tools the server lists.
	Tools int
}

// lookup is the server declared as name, and its entry.
func (s *Set) lookup(name string) (*server, error) {
	for _, srv := range s.servers {
		if srv.decl.name == name {
			d := srv.decl
			switch {
			case d.transport == transportStdio:
				return nil, &NotOAuthError{Server: d.where(), Why: "kesoku starts it (command): it needs no login"}
			case d.transport == transportSSE:
				return nil, &NotOAuthError{Server: d.where(), Why: "it is reached over SSE, which kesoku authorizes with no OAuth: give it the headers it needs"}
			case d.oauth == nil && d.authHeader() != "":
				return nil, &NotOAuthError{Server: d.where(), Why: fmt.Sprintf("its headers.%s authorizes it: it needs no login", d.authHeader())}
			}
			return srv, nil
		}
	}
	return nil, &UnknownServerError{Name: name, Declared: slices.Clone(s.declared)}
}

// Login authorizes the server name now, ahead of a run: the tokens kept
// for it are left aside, its first request goes without one, and the
// authorization it asks for (a person's login, whose tokens are kept,
// or the client-credentials grant) is made; then its tools are listed.
func (s *Set) Login(ctx context.Context, name string) (*LoginResult, error) {
	srv, err := s.lookup(name)
	if err != nil {
		return nil, err
	}
	srv.fresh = true
	specs, err := srv.Load()
	if err != nil {
		return nil, err
	}
	endpoint, _ := srv.decl.expand(srv.decl.url, srv.decl.nodes["url"], "url")
	res := &LoginResult{Server: srv.decl.where(), URL: endpoint, Tools: len(specs)}
	if a := srv.auth; a != nil && a.Authorized() {
		res.LoggedIn, res.ClientCredentials = a.LoggedIn(), !a.LoggedIn()
		res.Scopes = a.Scopes()
		if err := a.KeepErr(); err != nil && res.LoggedIn {
			// Keeping the tokens for the runs to come is what a login
			// ahead of them is for.
			return nil, fmt.Errorf("%s: logged in, but the runs to come cannot use the login: %w", srv.decl.where(), err)
		}
	}
	return res, nil
}

// Logout forgets the tokens kept for the server name, reporting its URL
// and whether there were any.
func (s *Set) Logout(name string) (url string, had bool, err error) {
	srv, err := s.lookup(name)
	if err != nil {
		return "", false, err
	}
	d := srv.decl
	url, err = d.expand(d.url, d.nodes["url"], "url")
	if err != nil {
		return "", false, err
	}
	if s.opts.OAuth.Store == nil {
		return url, false, errors.New("no config directory to keep tokens in: set HOME or XDG_CONFIG_HOME")
	}
	had, err = s.opts.OAuth.Store.Forget(url)
	return url, had, err
}

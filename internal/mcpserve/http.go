package mcpserve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kesoku/kesoku/internal/notice"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the streamable HTTP endpoint is served.
const Path = "/mcp"

// ErrNeedsToken says that an address is not loopback and no token was
// given: the tools would be served to a network with no one checked.
var ErrNeedsToken = errors.New("is not a loopback address: serving to a network needs a bearer token")

// AddrError says what is wrong with an address to serve on, before
// anything listens: it is malformed, or not loopback and no token is
// checked (Err is ErrNeedsToken).
type AddrError struct {
	Addr string
	Err  error
}

func (e *AddrError) Error() string { return strconv.Quote(e.Addr) + " " + e.Err.Error() }

func (e *AddrError) Unwrap() error { return e.Err }

// Listen listens on addr for HTTP clients: "PORT" or ":PORT" on the
// loopback address, "HOST:PORT" on HOST. Any address that is not loopback
// is refused with ErrNeedsToken unless the server checks a token: before
// listening when the address says so, and again on the address the
// listener took. A bad address is an *AddrError; failing to listen on a
// good one is not.
func Listen(ctx context.Context, addr string, withToken bool) (net.Listener, error) {
	host, port, err := splitAddr(addr)
	if err != nil {
		return nil, &AddrError{addr, err}
	}
	if !withToken {
		if err := checkLoopback(ctx, host); err != nil {
			return nil, &AddrError{addr, err}
		}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, err
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !withToken && (!ok || !ta.IP.IsLoopback()) {
		ln.Close()
		return nil, &AddrError{addr, fmt.Errorf("(listening on %s) %w", ln.Addr(), ErrNeedsToken)}
	}
	return ln, nil
}

// CheckAddr says what is wrong with addr as an address to serve on, as
// Listen would before listening, but for whether it is loopback: nil for
// PORT, :PORT and HOST:PORT. The error leaves addr unsaid.
func CheckAddr(addr string) error {
	_, _, err := splitAddr(addr)
	return err
}

// splitAddr is addr's host and port, the host loopback when addr names
// none.
func splitAddr(addr string) (host, port string, err error) {
	if addr == "" {
		return "", "", errors.New("is no address: give PORT, :PORT or HOST:PORT")
	}
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err = net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			err = errors.New(ae.Err)
		}
		return "", "", fmt.Errorf("is no address (%w): give PORT, :PORT or HOST:PORT", err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if _, err := net.DefaultResolver.LookupPort(context.Background(), "tcp", port); err != nil {
		return "", "", fmt.Errorf("has no port: %q is not a port number", port)
	}
	return host, port, nil
}

// checkLoopback refuses a host that is not loopback: every address a name
// resolves to must be.
func checkLoopback(ctx context.Context, host string) error {
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return ErrNeedsToken
		}
		return nil
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return fmt.Errorf("cannot be resolved to check that it is loopback: %w", err)
	}
	for _, ip := range ips {
		if !ip.IP.IsLoopback() {
			return fmt.Errorf("(it resolves to %s) %w", ip.IP, ErrNeedsToken)
		}
	}
	return nil
}

// URL is the address of the MCP endpoint on ln, as a client on this
// machine reaches it: for a listener on every address (0.0.0.0, ::), the
// loopback one, since a request to 0.0.0.0 arrives at the loopback address
// with a Host that is not loopback, and is refused.
func URL(ln net.Listener) string {
	addr := ln.Addr().String()
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
	}
	return "http://" + addr + Path
}

// Where says where ln serves, for people: its URL and, for a listener on
// every address, that it is reachable from elsewhere.
func Where(ln net.Listener) string {
	where := URL(ln)
	if ta, ok := ln.Addr().(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		where += fmt.Sprintf(" (and on port %d of every address of this machine)", ta.Port)
	}
	return where
}

// ServeListener serves HTTP clients on ln at Path until ctx is cancelled
// (nil: an interrupt) or a record cannot be written (the error). With a
// token, every request must carry it (Authorization: Bearer TOKEN).
//
// Cancelling ctx stops the server cleanly: new requests get 503, calls
// in flight are cancelled and get the grace to
// return (Runner.EndGrace ends it early), and their answers are sent
// before the connections close.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, token string) error {
	g := &gate{next: s.Handler(token), idle: make(chan struct{}, 1)}
	idle := s.opts.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	body := s.opts.BodyTimeout
	if body <= 0 {
		body = DefaultBodyTimeout
	}
	// Every connection holds a descriptor, so none is held by a client
	// doing nothing: headers and body come within their deadlines, and
	// a connection idle between requests is closed. There is no
	// ReadTimeout or WriteTimeout: a call may take as long as its own
	// timeout allows, and its answer is a stream that such a deadline
	// would cut (a read deadline left on the connection cancels the
	// request when it passes).
	hs := &http.Server{
		Handler:           bodyDeadline(body, g),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       idle,
		ErrorLog:          log.New(tellWriter{s.tell, notice.Error}, "http: ", 0),
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		s.stop()
		return err
	case <-ctx.Done():
	case <-s.failed:
	}
	// The listener stays open while the calls in flight finish: a client
	// that comes meanwhile is told that the server is shutting down (503)
	// rather than refused.
	g.close()
	s.stop()
	g.drain(s.opts.Runner.Grace+drainSlack, s.opts.Runner.EndGrace)
	// What is left are the clients' streams of notifications (GET), which
	// end with their sessions; then the connections go idle, and close.
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	sctx, cancel := context.WithTimeout(context.Background(), drainSlack)
	defer cancel()
	if hs.Shutdown(sctx) != nil {
		hs.Close()
	}
	<-served
	return s.failure()
}

// Handler is the server's HTTP handler: streamable HTTP at Path, with the
// SDK's protection against DNS rebinding (a request that reaches a
// loopback address with a Host that is not loopback is refused), behind
// the token when there is one. Without a token, a request that a web page
// makes from another origin (its browser says so in Sec-Fetch-Site or
// Origin) is refused too: any page the user opens could otherwise call
// the tools of a server on their machine. With one, the token decides.
//
// Requests of the stateless revision (MCP-Protocol-Version 2026-07-28 or
// later) are served without a session, each on its own, so that servers
// behind a load balancer serve one client together; those of earlier
// revisions in the sessions their initialize opened, which expire when
// idle (Options.SessionTimeout). One SDK handler cannot do both: a
// stateful one refuses the stateless revision, a stateless one serves the
// others without sessions.
func (s *Server) Handler(token string) http.Handler {
	get := func(*http.Request) *mcp.Server { return s.mcp }
	timeout := s.opts.SessionTimeout
	if timeout <= 0 {
		timeout = DefaultSessionTimeout
	}
	sessionless := mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{
		Stateless: true,
		// The request is the whole of a call: when it ends, so does the
		// call.
		PropagateRequestCancellation: true,
	})
	sessions := s.sessionCap.bound(s.posts.track(mcp.NewStreamableHTTPHandler(get, &mcp.StreamableHTTPOptions{SessionTimeout: timeout})))
	var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The header is kesoku's own note on a request (posts.track),
		// never a client's.
		r.Header.Del(postHeader)
		if statelessHeader(r.Header) {
			sessionless.ServeHTTP(w, r)
		} else {
			sessions.ServeHTTP(w, r)
		}
	})
	if token != "" {
		h = requireToken(token, h)
	} else {
		h = http.NewCrossOriginProtection().Handler(h)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	return mux
}

// statelessVersion is the first revision of the protocol without
// sessions.
const statelessVersion = "2026-07-28"

// statelessHeader reports whether the header of an HTTP request says
// that it is of the stateless revision, in its MCP-Protocol-Version.
// Revisions are dates, which compare as strings.
func statelessHeader(h http.Header) bool {
	return h.Get("MCP-Protocol-Version") >= statelessVersion
}

// stateless reports whether a call is of the stateless revision: it came
// over HTTP, saying so.
func stateless(extra *mcp.RequestExtra) bool {
	return extra != nil && statelessHeader(extra.Header)
}

// postHeader is the header in which kesoku notes which of its POST
// requests brought a call: the SDK gives a tool's handler the header of
// the request, and nothing else of it.
const postHeader = "Kesoku-Post"

// posts are the POST requests in flight of clients with sessions. Such a
// client reads a call's answer on the request that brought the call; a
// call whose request is gone can never be answered.
type posts struct {
	mu   sync.Mutex
	last uint64
	open map[string]context.Context
}

// track notes each POST request that next serves, under an id of its own
// in its postHeader, for as long as it is served.
func (p *posts) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		p.mu.Lock()
		p.last++
		id := strconv.FormatUint(p.last, 36)
		p.open[id] = r.Context()
		p.mu.Unlock()
		defer func() {
			p.mu.Lock()
			delete(p.open, id)
			p.mu.Unlock()
		}()
		r.Header.Set(postHeader, id)
		next.ServeHTTP(w, r)
	})
}

// of returns the context of the request that brought a call, which ends
// when the request does; nil when it has already ended. tracked is false
// for a call that came otherwise (on a stream, or statelessly).
func (p *posts) of(extra *mcp.RequestExtra) (ctx context.Context, tracked bool) {
	if extra == nil {
		return nil, false
	}
	id := extra.Header.Get(postHeader)
	if id == "" {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open[id], true
}

// requireToken lets through only the requests that carry token as their
// bearer token. The comparison takes the same time whatever the token
// sent, so that timing tells nothing of the right one.
func requireToken(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="kesoku"`)
			// A client without the token gets nothing more on this
			// connection, and holds none of the server's descriptors.
			w.Header().Set("Connection", "close")
			http.Error(w, "unauthorized: this server takes only requests with its bearer token (Authorization: Bearer TOKEN)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// gate counts the requests in flight, so that a stopping server can wait
// for their answers, and turns new ones away once closed. A GET is a
// client's stream of notifications, open for as long as its session: it
// is not waited for.
type gate struct {
	next http.Handler

	mu     sync.Mutex
	closed bool
	open   int
	idle   chan struct{}
}

func (g *gate) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		g.next.ServeHTTP(w, r)
		return
	}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		w.Header().Set("Connection", "close")
		http.Error(w, "kesoku is shutting down", http.StatusServiceUnavailable)
		return
	}
	g.open++
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.open--
		g.mu.Unlock()
		select {
		case g.idle <- struct{}{}:
		default:
		}
	}()
	g.next.ServeHTTP(w, r)
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}

func (g *gate) inFlight() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.open
}

func (g *gate) drain(limit time.Duration, endGrace <-chan struct{}) {
	drain(g.inFlight, g.idle, limit, endGrace)
}

// bodyDeadline gives the body of each request next serves d to arrive
// whole. The deadline is lifted once it has (or the handler returns), so
// that it never cuts the answer: a call and its stream of events may take
// far longer.
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(d)) != nil {
			next.ServeHTTP(w, r)
			return
		}
		b := &deadlineBody{ReadCloser: r.Body, rc: rc}
		r.Body = b
		next.ServeHTTP(w, r)
		// A body the handler left unread is read by the server after
		// it, to reuse the connection: within the deadline still.
	})
}

// deadlineBody lifts the read deadline of its connection once the body
// has been read to its end.
type deadlineBody struct {
	io.ReadCloser
	rc     *http.ResponseController
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/kesoku/kesoku/internal/secret"
)

// Login is how a person logs in during a run: the browser opened at the
// authorization server's page, the URL said as well, and the answer
// taken on a loopback redirect.
type Login struct {
	// Open opens url for the person: Browser's opener, or a test's.
	Open func(ctx context.Context, url string) error
	// Say tells the person what is happening: the URL to open.
	Say func(msg string)
	// Timeout bounds the wait for the browser's answer (default
	// DefaultLoginTimeout).
	Timeout time.Duration
}

// DefaultLoginTimeout is how long a person has to log in.
const DefaultLoginTimeout = 5 * time.Minute

// callbackPath is the path of the loopback redirect.
const callbackPath = "/callback"

// callback is the loopback listener that takes the authorization
// server's answer. It is open before the client is registered: dynamic
// registration names the redirect URI, and the port is only known once
// listening.
type callback struct {
	ln      net.Listener
	srv     *http.Server
	results chan callbackResult
	// state is what the answer must carry: set before the browser opens.
	state atomic.Value // string
}

type callbackResult struct {
	res *auth.AuthorizationResult
	err error
}

// listen opens the loopback listener on a port of the system's choosing.
func listen() (*callback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen for the browser's answer: %w", err)
	}
	c := &callback{ln: ln, results: make(chan callbackResult, 1)}
	c.srv = &http.Server{Handler: http.HandlerFunc(c.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = c.srv.Serve(ln) }()
	return c, nil
}

// redirectURI is where the authorization server sends the browser back.
func (c *callback) redirectURI() string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", c.ln.Addr().(*net.TCPAddr).Port, callbackPath)
}

func (c *callback) close() { _ = c.srv.Close() }

// serve takes the answer: the code (or the error) with the state of the
// request made. One with another state is not the answer to this login
// (another page, a stale tab) and is refused without ending the wait.
func (c *callback) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != callbackPath {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	want, _ := c.state.Load().(string)
	if want == "" || q.Get("state") != want {
		http.Error(w, "kesoku: this is not the answer to the login under way (its state differs)", http.StatusBadRequest)
		return
	}
	var res callbackResult
	if e := q.Get("error"); e != "" {
		why := e
		if d := q.Get("error_description"); d != "" {
			why += ": " + d
		}
		res.err = fmt.Errorf("the authorization server refused the login: %s", why)
		page(w, "The login was refused", why)
	} else if q.Get("code") == "" {
		res.err = errors.New("the authorization server's answer has no code")
		page(w, "The login failed", "The answer has no code.")
	} else {
		res.res = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		page(w, "kesoku has the authorization", "You can close this tab.")
	}
	select {
	case c.results <- res:
	default:
	}
}

func page(w http.ResponseWriter, title, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<!doctype html><title>%s</title><h1>%s</h1><p>%s</p>\n", html.EscapeString(title), html.EscapeString(title), html.EscapeString(text))
}

// fetcher is the SDK's AuthorizationCodeFetcher: it opens the browser at
// the authorization URL, says the URL, and waits for the answer on the
// listener (up to the login's timeout; the wait pauses the server's start
// deadline, which bounds the server, not the person).
func (h *Handler) fetcher(c *callback) auth.AuthorizationCodeFetcher {
	return func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
		u, err := url.Parse(args.URL)
		if err != nil {
			return nil, fmt.Errorf("the authorization URL: %w", err)
		}
		c.state.Store(u.Query().Get("state"))
		login := h.opts.Login
		timeout := login.Timeout
		if timeout <= 0 {
			timeout = DefaultLoginTimeout
		}
		if h.opts.Pause != nil {
			defer h.opts.Pause()()
		}
		msg := fmt.Sprintf("%s needs a login: open %s", h.opts.Server, args.URL)
		if err := login.Open(ctx, args.URL); err != nil {
			msg += fmt.Sprintf(" (no browser could be opened: %v)", err)
		} else {
			msg += " (a browser was opened there)"
		}
		if login.Say != nil {
			login.Say(msg)
		}
		wait := time.NewTimer(timeout)
		defer wait.Stop()
		select {
		case r := <-c.results:
			return r.res, r.err
		case <-wait.C:
			return nil, fmt.Errorf("%s: no answer from the browser within %v", h.opts.Server, timeout)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Browser returns the opener of a person's browser: the commands of
// $BROWSER (its value given as env: a colon-separated list, each a
// command whose %s is the URL, else the URL added to its words), the
// first that starts; without it the platform's opener (xdg-open, open,
// rundll32). The browser is not waited for, and its output goes nowhere:
// standard output may be a run's records. It gets what any program needs
// of kesoku's environment and the display's, none of its secrets.
func Browser(env string) func(ctx context.Context, url string) error {
	return func(_ context.Context, u string) error {
		var cmds [][]string
		for _, c := range strings.Split(env, ":") {
			words := strings.Fields(c)
			if len(words) == 0 {
				continue
			}
			subst := false
			for i, w := range words {
				if strings.Contains(w, "%s") {
					words[i], subst = strings.ReplaceAll(w, "%s", u), true
				}
			}
			if !subst {
				words = append(words, u)
			}
			cmds = append(cmds, words)
		}
		if len(cmds) == 0 {
			cmds = [][]string{platformOpener(u)}
		}
		var errs []error
		for _, argv := range cmds {
			// Not CommandContext: the browser is the person's, and
			// outlives the login.
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = secret.BrowserEnviron(os.Environ())
			if err := cmd.Start(); err != nil {
				errs = append(errs, err)
				continue
			}
			go func() { _ = cmd.Wait() }()
			return nil
		}
		return errors.Join(errs...)
	}
}

// platformOpener is the command that opens a URL in the person's browser
// on this system.
func platformOpener(u string) []string {
	switch runtime.GOOS {
	case "darwin":
		return []string{"open", u}
	case "windows":
		return []string{"rundll32", "url.dll,FileProtocolHandler", u}
	default:
		return []string{"xdg-open", u}
	}
}

package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/kesoku/kesoku/internal/origin"
	"github.com/kesoku/kesoku/internal/termtext"
)

// Every request to a provider goes through one Transport, whatever its
// SDK: it is where kesoku bounds what a provider or a proxy can do to it.
// A server that accepts and never answers, a body that never ends or
// trickles for ever, an event that never closes, a retry-after of a day:
// each is bounded here, with an error that says which bound was hit.
// Retries live here too, for both SDKs alike, so that each is told on
// stderr with its reason and its wait.

// Defaults of the bounds.
const (
	// DefaultIdleTimeout is how long a request or a stream may send
	// nothing before it is abandoned (and retried).
	DefaultIdleTimeout = 2 * time.Minute
	// DefaultDeadline bounds one request whole, from its sending to the
	// last byte of its answer, however steadily bytes come: a body that
	// trickles a byte at a time never goes idle. An hour is several times
	// the longest model turn there is (128K tokens streamed at 60 a
	// second take 36 minutes), and downloads a batch's results of 8 GiB
	// at 2.4 MB/s.
	DefaultDeadline = time.Hour
	// DefaultMaxResponse bounds a response body, streamed or not: far
	// more than the longest answer a model writes.
	DefaultMaxResponse = 64 << 20
	// DefaultMaxEvent bounds one event of a stream, or one line of a
	// batch's results.
	DefaultMaxEvent = 16 << 20
	// DefaultMaxResults bounds the results of one batch, read a line at
	// a time as they come (never whole): 100,000 answers of Claude's 8192
	// tokens by default are some 3 GB.
	DefaultMaxResults = 8 << 30
	// DefaultMaxRetryWait bounds a wait the server asks for (retry-after):
	// a longer one is cut to it, and said so.
	DefaultMaxRetryWait = time.Minute
)

// IdleError says a request or a stream sent nothing for the idle timeout.
type IdleError struct {
	Provider string
	Timeout  time.Duration
}

func (e *IdleError) Error() string {
	return fmt.Sprintf("%s: the API sent nothing for %v (the idle timeout)", e.Provider, e.Timeout)
}

// DeadlineError says a request, its answer read whole, took longer than
// its deadline: an answer that never ends, though it never goes idle.
type DeadlineError struct {
	Provider string
	Deadline time.Duration
}

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("%s: the API did not finish answering within %v (the API timeout)", e.Provider, e.Deadline)
}

// TooLargeError says a response body, or one event of a stream, went
// past its bound: kesoku read no more of it.
type TooLargeError struct {
	Provider string
	// What is "the answer" or "an event of the stream".
	What  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: %s is larger than %d bytes; kesoku reads no more of it", e.Provider, e.What, e.Limit)
}

// Transport is the http.RoundTripper of every provider client: it
// retries transient failures (429, 408, 409, 5xx, a dropped or refused
// connection, a request that sent nothing for IdleTimeout) with backoff,
// bounds every wait and every body, and reads a response that is not a
// stream whole before handing it on, so that a body that stalls or drops
// is retried too.
type Transport struct {
	// Provider names the provider in errors and notices.
	Provider string
	// Endpoint is the base URL the provider's key is written for: the
	// provider's own, or the one the user gave. Requests go to its origin
	// alone (see Client); "" sends them anywhere, for a client that
	// carries no key.
	Endpoint string
	// Redactor hides the provider's key in what the Transport quotes of
	// an answer (a proxy's page, a URL it named), before the quote is cut
	// short: a key cut in two would escape a redactor applied after. Nil
	// hides nothing.
	Redactor *Redactor
	// Base sends the requests; nil means http.DefaultTransport's
	// settings, with more idle connections kept to a host.
	Base http.RoundTripper
	// IdleTimeout bounds how long a request, its response or a stream may
	// send nothing; 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Deadline bounds each try of a request whole: its sending, and its
	// answer read to the end (a stream until it is closed); 0 means
	// DefaultDeadline. A try cut by it is not tried again.
	Deadline time.Duration
	// MaxResponse and MaxEvent bound a response body and an event of a
	// stream, MaxResults the results of a batch (see Results); 0 means
	// the defaults.
	MaxResponse, MaxEvent, MaxResults int64
	// Retry says how often and how long to retry.
	Retry Retry
	// OnRetry, when set, is told of each retry in one line, escaped for a
	// terminal: what failed and how long kesoku waits.
	OnRetry func(string)
	// NewIdleTimer makes the timers that measure IdleTimeout; nil means
	// time.AfterFunc.
	NewIdleTimer func(d time.Duration, fire func()) IdleTimer

	// homeOf is the last origin home worked out, with the Endpoint it is
	// of: every request is checked against it.
	homeOf atomic.Pointer[endpointHome]
}

// endpointHome is an Endpoint's origin (see Transport.home).
type endpointHome struct {
	endpoint, home string
	err            error
}

// IdleTimer is a timer that measures how long a request has sent
// nothing, as *time.Timer does: Reset starts it again, Stop ends it.
type IdleTimer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// NewTransport is the Transport of a provider's client, built from opts:
// it sends through opts.HTTPClient's transport when there is one, and to
// the origin of opts.BaseURL alone, or of endpoint, the provider's own,
// when opts.BaseURL is "".
func NewTransport(provider, endpoint string, opts ClientOptions) *Transport {
	if opts.BaseURL != "" {
		endpoint = opts.BaseURL
	}
	t := &Transport{
		Provider:    provider,
		Endpoint:    endpoint,
		Redactor:    NewRedactor(opts.APIKey),
		IdleTimeout: opts.IdleTimeout,
		Deadline:    opts.Deadline,
		MaxResponse: opts.MaxResponse,
		MaxEvent:    opts.MaxEvent,
		MaxResults:  opts.MaxResults,
		Retry:       opts.Retry,
		OnRetry:     opts.OnRetry,

		NewIdleTimer: opts.NewIdleTimer,
	}
	if opts.HTTPClient != nil {
		t.Base = opts.HTTPClient.Transport
	}
	return t
}

// Client is an HTTP client that sends through t, for an SDK. The
// provider's key rides in headers the SDK sets on every request
// (Authorization, x-api-key, x-goog-api-key), and Go's client forwards
// all of them on a redirect to another port or scheme of the same host,
// and all but Authorization to any host: so a redirect is followed within
// the origin of t.Endpoint alone, and one elsewhere is refused with an
// *OriginError before anything is sent there. No provider's API
// redirects to another origin (Gemini's upload URLs and file downloads,
// Claude's batch results are all on the endpoint's own).
func (t *Transport) Client() *http.Client {
	return &http.Client{Transport: t, CheckRedirect: t.checkRedirect}
}

func (t *Transport) checkRedirect(req *http.Request, via []*http.Request) error {
	home, err := t.home()
	if err != nil || home == "" {
		return err
	}
	return origin.Redirects(home, func(to *url.URL) error {
		err := &OriginError{Provider: t.Provider, Home: origin.Show(home), To: t.Redactor.String(redactURL(to)), Redirect: true}
		noteFailure(req.Context(), err)
		return err
	})(req, via)
}

// home is the origin of t.Endpoint, "" for none; worked out once an
// Endpoint.
func (t *Transport) home() (string, error) {
	endpoint := t.Endpoint
	if endpoint == "" {
		return "", nil
	}
	if h := t.homeOf.Load(); h != nil && h.endpoint == endpoint {
		return h.home, h.err
	}
	h := &endpointHome{endpoint: endpoint}
	if u, err := url.Parse(endpoint); err != nil || u.Host == "" {
		h.err = fmt.Errorf("%s: the endpoint %q is not a URL", t.Provider, endpoint)
	} else {
		h.home = origin.Of(u)
	}
	t.homeOf.Store(h)
	return h.home, h.err
}

// OriginError says a request was not sent because it would have taken the
// provider's key to another origin than the one it is written for: the
// API, or a proxy, redirected there, or an answer named a URL there.
// Nothing was sent to that origin.
type OriginError struct {
	// Provider is "gemini", "claude" or "openai".
	Provider string
	// Home is the origin the key is written for, To the URL the request
	// would have gone to, without its query.
	Home, To string
	// Redirect says the API redirected there.
	Redirect bool
}

func (e *OriginError) Error() string {
	what := "a request to " + e.To
	if e.Redirect {
		what = "the API redirected to " + e.To
	}
	return fmt.Sprintf("%s: %s, another origin than %s: refused, so that the API key goes to its own origin alone", e.Provider, oneLine(what, 300), e.Home)
}

func (t *Transport) base() http.RoundTripper {
	if t.Base != nil {
		return t.Base
	}
	return DefaultBase()
}

// DefaultBase is what sends the requests of a Transport with no Base, and
// what a cassette that records sends through: http.DefaultTransport
// keeping more of its connections to a host idle.
func DefaultBase() http.RoundTripper {
	if d, ok := http.DefaultTransport.(*http.Transport); !ok || d != stdDefault || defaultBase == nil {
		// Replaced (a test that refuses the network): what replaced it
		// sends.
		return http.DefaultTransport
	}
	return defaultBase
}

// stdDefault is http.DefaultTransport as the program began with it, nil
// when it was not an *http.Transport.
var stdDefault, _ = http.DefaultTransport.(*http.Transport)

// defaultBase is http.DefaultTransport keeping more of its connections
// to one host idle: the default keeps 2 and closes the rest, so that with
// more requests at once to an HTTP/1.1 endpoint (--jobs 4, a local proxy)
// most requests dialled a new connection, and over https shook hands
// again. HTTP/2 carries them all on one connection either way.
var defaultBase = func() *http.Transport {
	if stdDefault == nil {
		return nil
	}
	t := stdDefault.Clone()
	t.MaxIdleConnsPerHost = maxIdlePerHost
	return t
}()

// maxIdlePerHost is how many idle connections to one host are kept.
const maxIdlePerHost = 64

func (t *Transport) idle() time.Duration {
	if t.IdleTimeout > 0 {
		return t.IdleTimeout
	}
	return DefaultIdleTimeout
}

func (t *Transport) deadline() time.Duration {
	if t.Deadline > 0 {
		return t.Deadline
	}
	return DefaultDeadline
}

func (t *Transport) maxResponse() int64 {
	if t.MaxResponse > 0 {
		return t.MaxResponse
	}
	return DefaultMaxResponse
}

func (t *Transport) maxResults() int64 {
	if t.MaxResults > 0 {
		return t.MaxResults
	}
	return DefaultMaxResults
}

func (t *Transport) maxEvent() int64 {
	if t.MaxEvent > 0 {
		return t.MaxEvent
	}
	return DefaultMaxEvent
}

// RoundTrip sends req, retrying what is worth retrying. The retries are
// counted against the request's budget (see RetryStream), or its own.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	home, err := t.home()
	if err != nil {
		return nil, err
	}
	if home != "" && origin.Of(req.URL) != home {
		err := &OriginError{Provider: t.Provider, Home: origin.Show(home), To: t.Redactor.String(redactURL(req.URL))}
		noteFailure(req.Context(), err)
		return nil, err
	}
	ctx := req.Context()
	budget := budgetOf(ctx)
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	for first := true; ; first = false {
		if !first && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, fmt.Errorf("%s: send the request again: %w", t.Provider, err)
			}
			req = req.Clone(ctx)
			req.Body = body
		}
		resp, err := t.try(req)
		if ctx.Err() != nil {
			if resp != nil {
				resp.Body.Close()
			}
			return nil, ctx.Err()
		}
		why, asked := t.retryable(resp, err)
		if why == "" || !replayable || budget.spent(t.Retry.Retries()) {
			return t.final(req, resp, err, budget)
		}
		if resp != nil {
			resp.Body.Close()
		}
		if err := t.pause(ctx, budget, why, asked); err != nil {
			return nil, err
		}
	}
}

// final is what the last try comes to. An error body that is not JSON —
// a proxy's empty 404, an HTML page — is no answer of the provider's
// API, which the SDK would reduce to its status; and a connection that
// failed says nothing of where it went. Both become a *RequestError that
// names the request.
func (t *Transport) final(req *http.Request, resp *http.Response, err error, budget *retryBudget) (*http.Response, error) {
	// Made only for a failure: most requests succeed.
	requestError := func() *RequestError {
		return &RequestError{Provider: t.Provider, Method: req.Method, URL: redactURL(req.URL), Retries: int(budget.used.Load())}
	}
	switch {
	case err != nil:
		if ownError(err) != nil {
			return nil, err
		}
		rerr := requestError()
		rerr.Err = t.Redactor.Error(err)
		return nil, rerr
	case resp.StatusCode < 400:
		return resp, nil
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(data))
	if isJSONObject(data) {
		return resp, nil
	}
	resp.Body.Close()
	rerr := requestError()
	rerr.Status = resp.Status
	rerr.Body = []byte(t.Redactor.String(string(data)))
	return nil, rerr
}

// isJSONObject reports whether data is one JSON object: what every
// provider's error body is.
func isJSONObject(data []byte) bool {
	data = bytes.TrimSpace(data)
	return len(data) > 0 && data[0] == '{' && json.Valid(data)
}

// redactURL is u as it may be shown: without a query (an old client put
// the key there) or credentials.
func redactURL(u *url.URL) string {
	c := *u
	c.RawQuery, c.ForceQuery, c.User, c.Fragment = "", false, nil, ""
	return c.String()
}

// RequestError says a request to a provider failed without an answer
// from its API: the connection failed (refused, reset, a name that does
// not resolve), or something answered that is not the API (an error
// body that is not JSON, from a proxy or a wrong --base-url). It names
// the request, so that the user sees where it went.
type RequestError struct {
	// Provider is "gemini", "claude" or "openai".
	Provider string
	// Method and URL are the request's (the URL without its query).
	Method, URL string
	// Retries is how many times the request was tried again.
	Retries int
	// Status and Body are the answer's, when there was one: its status
	// line, and its body.
	Status string
	Body   []byte
	// Err is why the connection failed, when it did.
	Err error
}

// maxBodyShown bounds how much of a body that is not JSON an error shows.
const maxBodyShown = 200

func (e *RequestError) Error() string { return e.Words("the base URL") }

// Words is the error's text with baseURL the words for where the
// endpoint was given.
func (e *RequestError) Words(baseURL string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s: ", e.Provider, e.Method, e.URL)
	switch {
	case e.Err != nil:
		b.WriteString(oneLine(e.Err.Error(), 300))
	case len(bytes.TrimSpace(e.Body)) == 0:
		fmt.Fprintf(&b, "%s with an empty body", e.Status)
	default:
		fmt.Fprintf(&b, "%s with a body that is not the API's (not JSON): %s", e.Status, oneLine(string(e.Body), maxBodyShown))
	}
	if e.Err == nil && strings.HasPrefix(e.Status, "404") {
		fmt.Fprintf(&b, " (is %s the API's address?)", baseURL)
	}
	switch e.Retries {
	case 0:
	case 1:
		b.WriteString(" (after 1 retry)")
	default:
		fmt.Fprintf(&b, " (after %d retries)", e.Retries)
	}
	return b.String()
}

func (e *RequestError) Unwrap() error { return e.Err }

// ownError is the error of kesoku's own that err carries, if any: a
// bound the Transport hit, a request that failed, an answer that is no
// answer. Each says all there is to say, without an SDK's wording around
// it.
func ownError(err error) error {
	var idle *IdleError
	var late *DeadlineError
	var tooLarge *TooLargeError
	var bad *MalformedError
	var req *RequestError
	var elsewhere *OriginError
	var settled permanent
	switch {
	case errors.As(err, &settled) && settled.Permanent():
		return settled
	case errors.As(err, &elsewhere):
		return elsewhere
	case errors.As(err, &idle):
		return idle
	case errors.As(err, &late):
		return late
	case errors.As(err, &tooLarge):
		return tooLarge
	case errors.As(err, &bad):
		return bad
	case errors.As(err, &req):
		return req
	}
	return nil
}

// permanent is an error of what sends the Transport's requests (Base)
// that no retry can change, reported as it is: a cassette that holds no
// answer for a request.
type permanent interface {
	error
	Permanent() bool
}

// OwnError is the error of kesoku's own that err, from an SDK, carries:
// an IdleError, a DeadlineError, a TooLargeError, a MalformedError, a
// RequestError, an OriginError, or a permanent error of the Transport's
// Base (its Permanent method says true); nil when it carries none. A provider
// reports it in place of the SDK's error, which only wraps it in more
// words.
func OwnError(err error) error { return ownError(err) }

// pause takes a retry from budget, tells of it and waits before it.
func (t *Transport) pause(ctx context.Context, budget *retryBudget, why string, asked time.Duration) error {
	n := budget.take()
	wait := t.wait(n-1, asked)
	if t.replaying() {
		// What the recording waited for is over: a replay runs offline,
		// and as fast each time.
		wait = 0
	}
	t.notify(why, asked, wait, n)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}

// replaying reports whether Base answers from a recording (a cassette
// that replays), where no wait changes the answer to come.
func (t *Transport) replaying() bool {
	r, ok := t.Base.(interface{ Replaying() bool })
	return ok && r.Replaying()
}

// retryBudget counts the retries of one request to the model, whichever
// layer makes them: the Transport (a 429 at once) or RetryStream (a
// stream that broke before anything was handed on). One count keeps the
// notices' "retry 2 of 3" true, and the total within Retry.MaxRetries.
type retryBudget struct {
	used atomic.Int32
}

type budgetKey struct{}

// withBudget returns a context whose requests share one retry budget.
func withBudget(ctx context.Context) (context.Context, *retryBudget) {
	b := &retryBudget{}
	return context.WithValue(ctx, budgetKey{}, b), b
}

// budgetOf is the budget of ctx's request, or a budget of its own.
func budgetOf(ctx context.Context) *retryBudget {
	if b, ok := ctx.Value(budgetKey{}).(*retryBudget); ok {
		return b
	}
	return &retryBudget{}
}

// spent reports whether the retries allowed are used up.
func (b *retryBudget) spent(allowed int) bool { return int(b.used.Load()) >= allowed }

// take uses a retry and returns its number, from 1.
func (b *retryBudget) take() int { return int(b.used.Add(1)) }

// try makes one attempt. A response that is not a stream comes back with
// its body read whole, within the bounds; a stream comes back with a body
// that keeps to them as it is read.
func (t *Transport) try(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	w := t.newWatchdog(func() { cancel(&IdleError{Provider: t.Provider, Timeout: t.idle()}) },
		func() { cancel(&DeadlineError{Provider: t.Provider, Deadline: t.deadline()}) })
	// A shallow copy: nothing of req is changed but its body, which the
	// copy holds (Clone would copy every header again, each try).
	out := req.WithContext(ctx)
	if req.Body != nil && req.Body != http.NoBody && !smallInMemory(req) {
		// An upload that is still going is not idle.
		out.Body = &kickReader{ReadCloser: req.Body, w: w}
	}
	resp, err := t.base().RoundTrip(out)
	if err != nil {
		w.stop()
		bound := boundHit(ctx)
		cancel(nil)
		if bound != nil {
			return nil, bound
		}
		return nil, err
	}
	w.kick()
	kind := streamKind(resp)
	results := isResults(req.Context()) || kind == jsonLines
	if (results || isStreamKind(kind)) && resp.StatusCode < 300 {
		body := &streamBody{body: resp.Body, w: w, ctx: ctx, cancel: cancel, t: t,
			limit: t.maxResponse(), what: "the answer", event: "an event of the stream"}
		if results {
			// Lines, each bounded as an event is, and more of them in all
			// than any answer holds.
			body.lines, body.limit = true, t.maxResults()
			body.what, body.event = "the body of the results", "a line of the results"
		}
		resp.Body = body
		return resp, nil
	}
	defer cancel(nil)
	defer w.stop()
	data, err := t.readAll(ctx, resp.Body, w)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	resp.ContentLength = int64(len(data))
	return resp, nil
}

// readAll reads a response body within MaxResponse, kicking the watchdog
// as bytes come.
func (t *Transport) readAll(ctx context.Context, body io.Reader, w *watchdog) ([]byte, error) {
	limit := t.maxResponse()
	var buf bytes.Buffer
	chunk := make([]byte, 32<<10)
	for {
		n, err := body.Read(chunk)
		if n > 0 {
			w.kick()
			if int64(buf.Len()+n) > limit {
				return nil, &TooLargeError{Provider: t.Provider, What: "the answer", Limit: limit}
			}
			buf.Write(chunk[:n])
		}
		if errors.Is(err, io.EOF) {
			return buf.Bytes(), nil
		}
		if err != nil {
			if bound := boundHit(ctx); bound != nil {
				return nil, bound
			}
			return nil, &droppedError{provider: t.Provider, err: err}
		}
	}
}

// boundHit is the bound (an IdleError, a DeadlineError) that cancelled
// ctx, the context of one try; nil when none did.
func boundHit(ctx context.Context) error {
	var idle *IdleError
	var late *DeadlineError
	switch cause := context.Cause(ctx); {
	case errors.As(cause, &idle):
		return idle
	case errors.As(cause, &late):
		return late
	}
	return nil
}

// droppedError says the connection broke while a response was read.
type droppedError struct {
	provider string
	err      error
}

func (e *droppedError) Error() string {
	return fmt.Sprintf("%s: the connection dropped during the answer: %v", e.provider, e.err)
}

func (e *droppedError) Unwrap() error { return e.err }

// retryable says why the attempt is worth trying again ("" when it is
// not), and the wait the server asked for, if it asked.
func (t *Transport) retryable(resp *http.Response, err error) (why string, asked time.Duration) {
	if err != nil {
		// An answer too large, or too long, would be as large, or as long,
		// again.
		var tooLarge *TooLargeError
		var late *DeadlineError
		var settled permanent
		if errors.As(err, &tooLarge) || errors.As(err, &late) || errors.As(err, &settled) && settled.Permanent() {
			return "", 0
		}
		msg := t.Redactor.String(err.Error())
		if !strings.HasPrefix(msg, t.Provider+": ") {
			// A dropped or refused connection, in net/http's words.
			msg = t.Provider + ": " + msg
		}
		return oneLine(msg, 300), 0
	}
	switch resp.Header.Get("x-should-retry") {
	case "false":
		return "", 0
	case "true":
	default:
		s := resp.StatusCode
		if s != http.StatusRequestTimeout && s != http.StatusConflict && s != http.StatusTooManyRequests && s < 500 {
			return "", 0
		}
	}
	return fmt.Sprintf("%s: %s", t.Provider, t.statusLine(resp)), retryAfter(resp.Header)
}

// statusLine is an error response in a few words: its status, and the
// provider's type and message where the body has them.
func (t *Transport) statusLine(resp *http.Response) string {
	line := strconv.Itoa(resp.StatusCode)
	data, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(data))
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Status  string `json:"status"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if !isJSONObject(data) {
		// Not the provider's answer (a proxy's page, an empty 502): where
		// it came from is the first thing to know.
		if resp.Request != nil && resp.Request.URL != nil {
			line += " from " + redactURL(resp.Request.URL)
		}
		if len(bytes.TrimSpace(data)) > 0 {
			line += ": " + oneLine(t.Redactor.String(string(data)), 100)
		}
		return oneLine(line, 300)
	}
	if json.Unmarshal(data, &body) == nil {
		for _, s := range []string{body.Error.Type, body.Error.Status} {
			if s != "" {
				line += " " + s
				break
			}
		}
		if body.Error.Message != "" {
			line += ": " + t.Redactor.String(body.Error.Message)
		}
	}
	return oneLine(line, 300)
}

// retryAfter is the wait the server asks for: retry-after-ms (Claude's),
// or retry-after in seconds or as a date; 0 when it asks none.
func retryAfter(h http.Header) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return durationOf(ms * float64(time.Millisecond))
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
			return durationOf(s * float64(time.Second))
		}
		if at, err := http.ParseTime(v); err == nil {
			return max(0, time.Until(at))
		}
	}
	return 0
}

// durationOf is f nanoseconds, saturated: a header may say anything.
func durationOf(f float64) time.Duration {
	if f >= float64(1<<62) {
		return 1 << 62
	}
	return time.Duration(f)
}

// wait is how long to wait before the attempt after attempt: what the
// server asked for, up to MaxWait, or exponential backoff.
func (t *Transport) wait(attempt int, asked time.Duration) time.Duration {
	if asked > 0 {
		return min(asked, t.Retry.maxWait())
	}
	initial, maxDelay := t.Retry.Delays()
	d := min(initial<<min(attempt, 30), maxDelay)
	if !t.Retry.NoJitter {
		d -= time.Duration(rand.Int64N(int64(d)/4 + 1))
	}
	return d
}

func (t *Transport) notify(why string, asked, wait time.Duration, n int) {
	if t.OnRetry == nil {
		return
	}
	msg := fmt.Sprintf("%s; retry %d of %d in %v", why, n, t.Retry.Retries(), wait.Round(time.Millisecond))
	if t.replaying() {
		msg = fmt.Sprintf("%s; retry %d of %d at once (a cassette replays it)", why, n, t.Retry.Retries())
	} else if asked > wait {
		msg += fmt.Sprintf(" (the server asked to wait %v; kesoku waits at most %v)", asked.Round(time.Second), wait)
	}
	// The notice goes to a terminal: the provider's words in it are
	// escaped there, once.
	t.OnRetry(termtext.Escape(msg))
}

// Results returns a context under which the answer to a request is the
// results of a batch: JSON Lines read as they come, whatever their
// Content-Type, within MaxResults in all and MaxEvent a line, never held
// whole.
func Results(ctx context.Context) context.Context {
	return context.WithValue(ctx, resultsKey{}, true)
}

type resultsKey struct{}

func isResults(ctx context.Context) bool {
	v, _ := ctx.Value(resultsKey{}).(bool)
	return v
}

// isStreamKind reports whether a response of kind (see streamKind) is a
// stream, read as it comes rather than whole: server-sent events, or JSON
// Lines (the results of a batch, which may be larger than any answer).
func isStreamKind(kind string) bool {
	switch kind {
	case "text/event-stream", jsonLines:
		return true
	}
	return false
}

// jsonLines is the stream kind of JSON Lines, whose events are lines.
const jsonLines = "jsonl"

func streamKind(resp *http.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/x-jsonl", "application/jsonl", "application/x-ndjson", "application/jsonlines":
		return jsonLines
	}
	return mt
}

// watchdog calls idle once it has not been kicked for d, and late once
// the deadline has passed, kicked or not.
type watchdog struct {
	d        time.Duration
	timer    IdleTimer
	deadline *time.Timer
}

// newWatchdog starts a watchdog of the idle timeout and of the deadline
// of one try.
func (t *Transport) newWatchdog(idle, late func()) *watchdog {
	w := &watchdog{d: t.idle(), deadline: time.AfterFunc(t.deadline(), late)}
	if t.NewIdleTimer != nil {
		w.timer = t.NewIdleTimer(w.d, idle)
	} else {
		w.timer = time.AfterFunc(w.d, idle)
	}
	return w
}

func (w *watchdog) kick() { w.timer.Reset(w.d) }

func (w *watchdog) stop() {
	w.timer.Stop()
	w.deadline.Stop()
}

// smallBody is the largest request body sent as it is, unwatched (see
// smallInMemory).
const smallBody = 64 << 10

// smallInMemory says req's body is in memory (the SDKs' requests are made
// from a byte slice, which gives them GetBody) and small: it leaves in a
// few writes at once, so kicking the watchdog as it is read says nothing
// the request's start did not; a link that takes IdleTimeout over 64 KiB
// is stalled. Wrapping such a body would hide from net/http that it is in
// memory, and it would then write the headers on their own before it: a
// system call more a request, and a read more for the server.
func smallInMemory(req *http.Request) bool {
	return req.GetBody != nil && req.ContentLength > 0 && req.ContentLength <= smallBody
}

// kickReader kicks the watchdog as a request body is sent.
type kickReader struct {
	io.ReadCloser
	w *watchdog
}

func (k *kickReader) Read(p []byte) (int, error) {
	n, err := k.ReadCloser.Read(p)
	if n > 0 {
		k.w.kick()
	}
	return n, err
}

// streamBody is the body of an event stream as the SDK reads it: each
// read kicks the watchdog, and the whole body and each event keep to
// their bounds.
type streamBody struct {
	body   io.ReadCloser
	w      *watchdog
	ctx    context.Context
	cancel context.CancelCauseFunc
	t      *Transport
	// limit bounds the whole body; what and event name it and one of its
	// events in errors.
	limit       int64
	what, event string

	// total is what was read in all, size the length of the event being
	// read.
	total, size int64
	// lineLen is the length of the line being read, \r left out: an empty
	// line ends an event, or, with lines, every line break.
	lineLen int64
	lines   bool
	err     error
	once    sync.Once
	closed  atomic.Bool
}

func (s *streamBody) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.body.Read(p)
	if n > 0 {
		s.w.kick()
		s.total += int64(n)
		if s.total > s.limit {
			s.err = &TooLargeError{Provider: s.t.Provider, What: s.what, Limit: s.limit}
			noteFailure(s.ctx, s.err)
			return 0, s.err
		}
		limit := s.t.maxEvent()
		for _, b := range p[:n] {
			switch b {
			case '\n':
				if s.lineLen == 0 || s.lines {
					s.size = 0
				}
				s.lineLen = 0
				continue
			case '\r':
				continue
			}
			s.lineLen++
			// Checked at each byte: an event that ends within this read
			// must not have its count reset before it is checked.
			if s.size++; s.size > limit {
				s.err = &TooLargeError{Provider: s.t.Provider, What: s.event, Limit: limit}
				noteFailure(s.ctx, s.err)
				return 0, s.err
			}
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		if bound := boundHit(s.ctx); bound != nil && !s.closed.Load() {
			err = bound
			noteFailure(s.ctx, err)
		} else if !s.closed.Load() && s.ctx.Err() == nil {
			err = &droppedError{provider: s.t.Provider, err: err}
		}
		s.err = err
	}
	return n, err
}

func (s *streamBody) Close() error {
	s.closed.Store(true)
	err := s.body.Close()
	s.once.Do(func() {
		s.w.stop()
		s.cancel(nil)
	})
	return err
}

// Transient reports whether err, from a stream that handed nothing on
// yet, is worth a new try: the server went quiet, the connection dropped,
// or the stream ended before the answer did.
func Transient(err error) bool {
	var idle *IdleError
	var dropped *droppedError
	return errors.As(err, &idle) || errors.As(err, &dropped) || errors.Is(err, ErrStreamCut) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}

// ErrStreamCut says a stream ended before the answer it carried did.
var ErrStreamCut = errors.New("the stream ended before the answer did")

// RetryStream runs a streamed request, try, again while it fails before
// handing any text on with an error that is worth it (Transient, or
// transient as the provider says), waiting as Transport does. The
// provider's own failures at once (429, 5xx) are the Transport's to
// retry; this is for those inside a stream already begun. try must send
// its request under the context it is given: the Transport's retries and
// these share one budget.
func RetryStream(ctx context.Context, t *Transport, transient func(error) bool, try func(ctx context.Context) (resp *Response, began bool, err error)) (*Response, error) {
	ctx, budget := withBudget(ctx)
	for {
		resp, began, err := try(ctx)
		if err == nil || began || budget.spent(t.Retry.Retries()) || ctx.Err() != nil || !(Transient(err) || transient(err)) {
			return resp, err
		}
		if err := t.pause(ctx, budget, oneLine(t.Redactor.String(err.Error()), 300), 0); err != nil {
			return nil, err
		}
	}
}

// oneLine is s as an error holds it: on one line (line breaks as
// spaces), at most limit bytes, cut on a character. Its control
// characters are kept, so that a record keeps the provider's text as it
// was: whatever prints the error on a terminal escapes it there, once.
func oneLine(s string, limit int) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if b.Len() >= limit {
			b.WriteString("…")
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n' || r == '\r' || r == '\t' || r == 0x2028 || r == 0x2029:
			b.WriteByte(' ')
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// OneLine is s as an error holds it: on one line, at most 1000 bytes;
// not escaped (the terminal's printer does that).
func OneLine(s string) string { return oneLine(s, 1000) }

// OneLineError is err under a message of one line (OneLine), prefixed;
// errors.Is and errors.As still see err. An SDK's error may quote a whole
// response, line breaks and all.
func OneLineError(prefix string, err error) error {
	return &oneLineError{msg: prefix + OneLine(err.Error()), err: err}
}

type oneLineError struct {
	msg string
	err error
}

func (e *oneLineError) Error() string { return e.msg }
func (e *oneLineError) Unwrap() error { return e.err }

// Failures keeps the bound a stream hit (an IdleError, a DeadlineError,
// a TooLargeError), or a request refused for its origin (an
// OriginError), for the provider that reads it: an SDK may report the
// half event the broken stream left rather than why it broke, or word an
// error it does not wrap.
type Failures struct {
	mu  sync.Mutex
	err error
}

type failuresKey struct{}

// WatchFailures returns a context under which the Transport notes the
// bounds its streams hit, and the requests it refused for their origin,
// in the Failures returned.
func WatchFailures(ctx context.Context) (context.Context, *Failures) {
	f := &Failures{}
	return context.WithValue(ctx, failuresKey{}, f), f
}

// Err is the first bound hit, nil when none was.
func (f *Failures) Err() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}

func noteFailure(ctx context.Context, err error) {
	if f, ok := ctx.Value(failuresKey{}).(*Failures); ok {
		f.mu.Lock()
		if f.err == nil {
			f.err = err
		}
		f.mu.Unlock()
	}
}

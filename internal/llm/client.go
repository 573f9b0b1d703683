package llm

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// ClientOptions are what every provider's client is built from. The key
// is read by the caller (cmd) from the environment and handed over here;
// it never leaves the SDK's own request headers.
type ClientOptions struct {
	// Model is the model's name as the user gave it.
	Model string
	// APIKey is the provider's API key.
	APIKey string
	// BaseURL replaces the provider's endpoint (a proxy, a fake in tests).
	BaseURL string
	// MaxTokens bounds the length of one model turn where the provider
	// requires a bound (Claude); 0 means the provider's default.
	MaxTokens int
	// Retry says how transient errors (429, 5xx, a dropped connection, a
	// request idle for IdleTimeout) are retried.
	Retry Retry
	// OnRetry, when set, is told of each retry in one line, escaped for a
	// terminal: what failed, and how long kesoku waits before it tries
	// again.
	OnRetry func(string)
	// IdleTimeout bounds how long a request or a stream may send nothing
	// before it is abandoned and retried; 0 means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// Deadline bounds each request whole, from its sending to the end of
	// its answer, however steadily it comes; 0 means DefaultDeadline.
	Deadline time.Duration
	// NewIdleTimer makes the timers that measure IdleTimeout; nil means
	// real ones (time.AfterFunc). Tests give timers that fire when the
	// test says, not when a loaded machine happens to be slow.
	NewIdleTimer func(d time.Duration, fire func()) IdleTimer
	// MaxResponse bounds a response body, streamed or not, MaxEvent one
	// event of a stream or one line of a batch's results, and MaxResults
	// the results of a batch (see Results); 0 means the defaults.
	MaxResponse, MaxEvent, MaxResults int64
	// MaxRequest is the largest request body the provider's API takes;
	// 0 means the provider's own limit.
	MaxRequest int64
	// HTTPClient is the client whose transport the requests go through
	// (under kesoku's Transport); nil means a new one.
	HTTPClient *http.Client
}

// Retry says how transient provider errors (429 and 5xx) are retried with
// backoff, by Transport. The zero value means the defaults.
type Retry struct {
	// MaxRetries is how many times a request is retried after its first
	// try; 0 means the default (DefaultMaxRetries), a negative value none.
	MaxRetries int
	// InitialDelay and MaxDelay bound the exponential backoff; 0 means the
	// defaults. A wait the server asks for is honoured up to MaxWait.
	InitialDelay, MaxDelay time.Duration
	// MaxWait bounds a wait the server asks for (retry-after); 0 means
	// DefaultMaxRetryWait.
	MaxWait time.Duration
	// NoJitter makes the backoff exact, for tests.
	NoJitter bool
}

func (r Retry) maxWait() time.Duration {
	if r.MaxWait > 0 {
		return r.MaxWait
	}
	return DefaultMaxRetryWait
}

// Defaults of Retry.
const (
	DefaultMaxRetries   = 3
	DefaultInitialDelay = time.Second
	DefaultMaxDelay     = 30 * time.Second
)

// Retries is the number of retries r asks for.
func (r Retry) Retries() int {
	switch {
	case r.MaxRetries < 0:
		return 0
	case r.MaxRetries == 0:
		return DefaultMaxRetries
	}
	return r.MaxRetries
}

// Delays are the initial and maximum backoff delays r asks for.
func (r Retry) Delays() (initial, maxDelay time.Duration) {
	initial, maxDelay = r.InitialDelay, r.MaxDelay
	if initial <= 0 {
		initial = DefaultInitialDelay
	}
	if maxDelay <= 0 {
		maxDelay = max(DefaultMaxDelay, initial)
	}
	return initial, maxDelay
}

// APIError is an error answer from a provider's API, reduced to what a
// user needs: the status, the provider's own error type and its message.
type APIError struct {
	// Provider is "gemini", "claude" or "openai".
	Provider string
	// StatusCode is the HTTP status; 0 for an error that came inside a
	// stream already begun (status 200).
	StatusCode int
	// Type is the provider's word for the error: Gemini's status
	// ("INVALID_ARGUMENT"), Claude's error type ("invalid_request_error").
	Type string
	// Message is the provider's own message.
	Message string
}

func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s API error", e.Provider)
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, " %d", e.StatusCode)
	}
	if e.Type != "" {
		fmt.Fprintf(&b, " %s", e.Type)
	}
	if e.Message != "" {
		// The message may be a proxy's raw body: one line of it, bounded.
		fmt.Fprintf(&b, ": %s", OneLine(e.Message))
	}
	return b.String()
}

// MalformedError says a provider's answer (status 200) is not one the
// provider's API gives: a body of null, a stream that makes no sense, a
// value of the wrong type. It is the provider's failure, reported in one
// line; the answer itself is never dumped.
type MalformedError struct {
	// Provider is "gemini", "claude" or "openai".
	Provider string
	// Problem says what is wrong, in a few words.
	Problem string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("%s: malformed answer from the API: %s", e.Provider, OneLine(e.Problem))
}

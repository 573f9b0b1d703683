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
	// Retry says how transient errors (429, 5xx) are retried.
	Retry Retry
	// HTTPClient replaces the SDK's HTTP client; nil keeps it.
	HTTPClient *http.Client
}

// Retry says how transient provider errors (429 and 5xx) are retried with
// backoff by the SDKs. The zero value means the defaults.
type Retry struct {
	// MaxRetries is how many times a request is retried after its first
	// try; 0 means the default (DefaultMaxRetries), a negative value none.
	MaxRetries int
	// InitialDelay and MaxDelay bound the exponential backoff where the SDK
	// lets us set it (Gemini), and of Claude's errors inside a stream; 0
	// means the defaults. Claude's SDK keeps its own backoff for the rest
	// and honours the server's retry-after.
	InitialDelay, MaxDelay time.Duration
	// NoJitter makes the backoff exact, for tests.
	NoJitter bool
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
	// Provider is "gemini" or "claude".
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
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	return b.String()
}

// MalformedError says a provider's answer (status 200) is not one the
// provider's API gives: a body of null, a stream that makes no sense, a
// value of the wrong type. It is the provider's failure, reported in one
// line; the answer itself is never dumped.
type MalformedError struct {
	// Provider is "gemini" or "claude".
	Provider string
	// Problem says what is wrong, in a few words.
	Problem string
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("%s: malformed answer from the API: %s", e.Provider, e.Problem)
}

package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// What the tests of each provider's client share (internal/llm/gemini,
// claude, openai): the tool they offer, the two ways an answer is taken,
// and the table of errors a client must report as the API said them.
// Those tests are inside their packages; this package imports internal/llm,
// so internal/llm's own tests that use it are external (package llm_test).

// SumSpec is the tool the provider tests offer the model: two required
// integers, a and b.
var SumSpec = &toolset.Tool{
	Name: "calculate_sum", Description: "Add two numbers.",
	Params: []*toolspec.Property{
		{Name: "a", Schema: &toolspec.Schema{Type: toolspec.TypeInteger}, Required: true},
		{Name: "b", Schema: &toolspec.Schema{Type: toolspec.TypeInteger}, Required: true},
	},
}

// FastRetry is the retry policy of a client under test: two retries, a
// millisecond apart, so that a test of retries takes no time.
var FastRetry = llm.Retry{MaxRetries: 2, InitialDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, NoJitter: true}

// RolesInARow is a conversation after an interrupt or a resume: two user
// messages in a row, then a call whose result was an error followed by
// the user's text in another message. Every provider sends each run of
// one role as one message, the tool results first.
var RolesInARow = []llm.Message{
	User("think hard"),
	User("never mind; add 1 and 2"),
	{Role: message.RoleAssistant, Parts: []llm.Part{{ToolCall: &llm.ToolCall{ID: "t1", Name: "calculate_sum", Args: json.RawMessage(`{"a":1,"b":2}`)}}}},
	{Role: message.RoleUser, Parts: []llm.Part{{ToolResult: &llm.ToolResult{CallID: "t1", Name: "calculate_sum", Content: json.RawMessage(`"aborted"`), IsError: true}}}},
	User("what happened?"),
}

// Modes runs f, in parallel subtests, for an answer handed on as it comes
// (onText set: "stream") and for one that is not ("plain"). Both are
// streamed from the API.
func Modes(t *testing.T, f func(t *testing.T, stream bool)) {
	for _, stream := range []bool{false, true} {
		name := "plain"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, stream)
		})
	}
}

// Generate asks p for its turn, with an onText that keeps what is handed
// on when stream is set and none otherwise, and returns the turn and the
// text handed on.
func Generate(t testing.TB, p llm.Provider, req *llm.Request, stream bool) (*llm.Response, string, error) {
	t.Helper()
	var streamed strings.Builder
	var onText func(string)
	if stream {
		onText = func(s string) { streamed.WriteString(s) }
	}
	resp, err := p.Generate(context.Background(), req, onText)
	return resp, streamed.String(), err
}

// Decode is the JSON s decoded as encoding/json decodes into an any, to
// compare with what a fake server recorded (Server.Bodies).
func Decode(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// User is a message of the user's of one text.
func User(text string) llm.Message {
	return llm.Message{Role: message.RoleUser, Parts: []llm.Part{{Text: text}}}
}

// ErrorCase is what a fake server answers a request with and what the
// client must make of it.
type ErrorCase struct {
	Name    string
	Replies []Reply
	// Key is the key the server takes, when it is not the client's: the
	// client's key is then wrong.
	Key string
	// WantErr is what the client's error must say, "" when the request
	// must succeed (after retries).
	WantErr string
	// Requests is how many requests the server must have received.
	Requests int
}

// RunErrorCases runs each case, streamed and not, against a fake server
// speaking kind, through the client newProvider makes for it with key.
// An error must be an *llm.APIError that says WantErr and never holds the
// key; Requests counts the retries.
func RunErrorCases(t *testing.T, kind Provider, key string, newProvider func(t *testing.T, srv *Server) llm.Provider, cases []ErrorCase) {
	for _, tt := range cases {
		t.Run(tt.Name, func(t *testing.T) {
			t.Parallel()
			Modes(t, func(t *testing.T, stream bool) {
				takes := key
				if tt.Key != "" {
					takes = tt.Key
				}
				srv := NewServer(kind, takes, tt.Replies...)
				defer srv.Close()
				_, _, err := Generate(t, newProvider(t, srv), &llm.Request{Messages: []llm.Message{User("hi")}}, stream)
				switch {
				case tt.WantErr == "" && err != nil:
					t.Fatalf("error: %v", err)
				case tt.WantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.WantErr)):
					t.Fatalf("error = %v, want one containing %q", err, tt.WantErr)
				}
				if tt.WantErr != "" {
					var api *llm.APIError
					if !errors.As(err, &api) {
						t.Errorf("error %T is not an llm.APIError", err)
					}
				}
				if err != nil && strings.Contains(err.Error(), key) {
					t.Errorf("the key is in the error: %v", err)
				}
				if got := len(srv.Requests()); got != tt.Requests {
					t.Errorf("%d requests, want %d", got, tt.Requests)
				}
			})
		})
	}
}

// RunCancelled checks, streamed and not, that a request whose context
// ends while the fake server (speaking kind) holds back its answer ends
// with the context's error, is given up (the server sees it cancelled)
// and is not tried again.
func RunCancelled(t *testing.T, kind Provider, key string, newProvider func(t *testing.T, srv *Server) llm.Provider) {
	Modes(t, func(t *testing.T, stream bool) {
		srv := NewServer(kind, key, Reply{Text: "late", Delay: Duration(time.Minute)})
		defer srv.Close()
		p := newProvider(t, srv)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		var onText func(string)
		if stream {
			onText = func(string) {}
		}
		_, err := p.Generate(ctx, &llm.Request{Messages: []llm.Message{User("hi")}}, onText)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error = %v, want the context's", err)
		}
		if !srv.WaitCancelled(nil, 0) {
			t.Error("the request was not cancelled")
		}
		if got := len(srv.Requests()); got != 1 {
			t.Errorf("%d requests, want 1: a cancelled request is not retried", got)
		}
	})
}

package llm_test

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/llm"
)

// permanentErr is an error of what sends the Transport's requests that
// no retry can change (a cassette that holds no answer for a request).
type permanentErr struct{}

func (permanentErr) Error() string   { return "cassette c.jsonl: request 1 was not recorded" }
func (permanentErr) Permanent() bool { return true }

type countingBase struct {
	n   atomic.Int32
	err error
}

func (b *countingBase) RoundTrip(*http.Request) (*http.Response, error) {
	b.n.Add(1)
	return nil, b.err
}

// TestPermanentErrorNotRetried: an error of the Transport's Base that says
// it is permanent is tried once, and comes back as it is, not wrapped in
// the words of a connection that failed; any other is retried.
func TestPermanentErrorNotRetried(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		err   error
		tries int32
	}{
		{"permanent", permanentErr{}, 1},
		{"transient", errors.New("connection reset"), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			base := &countingBase{err: tc.err}
			tr := &llm.Transport{Provider: "claude", Base: base, Retry: llm.Retry{MaxRetries: 2, InitialDelay: time.Millisecond, MaxDelay: time.Millisecond, NoJitter: true}}
			req, err := http.NewRequest("POST", "http://127.0.0.1:1/v1/messages", strings.NewReader("{}"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = tr.Client().Do(req)
			if n := base.n.Load(); n != tc.tries {
				t.Errorf("tried %d times, want %d", n, tc.tries)
			}
			var p permanentErr
			if tc.name == "permanent" && (!errors.As(err, &p) || llm.OwnError(err) == nil) {
				t.Errorf("got %v, want the permanent error itself", err)
			}
		})
	}
}

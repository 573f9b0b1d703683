package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/cassette"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/message"

	"github.com/kesoku/kesoku/internal/toolset"
)

// resultOf is the user's message answering every call of turn with
// content.
func resultOf(turn llm.Message, content string) llm.Message {
	msg := llm.Message{Role: message.RoleUser}
	for _, part := range turn.Parts {
		if c := part.ToolCall; c != nil {
			msg.Parts = append(msg.Parts, llm.Part{ToolResult: &llm.ToolResult{CallID: c.ID, Name: c.Name, Content: json.RawMessage(content)}})
		}
	}
	return msg
}

// refuseNetwork makes every connection through http.DefaultTransport (what
// a client without a transport of its own uses, and a cassette that
// records) fail the test, until the test ends.
func refuseNetwork(t *testing.T) {
	old := http.DefaultTransport
	http.DefaultTransport = roundTripFunc(func(r *http.Request) (*http.Response, error) {
		t.Errorf("a request went to the network on replay: %s %s", r.Method, r.URL)
		return nil, errors.New("no network in this test")
	})
	t.Cleanup(func() { http.DefaultTransport = old })
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestCassetteRoundTrip: for each provider, what a session's turns got
// from the API (a 429 retried, tool calls, text, streamed and not) is
// recorded without the key, and replayed with no key, no base URL and no
// connection, to the same responses.
func TestCassetteRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		kind   llmtest.Provider
		model  string
		keyVar string
	}{
		{llmtest.Gemini, "gemini-2.5-flash", "GEMINI_API_KEY"},
		{llmtest.Claude, "claude-sonnet-4-5", "ANTHROPIC_API_KEY"},
		{llmtest.OpenAI, "gpt-4o", "OPENAI_API_KEY"},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			const key = "test-key-cassette-7f3e9a"
			for _, v := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"} {
				t.Setenv(v, "")
			}
			t.Setenv(tc.keyVar, key)
			srv := llmtest.NewServer(tc.kind, key,
				llmtest.Reply{Status: 429, Error: "slow down", Headers: map[string]string{"retry-after-ms": "1"}},
				llmtest.Reply{Text: "Adding.", Calls: []llmtest.Call{{ID: "call_1", Name: "calculate_sum", Args: map[string]any{"a": 2, "b": 3}}}},
				llmtest.Reply{Text: "It is 5."},
			)
			path := filepath.Join(t.TempDir(), "c.jsonl")
			turns := func(p llm.Provider) []*llm.Response {
				t.Helper()
				var out []*llm.Response
				for i, stream := range []bool{false, true} {
					req := &llm.Request{Messages: []llm.Message{llmtest.User("add 2 and 3")}, Tools: []*toolset.Tool{llmtest.SumSpec}}
					if i == 1 {
						req.Messages = append(req.Messages, out[0].Message, resultOf(out[0].Message, `5`))
					}
					resp, _, err := llmtest.Generate(t, p, req, stream)
					if err != nil {
						t.Fatalf("turn %d: %v", i+1, err)
					}
					out = append(out, resp)
				}
				return out
			}

			rec, err := cassette.Open(path, cassette.Record)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Resolve(Config{Model: tc.model, BaseURL: srv.BaseURL(), Cassette: rec})
			if err != nil {
				t.Fatal(err)
			}
			p, err := m.Build(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			recorded := turns(p)
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			srv.Close()
			if n := len(srv.Requests()); n != 3 {
				t.Fatalf("%d requests recorded, want 3 (a retry and two turns)", n)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(key)) || bytes.Contains(data, []byte("7f3e9a")) {
				t.Errorf("the key is in the cassette:\n%s", data)
			}
			if lines := bytes.Count(data, []byte("\n")); lines != 4 {
				t.Errorf("%d lines, want a header and 3 exchanges:\n%s", lines, data)
			}

			t.Setenv(tc.keyVar, "")
			refuseNetwork(t)
			play, err := cassette.Open(path, cassette.Auto)
			if err != nil {
				t.Fatal(err)
			}
			if !play.Replaying() {
				t.Fatal("auto does not replay a cassette that exists")
			}
			m, err = Resolve(Config{Cassette: play})
			if err != nil {
				t.Fatalf("replay asks for something: %v", err)
			}
			if m.Name() != tc.model || m.Provider() != string(tc.kind) {
				t.Errorf("replay chose %s (%s), want the cassette's %s (%s)", m.Name(), m.Provider(), tc.model, tc.kind)
			}
			p, err = m.Build(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recorded, turns(p)); diff != "" {
				t.Errorf("replayed turns differ (-recorded +replayed):\n%s", diff)
			}
			if n := play.Unplayed(); n != 0 {
				t.Errorf("%d exchanges not played", n)
			}

			// One more request than recorded: refused, not retried, nothing
			// sent.
			_, _, err = llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{llmtest.User("again")}}, true)
			var mismatch *cassette.MismatchError
			if !errors.As(err, &mismatch) || mismatch.Request != 4 || mismatch.Difference != nil {
				t.Fatalf("got %v, want a *cassette.MismatchError for request 4 past the end", err)
			}
			if !strings.Contains(err.Error(), "request 4") || !strings.Contains(err.Error(), "the cassette holds 3 requests, all played") {
				t.Errorf("error %q does not say which request and why", err)
			}
		})
	}
}

// TestWithCassetteRecordsWithTheKey: a model resolved for replay read no
// key; given a cassette that records (an eval's new case), it needs the
// key as a model that never replayed does, and fails without one.
func TestWithCassetteRecordsWithTheKey(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.jsonl")
	if err := os.WriteFile(old, []byte(`{"kesoku_cassette":1,"provider":"gemini","model":"gemini-2.5-flash"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	play, err := cassette.Open(old, cassette.Replay)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GEMINI_API_KEY", "test-key-recorded-9d1")
	t.Setenv("GOOGLE_API_KEY", "")
	m, err := Resolve(Config{Cassette: play})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := cassette.Open(filepath.Join(dir, "new.jsonl"), cassette.Record)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.WithCassette(rec).Redactor().Secrets(); len(got) != 1 || got[0] != "test-key-recorded-9d1" {
		t.Errorf("recording, the model holds the keys %q, want GEMINI_API_KEY's", got)
	}
	t.Setenv("GEMINI_API_KEY", "")
	m, err = Resolve(Config{Cassette: play})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.WithCassette(rec).Build(context.Background()); !errors.As(err, new(*NoKeyError)) {
		t.Errorf("recording with no key: %v, want a *NoKeyError", err)
	}
}

// TestReplayWaitsNot: a 429 in a cassette, whose retry-after asked for
// an hour, is retried at once on replay: the notice of the retry says
// the wait kesoku takes, none.
func TestReplayWaitsNot(t *testing.T) {
	const key = "test-key-cassette-wait"
	for _, v := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL"} {
		t.Setenv(v, "")
	}
	t.Setenv("GEMINI_API_KEY", key)
	srv := llmtest.NewServer(llmtest.Gemini, key,
		llmtest.Reply{Status: 429, Error: "slow down", Headers: map[string]string{"retry-after-ms": "1"}},
		llmtest.Reply{Text: "Hello."},
	)
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "c.jsonl")
	ask := func(m *Model) {
		t.Helper()
		p, err := m.Build(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := llmtest.Generate(t, p, &llm.Request{Messages: []llm.Message{llmtest.User("hi")}}, false); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := cassette.Open(path, cassette.Record)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Resolve(Config{Model: "gemini-2.5-flash", BaseURL: srv.BaseURL(), Cassette: rec})
	if err != nil {
		t.Fatal(err)
	}
	ask(m)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	// As if the server had asked for an hour.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	hour := bytes.ReplaceAll(data, []byte(`"Retry-After-Ms":"1"`), []byte(`"Retry-After-Ms":"3600000"`))
	if bytes.Equal(hour, data) {
		t.Fatalf("no retry-after-ms in the cassette:\n%s", data)
	}
	if err := os.WriteFile(path, hour, 0o644); err != nil {
		t.Fatal(err)
	}

	t.Setenv("GEMINI_API_KEY", "")
	refuseNetwork(t)
	play, err := cassette.Open(path, cassette.Replay)
	if err != nil {
		t.Fatal(err)
	}
	var notices strings.Builder
	m, err = Resolve(Config{Cassette: play, Notices: func(msg string) { notices.WriteString(msg + "\n") }})
	if err != nil {
		t.Fatal(err)
	}
	ask(m)
	if got := notices.String(); !strings.Contains(got, "retry 1 of") || !strings.Contains(got, "at once") || strings.Contains(got, "1m0s") {
		t.Errorf("the retry on replay: %q, want one at once", got)
	}
}

// TestReplayOtherModel: a cassette replayed for another model than the
// one it was recorded with is refused at once, naming both (not a
// difference in the first request); the model it was recorded with, or
// none, replays.
func TestReplayOtherModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(path, []byte(`{"kesoku_cassette":1,"provider":"gemini","model":"gemini-2.5-flash"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	play, err := cassette.Open(path, cassette.Replay)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(Config{Model: "gemini-2.5-pro", Cassette: play})
	var other *CassetteModelError
	if !errors.As(err, &other) || other.Recorded != "gemini-2.5-flash" || other.Asked != "gemini-2.5-pro" || other.Path != path {
		t.Fatalf("replay for another model: %v, want a *CassetteModelError", err)
	}
	for _, want := range []string{"gemini-2.5-flash", "gemini-2.5-pro", path} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not name %s", err, want)
		}
	}
	for _, model := range []string{"", "gemini-2.5-flash"} {
		if _, err := Resolve(Config{Model: model, Cassette: play}); err != nil {
			t.Errorf("replay with model %q: %v", model, err)
		}
	}
	// A model resolved for another cassette (an eval's case) is checked
	// when it is built.
	m, err := ResolveForTools(Config{Model: "gemini-2.5-pro", BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.WithCassette(play).Build(context.Background()); !errors.As(err, &other) {
		t.Errorf("built for a cassette of another model: %v, want a *CassetteModelError", err)
	}
}

// TestRecordingKeepsConnections: a cassette that records sends over the
// connections kesoku's client keeps, not over Go's default transport,
// which keeps 2 idle to a host and dials the rest again: ten rounds of 4
// requests at once (the server answers a round only once all 4 came) take
// 4 connections, and at most 4 more where a round began before the last
// one's were back in the pool; Go's default would take 4 + 2 a round.
func TestRecordingKeepsConnections(t *testing.T) {
	const rounds, width = 10, 4
	replies := make([]llmtest.Reply, rounds*width)
	for i := range replies {
		replies[i] = llmtest.Reply{Text: "Hi."}
	}
	t.Setenv("GEMINI_API_KEY", "test-key")
	t.Setenv("GOOGLE_API_KEY", "")
	fake := llmtest.NewServer(llmtest.Gemini, "test-key", replies...)
	defer fake.Close()
	target, err := url.Parse(fake.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	came, gate := 0, make(chan struct{})
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		came++
		g := gate
		if came == width {
			close(gate)
			came, gate = 0, make(chan struct{})
		}
		mu.Unlock()
		<-g
		proxy.ServeHTTP(w, r)
	}))
	var conns atomic.Int64
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()

	rec, err := cassette.Open(filepath.Join(t.TempDir(), "c.jsonl"), cassette.Record)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	m, err := Resolve(Config{Model: "gemini-2.5-flash", BaseURL: srv.URL, Cassette: rec})
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for range rounds {
		var wg sync.WaitGroup
		for range width {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req := &llm.Request{Messages: []llm.Message{llmtest.User("say hi")}}
				if _, err := p.Generate(context.Background(), req, nil); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
	}
	if n := conns.Load(); n > 2*width {
		t.Errorf("%d rounds of %d requests at once took %d connections, want at most %d", rounds, width, n, 2*width)
	}
}

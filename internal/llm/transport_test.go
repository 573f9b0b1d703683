package llm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/claude"
	"github.com/kesoku/kesoku/internal/llm/gemini"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/internal/llm/openai"
	"github.com/kesoku/kesoku/message"
)

// notices collects what a provider says of its retries.
type notices struct {
	mu    sync.Mutex
	lines []string
}

func (n *notices) add(s string) {
	n.mu.Lock()
	n.lines = append(n.lines, s)
	n.mu.Unlock()
}

func (n *notices) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.lines...)
}

// provider is a client of srv built from opts, its retries told to n.
func provider(t *testing.T, srv *llmtest.Server, opts llm.ClientOptions, n *notices) llm.Provider {
	t.Helper()
	opts.APIKey, opts.BaseURL = testKey, srv.BaseURL()
	if n != nil {
		opts.OnRetry = n.add
	}
	return newProvider(t, srv.Provider(), opts)
}

// newProvider is a client of the provider p built from opts, for a model
// of its own.
func newProvider(t *testing.T, p llmtest.Provider, opts llm.ClientOptions) llm.Provider {
	t.Helper()
	var prov llm.Provider
	var err error
	switch p {
	case llmtest.Gemini:
		opts.Model = "gemini-test"
		prov, err = gemini.New(context.Background(), opts)
	case llmtest.OpenAI:
		opts.Model = "gpt-test"
		prov, err = openai.New(opts)
	default:
		opts.Model = "claude-test"
		prov, err = claude.New(opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	return prov
}

var hello = &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{{Text: "hi"}}}}}

// ask sends hello, streamed or not, and returns the answer and what was
// streamed.
func ask(p llm.Provider, stream bool) (answer, streamed string, err error) {
	var b strings.Builder
	var onText func(string)
	if stream {
		onText = func(s string) { b.WriteString(s) }
	}
	resp, err := p.Generate(context.Background(), hello, onText)
	if err != nil {
		return "", b.String(), err
	}
	return llm.AnswerText(resp.Message), b.String(), nil
}

// fastRetry retries at once, so that tests do not wait.
var fastRetry = llm.Retry{MaxRetries: 2, InitialDelay: time.Millisecond, MaxDelay: time.Millisecond, NoJitter: true}

// manualTimers are idle timers that fire only when the test says: a
// test of the idle timeout then depends on no machine's speed.
type manualTimers struct {
	mu     sync.Mutex
	timers []*manualTimer
}

type manualTimer struct {
	fire   func()
	active bool
}

func (m *manualTimers) new(_ time.Duration, fire func()) llm.IdleTimer {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := &manualTimer{fire: fire, active: true}
	m.timers = append(m.timers, t)
	return &manualHandle{m: m, t: t}
}

// fireAll fires every timer running, as if its time had passed.
func (m *manualTimers) fireAll() {
	m.mu.Lock()
	var fire []func()
	for _, t := range m.timers {
		if t.active {
			t.active = false
			fire = append(fire, t.fire)
		}
	}
	m.mu.Unlock()
	for _, f := range fire {
		f()
	}
}

type manualHandle struct {
	m *manualTimers
	t *manualTimer
}

func (h *manualHandle) Reset(time.Duration) bool { return h.set(true) }
func (h *manualHandle) Stop() bool               { return h.set(false) }

func (h *manualHandle) set(active bool) bool {
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	was := h.t.active
	h.t.active = active
	return was
}

// TestIdleTimeout: a server that accepts and goes quiet — before its
// headers, after them, or in the middle of a stream — is abandoned after
// the idle timeout and tried again, as long as nothing was handed on.
// The idle timers fire only once the fake says it has gone quiet (and,
// where text was to be handed on first, once it was), so that a slow
// machine cannot make a good reply look idle.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	hang := llmtest.Reply{Hang: true}
	quietAfterHeaders := llmtest.Reply{Delay: llmtest.Duration(time.Hour)}
	fine := llmtest.Reply{Text: "Fine."}
	// Claude's first event is message_start, Gemini's holds text.
	quietAfterText := llmtest.Reply{Text: "Some text.", Stall: true}
	tests := []struct {
		name     string
		provider llmtest.Provider
		// shown says the text is handed on as it comes (onText).
		shown   bool
		replies []llmtest.Reply
		// textFirst is the text handed on before the server goes quiet.
		textFirst string
		// wantErr is "" when the retry answers.
		wantErr string
	}{
		{name: "claude, no headers", provider: llmtest.Claude, replies: []llmtest.Reply{hang, fine}},
		{name: "gemini, no headers", provider: llmtest.Gemini, replies: []llmtest.Reply{hang, fine}},
		{name: "claude, quiet after the headers", provider: llmtest.Claude, shown: true, replies: []llmtest.Reply{quietAfterHeaders, fine}},
		{name: "gemini, quiet after the headers", provider: llmtest.Gemini, shown: true, replies: []llmtest.Reply{quietAfterHeaders, fine}},
		{name: "claude, quiet after the first event", provider: llmtest.Claude, shown: true, replies: []llmtest.Reply{quietAfterText, fine}},
		{name: "openai, no headers", provider: llmtest.OpenAI, replies: []llmtest.Reply{hang, fine}},
		{name: "openai, quiet after the headers", provider: llmtest.OpenAI, shown: true, replies: []llmtest.Reply{quietAfterHeaders, fine}},
		// OpenAI's first chunk holds the role and no text.
		{name: "openai, quiet after the first chunk", provider: llmtest.OpenAI, shown: true, replies: []llmtest.Reply{quietAfterText, fine}},
		// Text that was not shown can be taken back: the answer is asked
		// for again.
		{name: "gemini, quiet after text not shown", provider: llmtest.Gemini, replies: []llmtest.Reply{quietAfterText, fine}},
		// Text shown cannot.
		{name: "gemini, quiet after text shown", provider: llmtest.Gemini, shown: true, replies: []llmtest.Reply{quietAfterText, fine},
			textFirst: "Some ", wantErr: "sent nothing for 2m0s (the idle timeout)"},
		{name: "retries spent", provider: llmtest.Claude, replies: []llmtest.Reply{hang, quietAfterText, quietAfterHeaders, fine},
			wantErr: "sent nothing for 2m0s (the idle timeout)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(tt.provider, testKey, tt.replies...)
			defer srv.Close()
			var n notices
			var timers manualTimers
			p := provider(t, srv, llm.ClientOptions{Retry: fastRetry, NewIdleTimer: timers.new}, &n)
			streamed := make(chan string, 16)
			var onText func(string)
			if tt.shown {
				onText = func(s string) { streamed <- s }
			}
			type result struct {
				resp *llm.Response
				err  error
			}
			done := make(chan result, 1)
			finished := make(chan struct{})
			go func() {
				resp, err := p.Generate(context.Background(), hello, onText)
				done <- result{resp, err}
				close(finished)
			}()
			// Each attempt that the fake holds back goes idle once the
			// fake is quiet, and not before.
			for i, r := range tt.replies {
				if !r.Hang && !r.Stall && r.Delay == 0 {
					break
				}
				if !srv.WaitQuiet(finished, i) {
					break // the client gave up asking
				}
				if tt.textFirst != "" {
					if got := <-streamed; got != tt.textFirst {
						t.Fatalf("streamed %q first, want %q", got, tt.textFirst)
					}
				}
				timers.fireAll()
			}
			res := <-done
			if tt.wantErr == "" {
				if res.err != nil || llm.AnswerText(res.resp.Message) != "Fine." {
					t.Fatalf("answer %v, error %v; want the retry's answer", res.resp, res.err)
				}
				if got := n.all(); len(got) != 1 || !strings.Contains(got[0], "sent nothing for 2m0s") || !strings.Contains(got[0], "retry 1 of 2") {
					t.Errorf("notices %q, want one saying the API went quiet", got)
				}
			} else {
				var ie *llm.IdleError
				if !errors.As(res.err, &ie) || !strings.Contains(res.err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want an idle timeout", res.err)
				}
			}
			if tt.name == "retries spent" {
				// One budget for the Transport's retries and the stream's.
				if got := len(srv.Requests()); got != 3 {
					t.Errorf("%d requests, want 3: one and two retries", got)
				}
				if got := n.all(); len(got) != 2 || !strings.Contains(got[1], "retry 2 of 2") {
					t.Errorf("notices %q, want retries 1 and 2 of 2", got)
				}
			}
			if !srv.WaitCancelled(nil, 0) {
				t.Error("the first request was not given up")
			}
		})
	}
}

// TestEndlessAnswer: an answer or an event that never ends is cut at its
// bound with a clear error, and not tried again.
func TestEndlessAnswer(t *testing.T) {
	t.Parallel()
	for _, p := range []llmtest.Provider{llmtest.Claude, llmtest.Gemini, llmtest.OpenAI} {
		for _, bound := range []struct {
			name              string
			maxEvent, maxResp int64
			want              string
		}{
			{"event", 256 << 10, 1 << 20, "an event of the stream is larger than 262144 bytes"},
			{"answer", 4 << 20, 1 << 20, "the answer is larger than 1048576 bytes"},
		} {
			t.Run(string(p)+" "+bound.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(p, testKey, llmtest.Reply{Endless: true}, llmtest.Reply{Text: "never"})
				defer srv.Close()
				prov := provider(t, srv, llm.ClientOptions{MaxResponse: bound.maxResp, MaxEvent: bound.maxEvent, Retry: fastRetry}, nil)
				_, _, err := ask(prov, false)
				var tl *llm.TooLargeError
				if !errors.As(err, &tl) || !strings.Contains(err.Error(), bound.want) {
					t.Fatalf("error %v, want %q", err, bound.want)
				}
				if n := len(srv.Requests()); n != 1 {
					t.Errorf("%d requests, want 1: an answer too large is not retried", n)
				}
				if !srv.WaitCancelled(nil, 0) {
					t.Error("the endless answer was not given up")
				}
			})
		}
	}
}

// TestRetryAfterIsCapped: a 429 that asks to wait a day waits at most
// Retry.MaxWait, and says so.
func TestRetryAfterIsCapped(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		provider llmtest.Provider
		headers  map[string]string
		asked    string
	}{
		{llmtest.Claude, map[string]string{"retry-after-ms": "100000000"}, "27h46m40s"},
		{llmtest.Gemini, map[string]string{"Retry-After": "86400"}, "24h0m0s"},
		{llmtest.OpenAI, map[string]string{"retry-after-ms": "100000000"}, "27h46m40s"},
	} {
		t.Run(string(tt.provider), func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(tt.provider, testKey,
				llmtest.Reply{Status: 429, Error: "slow down", Headers: tt.headers}, llmtest.Reply{Text: "Fine."})
			defer srv.Close()
			var n notices
			retry := fastRetry
			retry.MaxWait = 20 * time.Millisecond
			p := provider(t, srv, llm.ClientOptions{Retry: retry}, &n)
			if answer, _, err := ask(p, false); err != nil || answer != "Fine." {
				t.Fatalf("answer %q, error %v", answer, err)
			}
			got := n.all()
			if len(got) != 1 || !strings.Contains(got[0], "429") || !strings.Contains(got[0], "slow down") ||
				!strings.Contains(got[0], "retry 1 of 2 in 20ms (the server asked to wait "+tt.asked+"; kesoku waits at most 20ms)") {
				t.Errorf("notices %q, want one saying what failed and the capped wait", got)
			}
		})
	}
}

// TestMalformedAnswers: a body of null, or another shape the SDK cannot
// read, is a provider error in one line, never a panic and never the
// answer dumped.
func TestMalformedAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		provider llmtest.Provider
		stream   bool
		reply    llmtest.Reply
		want     string
	}{
		{"claude null", llmtest.Claude, true, llmtest.Reply{Raw: "event: message_start\ndata: null\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"}, "claude: malformed answer from the API"},
		{"claude not a message", llmtest.Claude, false, llmtest.Reply{Raw: "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"type\":\"error_page\"}}\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"}, "claude: malformed answer from the API: the answer is not a message"},
		{"gemini null", llmtest.Gemini, false, llmtest.Reply{Raw: "data: null\r\n\r\n"}, "gemini: malformed answer from the API"},
		{"gemini args that are an array", llmtest.Gemini, false,
			llmtest.Reply{Calls: []llmtest.Call{{Name: "f", RawArgs: "[1,2]"}}}, "args is array"},
		{"gemini args that are an array, streamed", llmtest.Gemini, true,
			llmtest.Reply{Calls: []llmtest.Call{{Name: "f", RawArgs: "[1,2]"}}}, "args is array"},
		{"claude replayed stream", llmtest.Claude, true, llmtest.Reply{Text: "Once only.", DoubleStart: true}, "a second message_start in one stream"},
		{"openai null", llmtest.OpenAI, false, llmtest.Reply{Raw: "data: null\n\n"}, "openai: malformed answer from the API"},
		{"openai choices that are no list", llmtest.OpenAI, true, llmtest.Reply{Raw: "data: {\"object\":\"chat.completion.chunk\",\"choices\":7}\n\ndata: [DONE]\n\n"}, "openai: malformed answer from the API"},
		{"openai a call at a negative index", llmtest.OpenAI, false, llmtest.Reply{Raw: "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":-1,\"id\":\"c\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\ndata: [DONE]\n\n"}, "a tool call at index -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(tt.provider, testKey, tt.reply)
			defer srv.Close()
			p := provider(t, srv, llm.ClientOptions{Retry: fastRetry}, nil)
			_, streamed, err := ask(p, tt.stream)
			var bad *llm.MalformedError
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want a malformed answer saying %q", err, tt.want)
			}
			if msg := err.Error(); len(msg) > 400 || strings.Contains(msg, "sdkHttpResponse") || strings.Contains(msg, "Content-Type") {
				t.Errorf("the error dumps the answer: %s", msg)
			}
			if tt.reply.DoubleStart && streamed != "Once only." {
				t.Errorf("streamed %q, want the text once", streamed)
			}
		})
	}
}

// TestStreamCutBeforeTextIsRetried: a stream that closes before any text
// is tried again, as an overloaded_error at that point is.
func TestStreamCutBeforeTextIsRetried(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		provider llmtest.Provider
		cut      llmtest.Reply
	}{
		{llmtest.Claude, llmtest.Reply{Text: "lost", CutAfter: 2}}, // message_start, ping
		{llmtest.Gemini, llmtest.Reply{CutAfter: -1}},              // headers, then nothing
		{llmtest.OpenAI, llmtest.Reply{Text: "lost", CutAfter: 1}}, // the role, no text
	} {
		t.Run(string(tt.provider), func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(tt.provider, testKey, tt.cut, llmtest.Reply{Text: "Whole."})
			defer srv.Close()
			var n notices
			p := provider(t, srv, llm.ClientOptions{Retry: fastRetry}, &n)
			answer, streamed, err := ask(p, true)
			if err != nil || answer != "Whole." || streamed != "Whole." {
				t.Fatalf("answer %q, streamed %q, error %v", answer, streamed, err)
			}
			if got := n.all(); len(got) != 1 || !strings.Contains(got[0], "the stream ended before the answer did") {
				t.Errorf("notices %q, want one saying the stream was cut", got)
			}
		})
	}
}

// TestErrorsKeepTheText: a provider's message (a proxy's raw body) is
// kept in the error as it was, on one line: a record keeps it so, and
// what prints it on a terminal escapes it there, once.
func TestErrorsKeepTheText(t *testing.T) {
	t.Parallel()
	for _, p := range []llmtest.Provider{llmtest.Claude, llmtest.Gemini, llmtest.OpenAI} {
		t.Run(string(p), func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(p, testKey, llmtest.Reply{Status: 400, Error: "bad \x1b[2J\x1b]0;pwned\x07 request\nsecond line"})
			defer srv.Close()
			_, _, err := ask(provider(t, srv, llm.ClientOptions{Retry: fastRetry}, nil), false)
			if err == nil {
				t.Fatal("no error")
			}
			if msg := err.Error(); !strings.Contains(msg, "bad \x1b[2J\x1b]0;pwned\x07 request second line") {
				t.Errorf("error %q, want the provider's text as it was, on one line", msg)
			}
		})
	}
}

func TestOneLine(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":                   "plain",
		"two\nlines\r\n":          "two lines  ",
		"\x1b[31mred\x1b[0m":      "\x1b[31mred\x1b[0m",
		"bad utf-8 \xff\xfe":      "bad utf-8 \xff\xfe",
		"é and 日本":                "é and 日本",
		"\u2028sep\u2029":         " sep ",
		strings.Repeat("a", 1200): strings.Repeat("a", 1000) + "…",
	} {
		if got := llm.OneLine(in); got != want {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRefusedConnection: a connection refused outright is retried, each
// retry told, and fails with the URL it tried.
func TestRefusedConnection(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		provider llmtest.Provider
		path     string
	}{
		{llmtest.Claude, "/v1/messages"},
		{llmtest.Gemini, "/v1beta/models/gemini-test:streamGenerateContent"},
		{llmtest.OpenAI, "/v1/chat/completions"},
	} {
		t.Run(string(tt.provider), func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(tt.provider, testKey)
			srv.Close() // nothing listens there now
			var n notices
			p := provider(t, srv, llm.ClientOptions{Retry: fastRetry}, &n)
			_, _, err := ask(p, false)
			want := string(tt.provider) + ": POST " + srv.URL + tt.path + ": "
			var re *llm.RequestError
			if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "refused") ||
				!strings.HasSuffix(err.Error(), "(after 2 retries)") {
				t.Fatalf("error %v, want %q, the refusal and the retries", err, want)
			}
			got := n.all()
			if len(got) != 2 || !strings.HasPrefix(got[0], string(tt.provider)+": ") || !strings.Contains(got[0], "refused") || !strings.Contains(got[1], "retry 2 of 2") {
				t.Errorf("notices %q, want two retries told", got)
			}
		})
	}
}

// TestErrorBodyNotJSON: an error that is not the API's — a proxy's empty
// 404, an HTML page — is shown with the URL, the status and the first
// bytes of the body, printable; a 5xx one is retried first, and each
// retry says what came.
func TestErrorBodyNotJSON(t *testing.T) {
	t.Parallel()
	page := "<html><head><title>502 Bad Gateway</title></head>\n<body>\x1b[2J" + strings.Repeat("nginx ", 100) + "</body></html>"
	for _, tt := range []struct {
		name    string
		reply   llmtest.Reply
		want    string
		retries int
	}{
		{"empty 404", llmtest.Reply{Status: 404, ProxyError: true},
			"404 Not Found with an empty body (is the base URL the API's address?)", 0},
		{"html 502", llmtest.Reply{Status: 502, ProxyError: true, Error: page},
			"502 Bad Gateway with a body that is not the API's (not JSON): <html><head><title>502 Bad Gateway</title></head> <body>\x1b[2Jnginx nginx", 2},
	} {
		for _, prov := range []llmtest.Provider{llmtest.Claude, llmtest.Gemini, llmtest.OpenAI} {
			t.Run(string(prov)+" "+tt.name, func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(prov, testKey, tt.reply, tt.reply, tt.reply)
				defer srv.Close()
				var n notices
				p := provider(t, srv, llm.ClientOptions{Retry: fastRetry}, &n)
				_, _, err := ask(p, false)
				var re *llm.RequestError
				if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), string(prov)+": POST "+srv.URL+"/") || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v\nwant it to name the URL and say %q", err, tt.want)
				}
				if len(err.Error()) > 600 {
					t.Errorf("error of %d bytes: the body is shown whole", len(err.Error()))
				}
				got := n.all()
				if len(got) != tt.retries {
					t.Fatalf("notices %q, want %d", got, tt.retries)
				}
				for _, line := range got {
					if !strings.Contains(line, "502 from "+srv.URL+"/") || !strings.Contains(line, ": <html><head><title>502 Bad Gateway") || strings.ContainsRune(line, 0x1b) {
						t.Errorf("notice %q, want the status, the URL and the page's first bytes, printable", line)
					}
				}
			})
		}
	}
}

// TestEventCapIsExact: an event of exactly MaxEvent bytes (its line
// breaks not counted) is read, and one byte more is refused, though the
// whole event, and the blank line that ends it, come in one read.
func TestEventCapIsExact(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("a", 1000)
	for _, tt := range []struct {
		provider llmtest.Provider
		// event is the largest event, ends the stream of events.
		event, rest string
	}{
		{llmtest.OpenAI,
			`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"` + pad + `"},"finish_reason":null}]}`,
			"\n\n" + `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n"},
		{llmtest.Gemini,
			`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"` + pad + `"}]},"finishReason":"STOP"}]}`,
			"\r\n\r\n"},
	} {
		for _, over := range []int64{0, 1} {
			t.Run(fmt.Sprintf("%s %d over", tt.provider, over), func(t *testing.T) {
				t.Parallel()
				srv := llmtest.NewServer(tt.provider, testKey, llmtest.Reply{Raw: tt.event + tt.rest})
				defer srv.Close()
				limit := int64(len(tt.event)) - over
				p := provider(t, srv, llm.ClientOptions{MaxEvent: limit, Retry: fastRetry}, nil)
				answer, _, err := ask(p, true)
				if over == 0 {
					if err != nil || answer != pad {
						t.Fatalf("an event of exactly the cap: answer of %d bytes, error %v", len(answer), err)
					}
					return
				}
				var tl *llm.TooLargeError
				if !errors.As(err, &tl) || tl.Limit != limit {
					t.Fatalf("an event one byte over the cap: error %v, want it too large", err)
				}
			})
		}
	}
}

// TestDeadline: an answer that trickles a byte at a time for ever is
// never idle; its deadline ends it, with an error that says so, and it is
// not tried again. The deadline is short here and the trickle endless, so
// that nothing but the deadline can end it, however loaded the machine.
func TestDeadline(t *testing.T) {
	t.Parallel()
	for _, p := range []llmtest.Provider{llmtest.Claude, llmtest.Gemini, llmtest.OpenAI} {
		for _, whole := range []bool{false, true} {
			name := string(p) + " stream"
			if whole {
				name = string(p) + " body" // a server that ignores "stream": true
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				trickle := llmtest.Reply{Endless: true, Trickle: llmtest.Duration(time.Millisecond), Unstreamed: whole}
				srv := llmtest.NewServer(p, testKey, trickle, llmtest.Reply{Text: "never"})
				defer srv.Close()
				prov := provider(t, srv, llm.ClientOptions{Deadline: 50 * time.Millisecond, Retry: fastRetry}, nil)
				_, _, err := ask(prov, true)
				var late *llm.DeadlineError
				if !errors.As(err, &late) || !strings.Contains(err.Error(), string(p)+": the API did not finish answering within 50ms (the API timeout)") {
					t.Fatalf("error %v, want the deadline's", err)
				}
				// A loaded machine may take the whole deadline to send the
				// request: the error is the same.
				switch n := len(srv.Requests()); {
				case n > 1:
					t.Errorf("%d requests, want 1: an answer cut by its deadline is not retried", n)
				case n == 1 && !srv.WaitCancelled(nil, 0):
					t.Error("the trickle was not given up")
				}
			})
		}
	}
}

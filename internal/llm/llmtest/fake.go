// Package llmtest holds fake Gemini, Claude and OpenAI servers for tests,
// speaking each provider's REST wire format.
//
// They are httptest servers that speak each provider's REST wire
// format (non-streaming and SSE streaming), answer from a script of
// replies, refuse what the real APIs refuse, misbehave on demand (see
// Reply), and record every request body so that a test can check what the
// real SDK clients sent. They play the batch APIs (Claude's Message
// Batches, Gemini's Batch Mode) and Gemini's Files API too. The tests of
// each provider's client share their scaffolding here too (kit.go).
package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/kesoku/kesoku/message"
)

// Provider names a wire format.
type Provider string

// The providers a fake can speak.
const (
	Gemini Provider = "gemini"
	Claude Provider = "claude"
	// OpenAI is the Chat Completions API, as OpenAI and the servers that
	// speak it (Ollama, vLLM, LM Studio, llama.cpp) serve it.
	OpenAI Provider = "openai"
)

// Call is a tool call the fake model makes.
type Call struct {
	// ID is the call id. Gemini may leave it out (the model does at times);
	// Claude always has one, so the fake makes one up when it is empty.
	ID   string         `json:"id,omitempty" yaml:"id"`
	Name string         `json:"name" yaml:"name"`
	Args map[string]any `json:"args,omitempty" yaml:"args"`
	// ThoughtSignature is the base64 Gemini thoughtSignature on the call's
	// part; real models put one on the first call of a turn.
	ThoughtSignature string `json:"thought_signature,omitempty" yaml:"thought_signature"`
	// RawArgs, when set, is the arguments' JSON text as sent, in place of
	// Args: an array for Gemini, or for a Claude stream text that is no
	// JSON object once joined ({"a":2}{"b":3}, or cut off).
	RawArgs string `json:"raw_args,omitempty" yaml:"raw_args"`
	// Index, when set, is the index an OpenAI stream sends the call's
	// deltas at, in place of its place in Calls: calls listed out of the
	// order of their indexes arrive so (index 1 before index 0), and
	// indexes may leave gaps (0 and 2), as servers that stream parallel
	// calls at once send them.
	Index *int `json:"index,omitempty" yaml:"index"`
}

// Reply is one scripted answer: a model turn (Text and Calls), or an error
// (Status of 400 and above, with the provider's own message in Error).
type Reply struct {
	Text  string `json:"text,omitempty" yaml:"text"`
	Calls []Call `json:"calls,omitempty" yaml:"calls"`
	// ThoughtSignature is a Gemini thoughtSignature sent with the text. When
	// streaming it arrives in a last chunk of its own with empty text, as
	// real models send it.
	ThoughtSignature string `json:"thought_signature,omitempty" yaml:"thought_signature"`
	// StopReason overrides the stop reason (Claude) or finish reason
	// (Gemini) that follows from the reply.
	StopReason string `json:"stop_reason,omitempty" yaml:"stop_reason"`

	// Status, when 400 or more, makes the reply an error with the
	// provider's error body carrying Error as its message.
	Status int    `json:"status,omitempty" yaml:"status"`
	Error  string `json:"error,omitempty" yaml:"error"`
	// ProxyError sends the error as a proxy or a web server would: Error
	// as the body, as text/html, not the provider's JSON. An empty Error
	// is an empty body.
	ProxyError bool `json:"proxy_error,omitempty" yaml:"proxy_error"`
	// Headers are added to the response (retry-after-ms, say).
	Headers map[string]string `json:"headers,omitempty" yaml:"headers"`
	// StreamError, when set, is the type of an error that comes inside a
	// streamed answer already begun (status 200), as Claude reports being
	// overloaded mid-stream: message_start, then an error event of this
	// type ("overloaded_error") with Error as its message. A plain
	// request, and Gemini, get the error with the status of its type
	// instead (529 for overloaded_error).
	StreamError string `json:"stream_error,omitempty" yaml:"stream_error"`

	// Delay holds the answer back: the model "thinks". A streamed reply
	// sends its headers first. A client that gives up ends the wait.
	Delay Duration `json:"delay,omitempty" yaml:"delay"`

	// The misbehaviours of real servers and proxies.

	// Raw, when set, is the whole answer, sent as it is with status 200:
	// a JSON body ("null") for a plain request, the event stream for a
	// streamed one. With a Status of 400 and above, it is the error body,
	// as JSON (a compatible server's own shape of error).
	Raw string `json:"raw,omitempty" yaml:"raw"`
	// Endless makes the answer never end: a plain body that grows for
	// ever, or a stream's first event that never closes; until the client
	// gives up.
	Endless bool `json:"endless,omitempty" yaml:"endless"`
	// Trickle, with Endless, sends the answer that never ends a byte at
	// a time, one every Trickle: a body that is never idle, and never
	// ends, until the client gives up.
	Trickle Duration `json:"trickle,omitempty" yaml:"trickle"`
	// Stall makes the server go quiet for ever, until the client gives up:
	// a plain request gets nothing, not even headers; a stream gets its
	// events up to the first text (or call) and then nothing.
	Stall bool `json:"stall,omitempty" yaml:"stall"`
	// Hang makes the server accept the request and send nothing at all,
	// not even headers, until the client gives up.
	Hang bool `json:"hang,omitempty" yaml:"hang"`
	// CutAfter, when above 0, closes a stream's connection after that many
	// events, without an error: a proxy that drops it. Below 0, it closes
	// it at once, after the headers.
	CutAfter int `json:"cut_after,omitempty" yaml:"cut_after"`
	// DoubleStart makes a Claude stream send a second message_start after
	// its text, and the text again, as a broken proxy replaying the
	// stream does.
	DoubleStart bool `json:"double_start,omitempty" yaml:"double_start"`
	// NoFinish leaves out Gemini's finishReason: a stream that ends
	// without saying why.
	NoFinish bool `json:"no_finish,omitempty" yaml:"no_finish"`
	// InterleaveCalls sends the deltas of an OpenAI stream's calls in
	// turn: the first delta of each call, then the first piece of each
	// one's arguments, then the second; not one call after another.
	InterleaveCalls bool `json:"interleave_calls,omitempty" yaml:"interleave_calls"`
	// NoUsage leaves the usage out of an OpenAI stream even when it was
	// asked for (stream_options.include_usage), as servers that speak
	// its API without all of it do.
	NoUsage bool `json:"no_usage,omitempty" yaml:"no_usage"`
	// Unstreamed answers a request that asked for a stream with the whole
	// answer as JSON (Raw, when set, as it is), as servers that ignore
	// "stream": true do.
	Unstreamed bool `json:"unstreamed,omitempty" yaml:"unstreamed"`
	// Thought is a Gemini thought summary sent before the text.
	Thought string `json:"thought,omitempty" yaml:"thought"`
	// Usage, when set, is what the fake reports the request cost, in
	// kesoku's terms (input counts every token sent, the cached ones
	// too); each wire format reports it in its own. When not set, the
	// fake counts a token for every four bytes of the request and of the
	// answer, and the Claude fake works out its prompt cache (cache.go).
	Usage *message.Usage `json:"usage,omitempty" yaml:"usage"`

	// BatchResult, for a request of a Claude batch, is its result type
	// when it is not answered: expired or canceled.
	BatchResult string `json:"batch_result,omitempty" yaml:"batch_result"`
}

// Duration is a time.Duration written as Go writes it ("300ms", "2s") in
// scenario files.
type Duration time.Duration

// UnmarshalText parses a Go duration.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as Go does.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Request is one request the fake received.
type Request struct {
	Method string `json:"method"`
	// Path is the URL path, Query its raw query.
	Path  string `json:"path"`
	Query string `json:"query,omitempty"`
	// Stream says the client asked for a streamed (SSE) answer.
	Stream bool `json:"stream"`
	// Body is the request body as sent (JSON).
	Body json.RawMessage `json:"body"`
	// AuthHeader names the header the key came in (never its value).
	AuthHeader string `json:"auth_header,omitempty"`
	// Header holds the request's headers other than those carrying the key.
	Header http.Header `json:"-"`
	// Cancelled says the client gave up before the answer was complete.
	Cancelled bool `json:"cancelled,omitempty"`
	// Done says the fake has finished answering it (or giving up on it).
	Done bool `json:"-"`
	// Quiet says the fake is holding its answer back (a Delay, a Stall):
	// it sends nothing more until the delay ends or the client gives up.
	Quiet bool `json:"-"`
	// Refusal is the message of the error the fake answered with because
	// the real API refuses such a request ("" when it was accepted).
	Refusal string `json:"refusal,omitempty"`
}

// Server is a fake provider. Its zero value is not usable; call NewServer.
type Server struct {
	*httptest.Server

	provider Provider
	// key is the API key the fake accepts; any non-empty key when "".
	key string
	// noKey makes the fake take requests without a key, as a server of
	// one's own does (Ollama).
	noKey bool

	// files is the fake Gemini Files API (files.go).
	files fileStore
	// batches are the batch APIs' batches (batch.go).
	batches batchStore
	// cache is the fake Claude prompt cache (cache.go).
	cache promptCache

	mu       sync.Mutex
	replies  []Reply
	served   int
	requests []*Request
	// limit is the largest request body accepted; the provider's own when 0.
	limit int
	// changed is closed, and replaced, whenever a request arrives or is
	// given up: what WaitRequests and WaitCancelled wait on.
	changed chan struct{}
}

// NewServer starts a fake provider that answers with replies, in order.
// A request beyond the script gets a 400 error saying so. key is the API
// key it accepts ("" for any non-empty one); a request with another key
// gets the provider's authentication error. Close the server when done.
func NewServer(p Provider, key string, replies ...Reply) *Server {
	s := &Server{provider: p, key: key, replies: replies, changed: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// AllowNoKey makes the fake take requests that carry no key, as a server
// of one's own (Ollama, vLLM) does; a key that is given must still be
// the one it accepts.
func (s *Server) AllowNoKey() {
	s.mu.Lock()
	s.noKey = true
	s.mu.Unlock()
}

// BaseURL is the URL a client of the fake is given as its base URL: the
// server's, and for OpenAI under /v1, as the servers that speak its API
// are reached (http://localhost:11434/v1 for Ollama).
func (s *Server) BaseURL() string {
	if s.provider == OpenAI {
		return s.URL + "/v1"
	}
	return s.URL
}

// Add appends replies to the script.
func (s *Server) Add(replies ...Reply) {
	s.mu.Lock()
	s.replies = append(s.replies, replies...)
	s.mu.Unlock()
}

// SetRequestLimit sets the largest request body the fake accepts, in
// place of the provider's own (ClaudeMaxRequest, GeminiMaxRequest): a
// larger one gets the refusal the real API gives.
func (s *Server) SetRequestLimit(n int) {
	s.mu.Lock()
	s.limit = n
	s.mu.Unlock()
}

// WaitRequests waits until the fake has received n model requests, or
// done is closed; it reports whether they came.
func (s *Server) WaitRequests(done <-chan struct{}, n int) bool {
	return s.waitFor(done, func() bool { return len(s.requests) >= n })
}

// WaitCancelled waits until the client has given up request i (0-based),
// or the fake has answered it whole, or done is closed; it reports
// whether the client gave up.
func (s *Server) WaitCancelled(done <-chan struct{}, i int) bool {
	s.waitFor(done, func() bool { return i < len(s.requests) && s.requests[i].Done })
	s.mu.Lock()
	defer s.mu.Unlock()
	return i < len(s.requests) && s.requests[i].Cancelled
}

// WaitQuiet waits until the fake holds back its answer to request i
// (0-based) — it is in a Delay or a Stall, and sends nothing more until
// the client gives up — or done is closed; it reports whether it did. A
// test that makes the client's idle timer fire only then does not depend
// on how fast a loaded machine answers.
func (s *Server) WaitQuiet(done <-chan struct{}, i int) bool {
	return s.waitFor(done, func() bool { return i < len(s.requests) && s.requests[i].Quiet })
}

// waitFor waits until cond, called with s.mu held, holds.
func (s *Server) waitFor(done <-chan struct{}, cond func() bool) bool {
	for {
		s.mu.Lock()
		ok, changed := cond(), s.changed
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-changed:
		case <-done:
			return false
		}
	}
}

// signal wakes the waiters of WaitRequests and WaitCancelled; s.mu is
// held.
func (s *Server) signal() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Requests returns a copy of every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = *r
	}
	return out
}

// Bodies returns every request body received so far, decoded, in order.
func (s *Server) Bodies() []map[string]any {
	var out []map[string]any
	for _, r := range s.Requests() {
		var m map[string]any
		if err := json.Unmarshal(r.Body, &m); err != nil {
			m = map[string]any{"undecodable": string(r.Body)}
		}
		out = append(out, m)
	}
	return out
}

// Provider is the wire format the fake speaks.
func (s *Server) Provider() Provider { return s.provider }

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if s.serveBatches(w, r) {
		return
	}
	if s.provider == Gemini && s.serveFiles(w, r) {
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: body, Header: r.Header.Clone()}
	key := s.takeKey(req)
	if q := r.URL.Query(); key == "" && q.Get("key") != "" {
		// The old Gemini SDK sent the key in the query.
		key, req.AuthHeader = q.Get("key"), "query"
		q.Del("key")
		req.Query = q.Encode()
	}

	var wire wireFormat
	switch s.provider {
	case Gemini:
		wire = geminiWire{}
	case Claude:
		wire = claudeWire{}
	case OpenAI:
		wire = openAIWire{}
	default:
		http.Error(w, "fake: unknown provider "+string(s.provider), http.StatusInternalServerError)
		return
	}
	model, stream, err := wire.parse(r, body)
	req.Stream = stream

	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.signal()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		req.Done = true
		s.signal()
		s.mu.Unlock()
	}()

	if err != nil {
		wire.writeError(w, http.StatusNotFound, err.Error())
		return
	}
	if !json.Valid(body) {
		wire.writeError(w, http.StatusBadRequest, "fake: request body is not JSON")
		return
	}
	s.mu.Lock()
	noKey := s.noKey
	s.mu.Unlock()
	if (key == "" && !noKey) || (key != "" && s.key != "" && key != s.key) {
		wire.writeError(w, http.StatusUnauthorized, "fake: API key not valid. Please pass a valid API key.")
		return
	}
	s.mu.Lock()
	limit := s.limit
	s.mu.Unlock()
	if ref := wire.check(body, limit); ref != nil {
		s.mu.Lock()
		req.Refusal = ref.msg
		s.mu.Unlock()
		wire.writeError(w, ref.status, ref.msg)
		return
	}

	s.mu.Lock()
	n := s.served
	s.served++
	var reply Reply
	ok := n < len(s.replies)
	if ok {
		reply = s.replies[n]
	}
	s.mu.Unlock()
	if !ok {
		wire.writeError(w, http.StatusBadRequest, fmt.Sprintf("fake %s: no scripted reply left for request %d", s.provider, n+1))
		return
	}

	for k, v := range reply.Headers {
		w.Header().Set(k, v)
	}
	if reply.StreamError != "" && (!stream || s.provider == Gemini) {
		reply.Status = statusOf(reply.StreamError)
	}
	if reply.Status >= 400 {
		if !s.wait(r, req, reply.Delay) {
			return
		}
		if reply.Raw != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(reply.Status)
			io.WriteString(w, reply.Raw)
			return
		}
		if reply.ProxyError {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(reply.Status)
			io.WriteString(w, reply.Error)
			return
		}
		wire.writeError(w, reply.Status, reply.Error)
		return
	}
	if reply.Hang {
		s.wait(r, req, forever)
		return
	}
	t := &turn{Reply: reply, model: model, n: n + 1, usage: wire.usage(s, body, reply), includeUsage: includeUsage(body)}
	if reply.Usage != nil {
		t.usage = *reply.Usage
	}
	if !stream || reply.Unstreamed {
		if !s.wait(r, req, reply.Delay) {
			return
		}
		if reply.Stall {
			s.wait(r, req, forever)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case reply.Raw != "":
			io.WriteString(w, reply.Raw)
		case reply.Endless:
			s.endless(w, r, req, `{"id":"msg_endless","type":"message","role":"assistant","content":[{"type":"text","text":"`, reply.Trickle)
		default:
			w.Write(wire.message(t))
		}
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush(w)
	if !s.wait(r, req, reply.Delay) {
		return
	}
	events := wire.events(t)
	switch {
	case reply.Raw != "":
		events = [][]byte{[]byte(reply.Raw)}
	case reply.Endless:
		s.endless(w, r, req, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"`, reply.Trickle)
		return
	}
	if reply.CutAfter < 0 {
		return
	}
	for i, ev := range events {
		if reply.CutAfter > 0 && i == reply.CutAfter {
			return
		}
		if _, err := w.Write(ev); err != nil {
			s.cancelled(req)
			return
		}
		flush(w)
		if reply.Stall {
			s.wait(r, req, forever)
			return
		}
	}
}

// forever is a wait that only the client ends.
const forever = Duration(1<<63 - 1)

// endless writes head and then text for ever, until the client gives up:
// as fast as it is read, or, with trickle, a byte every trickle.
func (s *Server) endless(w http.ResponseWriter, r *http.Request, req *Request, head string, trickle Duration) {
	if _, err := io.WriteString(w, head); err != nil {
		s.cancelled(req)
		return
	}
	if trickle > 0 {
		flush(w)
		s.trickle(w, r, "a", trickle)
		s.cancelled(req)
		return
	}
	chunk := bytes.Repeat([]byte("a"), 64<<10)
	for r.Context().Err() == nil {
		if _, err := w.Write(chunk); err != nil {
			break
		}
		flush(w)
	}
	s.cancelled(req)
}

// trickle writes b, one byte every d, for ever, until the client gives
// up.
func (s *Server) trickle(w http.ResponseWriter, r *http.Request, b string, d Duration) {
	t := time.NewTicker(time.Duration(d))
	defer t.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
		if _, err := io.WriteString(w, b); err != nil {
			return
		}
		flush(w)
	}
}

// takeKey removes the key from the recorded headers and returns it, so
// that a test dumping requests can never write it.
func (s *Server) takeKey(req *Request) string {
	for _, h := range []string{"X-Goog-Api-Key", "X-Api-Key", "Authorization"} {
		v := req.Header.Get(h)
		if v == "" {
			continue
		}
		req.Header.Del(h)
		if req.AuthHeader == "" {
			req.AuthHeader = strings.ToLower(h)
			if h == "Authorization" {
				v = strings.TrimPrefix(v, "Bearer ")
			}
			return v
		}
	}
	return ""
}

// wait holds the answer back for d, and reports false when the client gave
// up first.
func (s *Server) wait(r *http.Request, req *Request, d Duration) bool {
	if d <= 0 {
		return true
	}
	s.setQuiet(req, true)
	defer s.setQuiet(req, false)
	t := time.NewTimer(time.Duration(d))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		s.cancelled(req)
		return false
	}
}

func (s *Server) setQuiet(req *Request, quiet bool) {
	s.mu.Lock()
	req.Quiet = quiet
	s.signal()
	s.mu.Unlock()
}

func (s *Server) cancelled(req *Request) {
	s.mu.Lock()
	req.Cancelled = true
	s.signal()
	s.mu.Unlock()
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// turn is a reply being written: the reply, the model asked for, the
// request's number (for ids) and what it cost.
type turn struct {
	Reply
	model string
	n     int
	usage message.Usage
	// includeUsage says an OpenAI stream was asked to end with its usage
	// (stream_options.include_usage); without it, it reports none.
	includeUsage bool
}

func includeUsage(body []byte) bool {
	var req struct {
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	json.Unmarshal(body, &req)
	return req.StreamOptions.IncludeUsage
}

// tokens is the fake's count of the tokens of n bytes: one for every
// four, as a rule of thumb for English text.
func tokens(n int) int64 { return int64(n+3) / 4 }

// outputTokens is what the fake counts for the answer a reply writes.
func (r Reply) outputTokens() int64 {
	n := len(r.Text) + len(r.Thought)
	for _, c := range r.Calls {
		n += len(c.Name) + len(c.RawArgs) + len(mustJSON(c.Args))
	}
	return max(1, tokens(n))
}

// wireFormat is one provider's REST format.
type wireFormat interface {
	// parse checks the request's path and returns the model and whether a
	// stream was asked for.
	parse(r *http.Request, body []byte) (model string, stream bool, err error)
	// message is the whole answer of a non-streamed request.
	message(t *turn) []byte
	// events are the SSE events of a streamed answer, each ending in a
	// blank line.
	events(t *turn) [][]byte
	writeError(w http.ResponseWriter, status int, msg string)
	// check refuses a request the real API refuses; limit is the largest
	// body accepted, the provider's own when 0.
	check(body []byte, limit int) *refusal
	// usage is what a request to s costs, as the fake counts it.
	usage(s *Server, body []byte, reply Reply) message.Usage
}

// chunks splits text into a few pieces at spaces, so that a streamed reply
// arrives in more than one event.
func chunks(text string) []string {
	if text == "" {
		return nil
	}
	words := strings.SplitAfter(text, " ")
	size := max(1, (len(words)+2)/3)
	var out []string
	for i := 0; i < len(words); i += size {
		out = append(out, strings.Join(words[i:min(i+size, len(words))], ""))
	}
	return out
}

func mustJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

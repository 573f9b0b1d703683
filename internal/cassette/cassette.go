// Package cassette records a model's HTTP traffic to a file and plays it
// back.
//
// A session, an analyze or a batch is reproduced with no key and no
// network. A Cassette is an http.RoundTripper that sits under the one
// Transport of every provider's requests, so that the SDKs, the retries
// and the parsing of streams run exactly as they do against the API.
//
// A cassette is JSON Lines: a header ({"kesoku_cassette":1,"provider":…,
// "model":…}), then one exchange a line, in the order the answers came:
// the request (method, path, query, body) and the response (status, the
// headers that change what a client does, the body; a stream as its
// events). No secret is written: no header that carries a key is kept,
// a key in the query is dropped, and the key's value is replaced wherever
// else it appears.
//
// Replay opens no connection. Requests are matched in order, after
// normalizing what changes from one run to the next (UUIDs, timestamps,
// the call ids kesoku makes up, the order of JSON keys); requests sent at
// once (tool calls that ask the model concurrently) may come in any order
// among themselves. A request that matches none is refused with a
// *MismatchError that says which request, where in its JSON and what
// differs, and is never retried.
//
// Why not gopkg.in/dnaeon/go-vcr.v4 (v4.0.8, read for this): its recorder
// reads a response body whole (io.ReadAll) before handing it on, so a
// stream being recorded reaches the SDK only at its end, past the idle
// timeout that watches it, and is stored as one string rather than its
// events; its matcher is a predicate per interaction with no order and no
// account of what differs ("requested interaction not found"); it keeps
// every header (Authorization among them) unless a hook removes it; and it
// writes YAML at Stop, so a run that dies records nothing. Each is the
// heart of what kesoku needs, and a recorder that does them is smaller
// than the adapters go-vcr would need.
package cassette

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Mode says whether a cassette records or replays.
type Mode string

// The modes. Auto replays when the file exists and records otherwise.
const (
	Auto   Mode = "auto"
	Record Mode = "record"
	Replay Mode = "replay"
)

// Modes are the modes' names, as --cassette-mode takes them.
var Modes = []string{string(Record), string(Replay), string(Auto)}

// ParseMode is the mode named s; "" is Auto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(s)); m {
	case "":
		return Auto, nil
	case Auto, Record, Replay:
		return m, nil
	}
	return "", &ModeError{Name: s}
}

// ModeError says a mode has no such name.
type ModeError struct{ Name string }

func (e *ModeError) Error() string {
	return fmt.Sprintf("cassette mode %q: want record, replay or auto", e.Name)
}

// Version is the version of the format a cassette's header names.
const Version = 1

// Header is a cassette's first line: the model its traffic was with.
type Header struct {
	Cassette int    `json:"kesoku_cassette"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// Exchange is one request and what came of it: a response, or an error
// before any (a connection refused).
type Exchange struct {
	Request  Request   `json:"request"`
	Response *Response `json:"response,omitempty"`
	Error    string    `json:"error,omitempty"`
}

// Request is a request as recorded: its body as JSON when it is JSON,
// as text when it is other text of at most maxTextBody bytes, else by
// its SHA-256 and size (a file's bytes, uploaded).
type Request struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Query  string          `json:"query,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
	Text   *string         `json:"text,omitempty"`
	SHA256 string          `json:"sha256,omitempty"`
	Size   int             `json:"size,omitempty"`
}

// Response is a response as recorded: a stream (text/event-stream) as its
// events, a JSON body as JSON, other text as text, other bytes in base64.
// Cut says the body broke off where it ends.
type Response struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header,omitempty"`
	Body   json.RawMessage   `json:"body,omitempty"`
	Text   *string           `json:"text,omitempty"`
	Base64 string            `json:"base64,omitempty"`
	Events []Event           `json:"events,omitempty"`
	Cut    bool              `json:"cut,omitempty"`
}

// Event is one server-sent event: its name, and its data as JSON, or as
// text when it is not JSON (OpenAI's "[DONE]").
type Event struct {
	Event string          `json:"event,omitempty"`
	Data  json.RawMessage `json:"data,omitempty"`
	Text  *string         `json:"text,omitempty"`
}

// maxTextBody bounds a request body kept as text; a larger one is kept
// by its digest.
const maxTextBody = 64 << 10

// keptHeaders are the response headers a client acts on: the type of the
// body (a stream or not), the waits a server asks for, and Gemini's
// upload protocol. Every other header is left out, and with them any
// that could carry a secret.
var keptHeaders = []string{"Content-Type", "Retry-After", "Retry-After-Ms", "X-Should-Retry"}

func keptHeader(name string) bool {
	name = http.CanonicalHeaderKey(name)
	for _, h := range keptHeaders {
		if h == name {
			return true
		}
	}
	return strings.HasPrefix(name, "X-Goog-Upload-")
}

// secretParams are the query parameters that carry a key (Gemini's old
// clients sent ?key=): dropped from what is recorded and matched.
var secretParams = []string{"key", "api_key", "api-key", "apikey", "access_token"}

// Cassette is a cassette file open for recording or replaying. It is an
// http.RoundTripper; it is safe for concurrent use.
type Cassette struct {
	path string
	mode Mode
	// base sends what is recorded; nil means http.DefaultTransport.
	base http.RoundTripper

	mu      sync.Mutex
	header  Header
	secrets []string
	// file is where records go, created at the header.
	file *os.File
	// played is the exchanges replayed, used the ones answered already,
	// sent how many requests came.
	played []Exchange
	used   []bool
	sent   int
	err    error
}

// Open opens the cassette at path in mode: Auto replays it when it
// exists and records it otherwise. A cassette to replay is read whole
// now, and every mistake in it is an error (with its line); one to record
// is created when its first client is made, so that a command refused
// before it talks to a model leaves no empty cassette behind.
func Open(path string, mode Mode) (*Cassette, error) {
	if mode == "" {
		mode = Auto
	}
	if mode == Auto {
		mode = Record
		if _, err := os.Stat(path); err == nil {
			mode = Replay
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cassette %s: %w", path, err)
		}
	}
	c := &Cassette{path: path, mode: mode}
	if mode == Replay {
		if err := c.load(); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Path is the cassette's file.
func (c *Cassette) Path() string { return c.path }

// Replaying reports whether the cassette answers requests itself: no key,
// no endpoint and no connection are needed.
func (c *Cassette) Replaying() bool { return c != nil && c.mode == Replay }

// Header is the cassette's header: what was recorded with, when
// replaying; what is being recorded, once a client was made.
func (c *Cassette) Header() Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.header
}

// Unplayed is how many recorded exchanges no request asked for yet.
func (c *Cassette) Unplayed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, u := range c.used {
		if !u {
			n++
		}
	}
	return n
}

// FormatError says a cassette's line is not what the format holds.
type FormatError struct {
	Path string
	Line int
	Err  error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("cassette %s:%d: %v", e.Path, e.Line, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

func (c *Cassette) load() error {
	f, err := os.Open(c.path)
	if err != nil {
		return fmt.Errorf("cassette: %w", err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for line := 1; ; line++ {
		data, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(data)) > 0 {
			if perr := c.parse(line, data); perr != nil {
				return &FormatError{Path: c.path, Line: line, Err: perr}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("cassette %s: %w", c.path, err)
		}
	}
	if c.header.Cassette == 0 {
		return &FormatError{Path: c.path, Line: 1, Err: errors.New("empty: no header")}
	}
	c.used = make([]bool, len(c.played))
	return nil
}

func (c *Cassette) parse(line int, data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if c.header.Cassette == 0 {
		if line != 1 && len(c.played) == 0 {
			return errors.New("no header")
		}
		if err := dec.Decode(&c.header); err != nil {
			return fmt.Errorf("the header: %w", err)
		}
		if c.header.Cassette != Version {
			return fmt.Errorf("a cassette of version %d; kesoku reads version %d", c.header.Cassette, Version)
		}
		return nil
	}
	var x Exchange
	if err := dec.Decode(&x); err != nil {
		return err
	}
	if x.Response == nil && x.Error == "" {
		return errors.New("an exchange with neither a response nor an error")
	}
	c.played = append(c.played, x)
	return nil
}

// Transport is the cassette as the transport of a client of provider's
// model, which sends base (nil for http.DefaultTransport) what it
// records. secrets are the values no cassette may hold: the key.
func (c *Cassette) Transport(provider, model string, base http.RoundTripper, secrets ...string) http.RoundTripper {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.base = base
	for _, s := range secrets {
		if s != "" {
			c.secrets = append(c.secrets, s)
		}
	}
	if c.mode == Record && c.header.Cassette == 0 {
		c.header = Header{Cassette: Version, Provider: provider, Model: model}
	}
	return c
}

// Close ends recording: the file is synced and closed.
func (c *Cassette) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		return c.err
	}
	err := c.file.Sync()
	if cerr := c.file.Close(); err == nil {
		err = cerr
	}
	c.file = nil
	if c.err != nil {
		return c.err
	}
	if err != nil {
		return fmt.Errorf("cassette %s: %w", c.path, err)
	}
	return nil
}

// RoundTrip records or replays one request.
func (c *Cassette) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	if c.mode == Replay {
		return c.replay(req, body)
	}
	return c.record(req, body)
}

func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

// requestOf is req as recorded.
func requestOf(req *http.Request, body []byte) Request {
	r := Request{Method: req.Method, Path: req.URL.Path, Query: cleanQuery(req.URL.Query())}
	switch {
	case len(body) == 0:
	case json.Valid(body):
		var b bytes.Buffer
		if json.Compact(&b, body) == nil {
			r.Body = b.Bytes()
		}
	case len(body) <= maxTextBody && utf8.Valid(body):
		s := string(body)
		r.Text = &s
	default:
		sum := sha256.Sum256(body)
		r.SHA256, r.Size = hex.EncodeToString(sum[:]), len(body)
	}
	return r
}

// cleanQuery is q without the parameters that carry a key.
func cleanQuery(q url.Values) string {
	for _, p := range secretParams {
		for k := range q {
			if strings.EqualFold(k, p) {
				delete(q, k)
			}
		}
	}
	return q.Encode()
}

func (c *Cassette) record(req *http.Request, body []byte) (*http.Response, error) {
	x := Exchange{Request: requestOf(req, body)}
	out := req.Clone(req.Context())
	if body != nil {
		out.Body = io.NopCloser(bytes.NewReader(body))
		out.ContentLength = int64(len(body))
	}
	c.mu.Lock()
	base := c.base
	c.mu.Unlock()
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(out)
	if err != nil {
		x.Error = err.Error()
		if werr := c.write(&x); werr != nil {
			return nil, werr
		}
		return nil, err
	}
	resp.Body = &tape{body: resp.Body, c: c, x: x, resp: resp}
	return resp, nil
}

// tape records a response body as the client reads it, and writes the
// exchange when the body ends: at its end, when it breaks, or when it is
// closed before either.
type tape struct {
	body io.ReadCloser
	c    *Cassette
	x    Exchange
	resp *http.Response
	buf  bytes.Buffer
	once sync.Once
	err  error
}

func (t *tape) Read(p []byte) (int, error) {
	n, err := t.body.Read(p)
	t.buf.Write(p[:n])
	if err != nil {
		cut := !errors.Is(err, io.EOF)
		if werr := t.done(cut); werr != nil {
			return n, werr
		}
	}
	return n, err
}

func (t *tape) Close() error {
	err := t.body.Close()
	if werr := t.done(false); werr != nil && err == nil {
		err = werr
	}
	return err
}

func (t *tape) done(cut bool) error {
	t.once.Do(func() {
		t.x.Response = responseOf(t.resp, t.buf.Bytes(), cut)
		t.err = t.c.write(&t.x)
	})
	return t.err
}

// responseOf is resp, whose body was data, as recorded.
func responseOf(resp *http.Response, data []byte, cut bool) *Response {
	r := &Response{Status: resp.StatusCode, Cut: cut}
	for name, v := range resp.Header {
		if keptHeader(name) && len(v) > 0 {
			if r.Header == nil {
				r.Header = map[string]string{}
			}
			r.Header[http.CanonicalHeaderKey(name)] = v[0]
		}
	}
	switch {
	case len(data) == 0:
	case isEventStream(resp.Header.Get("Content-Type")):
		r.Events = parseEvents(data)
	case json.Valid(data):
		var b bytes.Buffer
		if json.Compact(&b, data) == nil {
			r.Body = b.Bytes()
		}
	case utf8.Valid(data):
		s := string(data)
		r.Text = &s
	default:
		r.Base64 = base64.StdEncoding.EncodeToString(data)
	}
	return r
}

func isEventStream(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "text/event-stream")
}

// parseEvents splits a stream into its events: each event's name and
// data (its data lines joined by line breaks); comments and other fields
// are left out, as no provider's client reads them.
func parseEvents(data []byte) []Event {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	var events []Event
	for _, block := range strings.Split(text, "\n\n") {
		var name string
		var lines []string
		has := false
		for _, line := range strings.Split(block, "\n") {
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				name, has = value, true
			case "data":
				lines, has = append(lines, value), true
			}
		}
		if !has {
			continue
		}
		ev := Event{Event: name}
		d := strings.Join(lines, "\n")
		if json.Valid([]byte(d)) && !strings.Contains(d, "\n") {
			ev.Data = json.RawMessage(d)
		} else if lines != nil {
			ev.Text = &d
		}
		events = append(events, ev)
	}
	return events
}

// write appends x to the cassette, creating it with its header first,
// every secret replaced.
func (c *Cassette) write(x *Exchange) error {
	line, err := json.Marshal(x)
	if err != nil {
		return fmt.Errorf("cassette %s: %w", c.path, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return c.err
	}
	if c.file == nil {
		f, err := os.Create(c.path)
		if err != nil {
			c.err = fmt.Errorf("cassette: %w", err)
			return c.err
		}
		c.file = f
		head, _ := json.Marshal(c.header)
		if _, err := f.Write(append(c.scrub(head), '\n')); err != nil {
			c.err = fmt.Errorf("cassette %s: %w", c.path, err)
			return c.err
		}
	}
	if _, err := c.file.Write(append(c.scrub(line), '\n')); err != nil {
		c.err = fmt.Errorf("cassette %s: %w", c.path, err)
	}
	return c.err
}

// Redacted stands for a secret in a cassette.
const Redacted = "[redacted]"

// scrub is line with every secret replaced, as written and as JSON
// escapes it.
func (c *Cassette) scrub(line []byte) []byte {
	for _, s := range c.secrets {
		line = bytes.ReplaceAll(line, []byte(s), []byte(Redacted))
		q, _ := json.Marshal(s)
		if esc := q[1 : len(q)-1]; !bytes.Equal(esc, []byte(s)) {
			line = bytes.ReplaceAll(line, esc, []byte(Redacted))
		}
		if e := url.QueryEscape(s); e != s {
			line = bytes.ReplaceAll(line, []byte(e), []byte(Redacted))
		}
	}
	return line
}

// replay answers req from the cassette: the first exchange not yet
// played whose request is req's, trying the next one first.
func (c *Cassette) replay(req *http.Request, body []byte) (*http.Response, error) {
	now := requestOf(req, body)
	c.mu.Lock()
	c.sent++
	n := c.sent
	next := -1
	var diff *Difference
	for i := range c.played {
		if c.used[i] {
			continue
		}
		d := compare(&c.played[i].Request, &now)
		if next < 0 {
			next, diff = i, d
		}
		if d == nil {
			c.used[i] = true
			x := c.played[i]
			c.mu.Unlock()
			return x.response(req)
		}
	}
	c.mu.Unlock()
	e := &MismatchError{Cassette: c.path, Request: n, Method: now.Method, Path: now.Path, Recorded: len(c.played)}
	if next >= 0 {
		e.Difference = diff
	}
	return nil, e
}

// response is the recorded answer, as a fresh *http.Response to req.
func (x *Exchange) response(req *http.Request) (*http.Response, error) {
	if x.Response == nil {
		return nil, &ReplayedError{Msg: x.Error}
	}
	r := x.Response
	var body bytes.Buffer
	switch {
	case r.Events != nil:
		for _, ev := range r.Events {
			if ev.Event != "" {
				fmt.Fprintf(&body, "event: %s\n", ev.Event)
			}
			data := string(ev.Data)
			if ev.Text != nil {
				data = *ev.Text
			}
			for _, line := range strings.Split(data, "\n") {
				fmt.Fprintf(&body, "data: %s\n", line)
			}
			body.WriteString("\n")
		}
	case r.Body != nil:
		body.Write(r.Body)
	case r.Text != nil:
		body.WriteString(*r.Text)
	case r.Base64 != "":
		data, err := base64.StdEncoding.DecodeString(r.Base64)
		if err != nil {
			return nil, fmt.Errorf("cassette: a response body that is not base64: %w", err)
		}
		body.Write(data)
	}
	h := http.Header{}
	for k, v := range r.Header {
		h.Set(k, v)
	}
	resp := &http.Response{
		Status:     strconv.Itoa(r.Status) + " " + http.StatusText(r.Status),
		StatusCode: r.Status,
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        h,
		ContentLength: int64(body.Len()),
		Request:       req,
	}
	var rd io.Reader = bytes.NewReader(body.Bytes())
	if r.Cut {
		rd = io.MultiReader(rd, errReader{io.ErrUnexpectedEOF})
		resp.ContentLength = -1
	}
	resp.Body = io.NopCloser(rd)
	return resp, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// ReplayedError is the error a recorded request failed with (a connection
// refused), failing again on replay.
type ReplayedError struct{ Msg string }

func (e *ReplayedError) Error() string { return e.Msg }

// PathIn is the cassette of one case and repeat (from 1) in dir, for a
// command that runs many sessions (an eval): one file each, named after
// the case, so that a case replays its own traffic whatever order the
// cases run in. A byte a file name may not hold is written %XX, so that
// two ids never share a file (where file names ignore case, two that
// differ only in capitals do: eval refuses those). A name too long for a
// file system (255 bytes, reached by a long id, or a shorter one in
// another script) keeps its beginning and ends with a hash of the whole
// id after a "~", which no written id holds.
func PathIn(dir, caseID string, repeat int) string {
	var b strings.Builder
	for i := 0; i < len(caseID); i++ {
		switch c := caseID[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.' && i > 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	name := b.String()
	if len(name) > maxNameInDir {
		cut := maxNameInDir - 17
		// Not within a %XX.
		if i := strings.LastIndexByte(name[:cut], '%'); i >= cut-2 {
			cut = i
		}
		sum := sha256.Sum256([]byte(caseID))
		name = name[:cut] + "~" + hex.EncodeToString(sum[:8])
	}
	return filepath.Join(dir, fmt.Sprintf("%s.%d.jsonl", name, repeat))
}

// maxNameInDir bounds the part of a cassette's file name that names its
// case: with the repeat and the extension, well within the 255 bytes of
// a file name.
const maxNameInDir = 160

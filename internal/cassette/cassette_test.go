package cassette

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// failing is a transport that fails the test when used.
type failing struct{ t *testing.T }

func (f failing) RoundTrip(r *http.Request) (*http.Response, error) {
	f.t.Errorf("a request went out on replay: %s %s", r.Method, r.URL)
	return nil, errors.New("no network")
}

func send(t *testing.T, rt http.RoundTripper, method, url, body string) (*http.Response, string, error) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body == "" {
		req.Body = http.NoBody
	}
	req.Header.Set("Authorization", "Bearer sk-secret-0123456789")
	req.Header.Set("x-goog-api-key", "sk-secret-0123456789")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, string(data), err
}

// record records what srv answers to the requests, and returns the
// cassette's path.
func record(t *testing.T, srv *httptest.Server, reqs [][3]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.jsonl")
	c, err := Open(path, Auto)
	if err != nil {
		t.Fatal(err)
	}
	if c.Replaying() {
		t.Fatal("auto replays a file that is not there")
	}
	rt := c.Transport("claude", "claude-x", nil, "sk-secret-0123456789")
	for _, r := range reqs {
		if _, _, err := send(t, rt, r[0], srv.URL+r[1], r[2]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func fakeAPI() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case strings.Contains(r.URL.Path, "stream"):
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "event: start\ndata: {\"n\":1}\n\nevent: delta\ndata: {\"text\":\"hi\"}\n\ndata: [DONE]\n\n")
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Set-Cookie", "session=sk-secret-0123456789")
			w.Header().Set("Retry-After", "0")
			io.WriteString(w, `{"echo":`+string(body)+`,"note":"your key sk-secret-0123456789"}`)
		}
	}))
}

// TestRecordReplay: exchanges come back as recorded, streams event by
// event, with the headers a client acts on; no secret is written; replay
// sends nothing.
func TestRecordReplay(t *testing.T) {
	srv := fakeAPI()
	defer srv.Close()
	reqs := [][3]string{
		{"POST", "/v1/messages?key=sk-secret-0123456789&alt=sse", `{"b":1,"a":"x"}`},
		{"POST", "/v1/stream", `{"q":"go"}`},
		{"GET", "/v1/files/abc", ""},
	}
	path := record(t, srv, reqs)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("sk-secret")) || bytes.Contains(data, []byte("0123456789")) {
		t.Errorf("a secret is in the cassette:\n%s", data)
	}
	for _, want := range []string{
		`{"kesoku_cassette":1,"provider":"claude","model":"claude-x"}`,
		`"query":"alt=sse"`,
		`"events":[{"event":"start","data":{"n":1}},{"event":"delta","data":{"text":"hi"}},{"text":"[DONE]"}]`,
		`"header":{"Content-Type":"application/json","Retry-After":"0"}`,
	} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("the cassette holds no %s:\n%s", want, data)
		}
	}
	if bytes.Contains(data, []byte("Set-Cookie")) {
		t.Errorf("a header no client acts on was kept:\n%s", data)
	}

	srv.Close()
	c, err := Open(path, Replay)
	if err != nil {
		t.Fatal(err)
	}
	rt := c.Transport("claude", "claude-x", failing{t})
	// The keys of the JSON in another order, the key in the query gone.
	resp, body, err := send(t, rt, "POST", "http://elsewhere.example/v1/messages?alt=sse", `{"a":"x","b":1}`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || body != `{"echo":{"b":1,"a":"x"},"note":"your key [redacted]"}` {
		t.Errorf("replayed %d %v %s", resp.StatusCode, resp.Header, body)
	}
	_, body, err = send(t, rt, "POST", "http://elsewhere.example/v1/stream", `{"q":"go"}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "event: start\ndata: {\"n\":1}\n\nevent: delta\ndata: {\"text\":\"hi\"}\n\ndata: [DONE]\n\n"; body != want {
		t.Errorf("stream replayed as %q, want %q", body, want)
	}
	if _, _, err := send(t, rt, "GET", "http://elsewhere.example/v1/files/abc", ""); err != nil {
		t.Fatal(err)
	}
}

// TestMismatch: a request that differs from the one recorded next is
// refused with where it differs; one past the end says so.
func TestMismatch(t *testing.T) {
	srv := fakeAPI()
	defer srv.Close()
	path := record(t, srv, [][3]string{
		{"POST", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"add 2 and 3"}]}]}`},
	})
	for _, tc := range []struct {
		name, method, path, body, want string
	}{
		{"text", "POST", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"add 2 and 4"}]}]}`,
			`request 1 (POST /v1/messages) is not the one recorded: at messages[0].content[0].text, recorded "add 2 and 3", now "add 2 and 4"; nothing was sent`},
		{"two places", "POST", "/v1/messages", `{"model":"n","messages":[{"role":"user","content":[{"type":"text","text":"add 2 and 4"}]}]}`,
			`at messages[0].content[0].text, recorded "add 2 and 3", now "add 2 and 4" (and 1 more difference)`},
		{"a key more", "POST", "/v1/messages", `{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"add 2 and 3"}]}]}`,
			`at stream, recorded nothing, now true`},
		{"path", "POST", "/v1/other", `{}`, `at path, recorded "/v1/messages", now "/v1/other"`},
		// A long text is cut, not quoted again: "the \"calc\" tool", not
		// "\"the \\\"calc\\\" tool".
		{"long text", "POST", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"the \"calc\" tool ` + strings.Repeat("x", 200) + `"}]}]}`,
			`recorded "add 2 and 3", now "the \"calc\" tool xxxx`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Open(path, Replay)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = send(t, c.Transport("claude", "m", failing{t}), tc.method, "http://x"+tc.path, tc.body)
			var m *MismatchError
			if !errors.As(err, &m) || !m.Permanent() {
				t.Fatalf("got %v, want a *MismatchError", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n%s\ndoes not say\n%s", err, tc.want)
			}
		})
	}
	c, err := Open(path, Replay)
	if err != nil {
		t.Fatal(err)
	}
	rt := c.Transport("claude", "m", failing{t})
	body := `{"messages":[{"role":"user","content":[{"type":"text","text":"add 2 and 3"}]}],"model":"m"}`
	if _, _, err := send(t, rt, "POST", "http://x/v1/messages", body); err != nil {
		t.Fatal(err)
	}
	_, _, err = send(t, rt, "POST", "http://x/v1/messages", body)
	if err == nil || !strings.Contains(err.Error(), "request 2 (POST /v1/messages) was not recorded: the cassette holds 1 request, all played") {
		t.Errorf("past the end: %v", err)
	}
}

// TestNormalize: what changes from one run to the next does not make two
// requests differ; anything else does.
func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		a, b  string
		match bool
	}{
		{`{"id":"019af1c2-3b4d-7e5f-8a9b-0c1d2e3f4a5b"}`, `{"id":"019af1c2-ffff-7e5f-8a9b-0c1d2e3f4a5b"}`, true},
		{`{"t":"now is 2026-12-07T02:45:44.123Z"}`, `{"t":"now is 2026-12-08T11:00:00Z"}`, true},
		{`{"c":"call_0123456789abcdef"}`, `{"c":"call_fedcba9876543210"}`, true},
		{`{"r":"{\"duration_ms\":12,\"x\":1}"}`, `{"r":"{\"duration_ms\":3,\"x\":1}"}`, true},
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2],"a":1}`, true},
		{`{"a":1}`, `{"a":1.0}`, false},
		{`{"b":[1,2]}`, `{"b":[2,1]}`, false},
		{`{"c":"call_a"}`, `{"c":"call_b"}`, false},
	} {
		ra := &Request{Method: "POST", Path: "/", Body: []byte(tc.a)}
		rb := &Request{Method: "POST", Path: "/", Body: []byte(tc.b)}
		if d := compare(ra, rb); (d == nil) != tc.match {
			t.Errorf("%s vs %s: difference %+v, want match %v", tc.a, tc.b, d, tc.match)
		}
	}
}

// TestBadCassette: a file that is no cassette is refused with its line.
func TestBadCassette(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "empty: no header"},
		{"version", `{"kesoku_cassette":9,"provider":"x","model":"y"}` + "\n", ":1: a cassette of version 9"},
		{"garbage", `{"kesoku_cassette":1,"provider":"x","model":"y"}` + "\nnot json\n", ":2: "},
		{"no answer", `{"kesoku_cassette":1,"provider":"x","model":"y"}` + "\n" + `{"request":{"method":"GET","path":"/"}}` + "\n", ":2: an exchange with neither"},
	} {
		path := filepath.Join(dir, tc.name+".jsonl")
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(path, Auto)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	if _, err := Open(filepath.Join(dir, "missing.jsonl"), Replay); err == nil {
		t.Error("replay of a missing cassette: no error")
	}
	if _, err := ParseMode("rewind"); err == nil {
		t.Error("mode rewind: no error")
	}
}

// TestNothingRecordedNoFile: a cassette to record whose client never sent
// anything leaves no file, which auto would replay as empty next time.
func TestNothingRecordedNoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.jsonl")
	c, err := Open(path, Record)
	if err != nil {
		t.Fatal(err)
	}
	c.Transport("claude", "m", nil)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a cassette of nothing was written: %v", err)
	}
}

// TestPathIn: each case and repeat has a file of its own, whatever its id
// holds.
func TestPathIn(t *testing.T) {
	for _, tc := range []struct {
		id     string
		repeat int
		want   string
	}{
		{"case_1", 1, "case_1.1.jsonl"},
		{"sum/two", 3, "sum%2Ftwo.3.jsonl"},
		{"sum_two", 3, "sum_two.3.jsonl"},
		{"..", 1, "%2E..1.jsonl"},
		{"", 2, ".2.jsonl"},
	} {
		if got := PathIn("d", tc.id, tc.repeat); got != filepath.Join("d", tc.want) {
			t.Errorf("PathIn(d, %q, %d) = %q, want %q", tc.id, tc.repeat, got, filepath.Join("d", tc.want))
		}
	}
}

// TestConcurrentInAnyOrder: requests sent at once (two analyze_media
// calls of one turn) are recorded in the order their answers came, and
// replayed in whatever order they come again, each to its own answer.
func TestConcurrentInAnyOrder(t *testing.T) {
	srv := fakeAPI()
	defer srv.Close()
	path := record(t, srv, [][3]string{
		{"POST", "/v1/messages", `{"file":"a.png"}`},
		{"POST", "/v1/messages", `{"file":"b.png"}`},
	})
	c, err := Open(path, Replay)
	if err != nil {
		t.Fatal(err)
	}
	rt := c.Transport("claude", "m", failing{t})
	for _, f := range []string{"b.png", "a.png"} {
		_, body, err := send(t, rt, "POST", "http://x/v1/messages", `{"file":"`+f+`"}`)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(body, f) {
			t.Errorf("the request for %s got %s", f, body)
		}
	}
}

// TestPathInLongIDs: an id too long for a file name once written (a long
// id, or one in another script, each of whose bytes takes three) still
// has a file of its own, one the file system takes.
func TestPathInLongIDs(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 300)
	ids := []string{long, long + "y", strings.Repeat("足し算", 12), strings.Repeat("足し算", 12) + "2"}
	seen := map[string]string{}
	for _, id := range ids {
		path := PathIn(dir, id, 1000)
		if n := len(filepath.Base(path)); n > 200 {
			t.Errorf("PathIn(%q) is %d bytes long: %s", id, n, filepath.Base(path))
		}
		if other, ok := seen[path]; ok {
			t.Errorf("ids %q and %q share %s", other, id, path)
		}
		seen[path] = id
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Error(err)
		}
	}
	if got := PathIn(dir, long, 1); got != PathIn(dir, long, 1) {
		t.Errorf("PathIn is not the same for the same id: %s", got)
	}
}

// TestPathInFoldsAsEvalDoes: two cases' cassette names are the same but
// for case exactly when their ids are the same but for ASCII capitals —
// what eval checks the ids for, so that a cassette directory works
// where file names ignore case (macOS, Windows).
func TestPathInFoldsAsEvalDoes(t *testing.T) {
	t.Parallel()
	ids := []string{"add", "Add", "ADD", "a%4a", "a%4A", "É", "é", "Ã", "ã", "a.b", "A.B", "x-y_z", "X-Y_Z", "case_1", "CASE_1", "a b", "a%20b", "%", "%25"}
	foldASCII := func(s string) string {
		b := []byte(s)
		for i, c := range b {
			if c >= 'A' && c <= 'Z' {
				b[i] = c + 'a' - 'A'
			}
		}
		return string(b)
	}
	for _, a := range ids {
		for _, b := range ids {
			names := strings.EqualFold(PathIn("d", a, 1), PathIn("d", b, 1))
			if folded := foldASCII(a) == foldASCII(b); names != folded {
				t.Errorf("%q and %q: names the same but for case %v, ids the same but for ASCII capitals %v", a, b, names, folded)
			}
		}
	}
}

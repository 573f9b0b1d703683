package cmd

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/app/apptest"
	"github.com/kesoku/kesoku/internal/batch"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
)

// batchIn runs kesoku batch args in dir against srv, with sig; it returns
// the exit code, stdout and stderr.
func batchIn(t *testing.T, dir string, sig *apptest.Signals, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}, AWD: dir, Signals: sig.Source}
	code := run(context.Background(), g, append([]string{"batch", "--awd", dir}, args...))
	return code, out.String(), errOut.String()
}

// interruptWhen sends a SIGINT through sig, as Ctrl-C would, once cond
// holds.
func interruptWhen(t *testing.T, sig *apptest.Signals, cond func() bool) {
	t.Helper()
	go func() {
		for range 2000 {
			if cond() {
				sig.Send(t, os.Interrupt)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
}

// TestBatchInterrupted: an interrupt at submit's upload, or at collect's
// wait, exits 130 and leaves a state the same command finishes.
func TestBatchInterrupted(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "test-key")
	srv := llmtest.NewServer(llmtest.Gemini, "test-key", llmtest.Reply{Text: "One."}, llmtest.Reply{Text: "Two."})
	defer srv.Close()
	dir := t.TempDir()
	var img bytes.Buffer
	png.Encode(&img, image.NewGray(image.Rect(0, 0, 64, 64)))
	os.WriteFile(filepath.Join(dir, "a.png"), img.Bytes(), 0o644)
	reqs := filepath.Join(dir, "r.jsonl")
	os.WriteFile(reqs, []byte(`{"name":"analyze_media","args":{"path":"a.png"}}`+"\n"+`{"name":"analyze_media","args":{"path":"a.png","prompt":"again?"}}`+"\n"), 0o644)
	state := filepath.Join(dir, "state.json")
	submit := []string{"submit", reqs, "--model", "gemini-2.5-flash", "--base-url", srv.URL, "-o", state, "--inline-limit", "10"}

	sig := &apptest.Signals{}
	// Once the first file is uploaded and kesoku has its name (it asks
	// whether Gemini is done with it), while Gemini processes it, which
	// it never finishes: the interrupt comes during the wait. (Between
	// the last byte and the upload's answer, an interrupt would leave a
	// file kesoku cannot name; Gemini deletes it after 48 hours.)
	srv.SetFileStates("", "PROCESSING")
	interruptWhen(t, sig, func() bool {
		for _, r := range srv.FileRequests() {
			if r.Method == http.MethodGet {
				return true
			}
		}
		return false
	})
	if code, _, stderr := batchIn(t, dir, sig, submit...); code != ExitInterrupted || !strings.Contains(stderr, "interrupted: submit stopped: the same command sends the rest") {
		t.Fatalf("submit interrupted at its upload: exit %d, %s", code, stderr)
	}
	if len(srv.Batches()) != 0 {
		t.Fatal("an interrupted submit sent a batch")
	}
	for _, u := range srv.Uploads() {
		if len(u.Data) > 0 && !u.Deleted {
			t.Errorf("%s, uploaded for a batch never sent, is left", u.Name)
		}
	}
	srv.SetFileStates("", "PROCESSING", "ACTIVE")
	if code, _, stderr := batchIn(t, dir, &apptest.Signals{}, submit...); code != ExitOK {
		t.Fatalf("submit again: exit %d, %s", code, stderr)
	}

	srv.SetBatchPolls(1000)
	sig = &apptest.Signals{}
	interruptWhen(t, sig, func() bool { b := srv.Batches(); return len(b) > 0 && b[0].Polls > 1 })
	out := filepath.Join(dir, "out.jsonl")
	collect := []string{"collect", state, "--base-url", srv.URL, "-o", out, "--wait", "--poll", "10ms"}
	if code, _, stderr := batchIn(t, dir, sig, collect...); code != ExitInterrupted {
		t.Fatalf("collect interrupted while it waits: exit %d, %s", code, stderr)
	}
	srv.SetBatchPolls(0)
	if code, _, stderr := batchIn(t, dir, &apptest.Signals{}, collect...); code != ExitOK || !strings.Contains(stderr, "2 records: 2 succeeded") {
		t.Errorf("collect again: exit %d, %s", code, stderr)
	}
}

func TestBatchExitStatus(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	srv := llmtest.NewServer(llmtest.Claude, "test-key", llmtest.Reply{Text: "A square."}, llmtest.Reply{Status: 400, Error: "no"})
	defer srv.Close()
	srv.SetBatchPolls(1)
	dir := t.TempDir()
	var img bytes.Buffer
	png.Encode(&img, image.NewGray(image.Rect(0, 0, 4, 4)))
	os.WriteFile(filepath.Join(dir, "a.png"), img.Bytes(), 0o644)
	reqs := filepath.Join(dir, "r.jsonl")
	os.WriteFile(reqs, []byte(`{"name":"analyze_media","args":{"path":"a.png"}}`+"\n"+`{"name":"analyze_media","args":{"path":"a.png","prompt":"again?"}}`+"\n"), 0o644)
	state := filepath.Join(dir, "state.json")
	sig := &apptest.Signals{}

	code, stdout, stderr := batchIn(t, dir, sig, "submit", reqs, "--model", "claude-sonnet-4-5", "--base-url", srv.URL, "-o", state)
	if code != ExitOK || strings.TrimSpace(stdout) != state {
		t.Fatalf("submit: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if code, _, _ := batchIn(t, dir, sig, "status", state, "--base-url", srv.URL); code != ExitPending {
		t.Errorf("status in progress: exit %d, want 3", code)
	}
	out := filepath.Join(dir, "out.jsonl")
	code, _, stderr = batchIn(t, dir, sig, "collect", state, "--base-url", srv.URL, "-o", out)
	if code != ExitFailures || !strings.Contains(stderr, "2 records: 1 succeeded, 1 failed (1 tool_error)") {
		t.Errorf("collect: exit %d, stderr %s", code, stderr)
	}
	if code, _, _ := batchIn(t, dir, sig, "status", state, "--base-url", srv.URL); code != ExitOK {
		t.Errorf("status ended: exit %d, want 0", code)
	}
	st, err := batch.Load(state)
	if err != nil || !st.Cleaned {
		t.Errorf("state after collect: %+v, %v", st, err)
	}
	data, _ := os.ReadFile(state)
	if bytes.Contains(data, []byte("test-key")) {
		t.Error("the state file holds the key")
	}

	// Bad usage: another tool; a state that is none; no key.
	os.WriteFile(reqs, []byte(`{"name":"read_file","args":{"path":"a.png"}}`+"\n"), 0o644)
	if code, _, stderr := batchIn(t, dir, sig, "submit", reqs, "--model", "claude-sonnet-4-5", "--base-url", srv.URL); code != ExitUsage || !strings.Contains(stderr, "request 1 calls read_file") {
		t.Errorf("submit of another tool: exit %d, %s", code, stderr)
	}
	if code, _, _ := batchIn(t, dir, sig, "collect", reqs, "--base-url", srv.URL); code != ExitUsage {
		t.Errorf("collect of no state: exit %d", code)
	}
	t.Setenv("ANTHROPIC_API_KEY", "")
	if code, _, stderr := batchIn(t, dir, sig, "status", state); code != ExitUsage || !strings.Contains(stderr, "ANTHROPIC_API_KEY") {
		t.Errorf("status without a key: exit %d, %s", code, stderr)
	}
}

// batchWorkspace is a directory with an image and a request file of two
// analyze_media requests of it.
func batchWorkspace(t *testing.T) (dir, reqs string) {
	t.Helper()
	dir = t.TempDir()
	var img bytes.Buffer
	png.Encode(&img, image.NewGray(image.Rect(0, 0, 4, 4)))
	os.WriteFile(filepath.Join(dir, "a.png"), img.Bytes(), 0o644)
	reqs = filepath.Join(dir, "r.jsonl")
	os.WriteFile(reqs, []byte(`{"name":"analyze_media","args":{"path":"a.png"}}`+"\n"+`{"name":"analyze_media","args":{"path":"a.png","prompt":"again?"}}`+"\n"), 0o644)
	return dir, reqs
}

// TestBatchStatusInterrupted: an interrupt while status asks the
// provider exits 130 and changes nothing; status asks again.
func TestBatchStatusInterrupted(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	srv := llmtest.NewServer(llmtest.Claude, "test-key", llmtest.Reply{Text: "One."}, llmtest.Reply{Text: "Two."})
	defer srv.Close()
	dir, reqs := batchWorkspace(t)
	state := filepath.Join(dir, "state.json")
	if code, _, stderr := batchIn(t, dir, &apptest.Signals{}, "submit", reqs, "--model", "claude-sonnet-4-5", "--base-url", srv.URL, "-o", state); code != ExitOK {
		t.Fatalf("submit: exit %d, %s", code, stderr)
	}
	before, _ := os.ReadFile(state)

	// A provider that answers the look only once it is interrupted: the
	// interrupt comes while status waits for it.
	sig := &apptest.Signals{}
	target, _ := url.Parse(srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	stalling := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/batches/") {
			sig.Send(t, os.Interrupt)
			<-r.Context().Done()
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	defer stalling.Close()
	code, stdout, stderr := batchIn(t, dir, sig, "status", state, "--base-url", stalling.URL)
	if code != ExitInterrupted || !strings.Contains(stderr, "interrupted: nothing changed; ask again") || stdout != "" {
		t.Errorf("status interrupted: exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if after, _ := os.ReadFile(state); !bytes.Equal(after, before) {
		t.Errorf("an interrupted status changed the state file:\n%s\nthen\n%s", before, after)
	}
	if code, stdout, stderr := batchIn(t, dir, &apptest.Signals{}, "status", state, "--base-url", srv.URL); code != ExitOK || !strings.Contains(stdout, "part 1, requests 1 to 2") {
		t.Errorf("status again: exit %d, %s%s", code, stdout, stderr)
	}
}

// TestBatchCollectTorn: a collect killed while it wrote a record leaves
// half a line; the same command cuts it off and writes that record
// again, whole, once.
func TestBatchCollectTorn(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	srv := llmtest.NewServer(llmtest.Claude, "test-key", llmtest.Reply{Text: "One."}, llmtest.Reply{Text: "Two."})
	defer srv.Close()
	dir, reqs := batchWorkspace(t)
	state := filepath.Join(dir, "state.json")
	if code, _, stderr := batchIn(t, dir, &apptest.Signals{}, "submit", reqs, "--model", "claude-sonnet-4-5", "--base-url", srv.URL, "-o", state); code != ExitOK {
		t.Fatalf("submit: exit %d, %s", code, stderr)
	}
	out := filepath.Join(dir, "out.jsonl")
	collect := []string{"collect", state, "--base-url", srv.URL, "-o", out}
	if code, _, stderr := batchIn(t, dir, &apptest.Signals{}, collect...); code != ExitOK {
		t.Fatalf("collect: exit %d, %s", code, stderr)
	}
	whole, _ := os.ReadFile(out)
	lines := strings.SplitAfter(string(whole), "\n")
	torn := lines[0] + lines[1][:len(lines[1])/2]
	os.WriteFile(out, []byte(torn), 0o644)
	if code, _, stderr := batchIn(t, dir, &apptest.Signals{}, collect...); code != ExitOK || !strings.Contains(stderr, "1 record: 1 succeeded; 1 skipped") {
		t.Fatalf("collect after the kill: exit %d, %s", code, stderr)
	}
	again, _ := os.ReadFile(out)
	got := strings.Split(strings.TrimSuffix(string(again), "\n"), "\n")
	if len(got) != 2 || got[0] != strings.TrimSuffix(lines[0], "\n") || !strings.Contains(got[1], `"parent_id":"call_2"`) || !strings.Contains(got[1], `"content":"Two."`) {
		t.Errorf("records after the kill and the same collect:\n%s", again)
	}
}

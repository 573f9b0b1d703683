package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

const askRequests = `- name: write_file
  args: {path: a.txt, content: one}
- name: write_file
  args: {path: b.txt, content: two}
`

// runAsking runs kesoku run over askRequests with --ask write_file, its
// standard input and error the terminal given, and returns the records
// and what the terminal showed.
func runAsking(t *testing.T, in io.Reader, inTTY, errTTY bool, extra ...string) (dir string, recs []*message.Record, shown string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "reqs.yaml"), []byte(askRequests), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: in, Out: &out, Err: &errOut, InTTY: inTTY, ErrTTY: errTTY}}
	out_ := filepath.Join(dir, "out.jsonl")
	args := append([]string{"run", "--awd", dir, filepath.Join(dir, "reqs.yaml"), "-o", out_, "--ask", "write_file", "-q"}, extra...)
	run(context.Background(), g, args)
	if err := records.ReadFile(out_, func(r *message.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatalf("%v (stderr: %s)", err, errOut.String())
	}
	return dir, recs, errOut.String()
}

// On a terminal, kesoku asks; each answer decides, and says so on record.
func TestRunAsksAtTheTerminal(t *testing.T) {
	for _, tc := range []struct {
		name, answers string
		want          []string // each record's decided_by, or its error kind
		asked         int
	}{
		{"yes", "y\nyes\n", []string{"user", "user"}, 2},
		{"no", "n\nN\n", []string{"denied", "denied"}, 2},
		{"always", "a\n", []string{"user (always)", "user (always)"}, 1},
		{"again until understood", "maybe\ny\nn\n", []string{"user", "denied"}, 2},
		{"end of input", "", []string{"denied", "denied"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, recs, shown := runAsking(t, strings.NewReader(tc.answers), true, true)
			var got []string
			for _, r := range recs {
				if r.Error != nil {
					got = append(got, string(r.Error.Kind))
				} else {
					got = append(got, r.DecidedBy)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("records %q, want %q", got, tc.want)
			}
			if n := strings.Count(shown, `kesoku: ask rule "write_file" (--ask) asks about a call of write_file:`); n != tc.asked {
				t.Errorf("asked %d times, want %d:\n%s", n, tc.asked, shown)
			}
			for i, f := range []string{"a.txt", "b.txt"} {
				_, err := os.Stat(filepath.Join(dir, f))
				if ran := err == nil; ran != (tc.want[i] != "denied") {
					t.Errorf("%s written: %v, want %v", f, ran, !ran)
				}
			}
		})
	}
}

// noRead fails the test when anything reads it: no question is asked.
type noRead struct{ t *testing.T }

func (r noRead) Read([]byte) (int, error) {
	r.t.Error("standard input was read: an ask waited for an answer with no terminal")
	return 0, io.EOF
}

// With no terminal, an ask is never put, never waits, and never runs the
// call: standard input or error no terminal, or standard input the
// requests.
func TestRunNoTerminalNeverAsks(t *testing.T) {
	for _, tc := range []struct {
		name          string
		inTTY, errTTY bool
		onAsk         string
		want          message.ErrorKind
	}{
		{"no terminal", false, false, "deny", message.KindDenied},
		{"input no terminal", false, true, "deny", message.KindDenied},
		{"error no terminal", true, false, "deny", message.KindDenied},
		{"no terminal, defer", false, false, "defer", message.KindDeferred},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, recs, shown := runAsking(t, noRead{t}, tc.inTTY, tc.errTTY, "--on-ask", tc.onAsk)
			if len(recs) == 0 || recs[0].Error == nil || recs[0].Error.Kind != tc.want {
				t.Fatalf("first record %+v, want kind %s", recs, tc.want)
			}
			if strings.Contains(shown, "asks about") {
				t.Errorf("asked with no terminal:\n%s", shown)
			}
			if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
				t.Error("the call ran")
			}
		})
	}
	// The requests on a terminal's standard input: it is theirs, not an
	// answer's.
	g := &globals{IO: &ioStreams{In: noRead{t}, InTTY: true, ErrTTY: true}}
	if a := g.asker(true); a != nil {
		t.Errorf("asker with standard input the requests: %v", a)
	}
}

// A question given up on (the run interrupted) returns at once, and its
// line is the next question's.
func TestTerminalAskerCancelled(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	var shown bytes.Buffer
	a := newTerminalAsker(pr, &shown)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := a.Ask(ctx, &policy.Call{Name: "write_file", Args: map[string]any{"path": "x"}}, policy.Decision{By: "ask rule"})
		done <- err
	}()
	cancel()
	if err := <-done; err == nil {
		t.Error("a question given up on was answered")
	}
	go pw.Write([]byte("y\n"))
	if ans, err := a.Ask(context.Background(), &policy.Call{Name: "write_file"}, policy.Decision{By: "ask rule"}); ans != policy.Yes || err != nil {
		t.Errorf("the next question: %v, %v", ans, err)
	}
}

// An interactive session whose terminal cannot be asked at (standard
// error redirected) stops at a deferred call, as a session of one prompt
// does: exit 5, and no further prompt is sent over the unanswered call.
func TestInteractiveSessionStopsAtADeferredCall(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Gemini, "",
		llmtest.Reply{Calls: []llmtest.Call{{ID: "w1", Name: "label", Args: map[string]any{"labels": map[string]any{"a": "b"}}}}},
		llmtest.Reply{Text: "never"},
	)
	defer srv.Close()
	opts, _, errOut, _ := sessionTestOptions(t, srv, strings.NewReader("label a\nand again\n"), true)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	opts.toolChoice = toolChoice{Tools: []string{"label"}, named: true}
	opts.perms = permissionFlags{Ask: []string{"label"}, OnAsk: "defer"}
	err := runSession(context.Background(), opts)
	if code, _ := exitCode(err); code != ExitDeferred {
		t.Fatalf("exit %d (%v), want %d; stderr %q", code, err, ExitDeferred, errOut.String())
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests sent, want 1: the session went on past the deferred call", n)
	}
	var deferred int
	records.ReadFile(opts.Output, func(r *message.Record) error {
		if r.Status == message.StatusDeferred {
			deferred++
		}
		return nil
	})
	if deferred != 1 {
		t.Errorf("%d deferred records, want 1", deferred)
	}
}

package cmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/app/apptest"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// syncBuffer is a buffer the session and the test may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// interruptOnRequest sends a SIGINT through sig, as Ctrl-C would, once
// srv has received n requests.
func interruptOnRequest(t *testing.T, srv *llmtest.Server, n int, sig *apptest.Signals) {
	t.Helper()
	go func() {
		for range 1000 {
			if len(srv.Requests()) >= n {
				sig.Send(t, os.Interrupt)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
}

func sessionTestOptions(t *testing.T, srv *llmtest.Server, in io.Reader, inTTY bool) (*sessionOptions, *syncBuffer, *syncBuffer, *apptest.Signals) {
	t.Helper()
	t.Setenv("GEMINI_API_KEY", "test-key-cmd-5a0f")
	dir := t.TempDir()
	out, errOut := &syncBuffer{}, &syncBuffer{}
	sig := &apptest.Signals{}
	g := &globals{IO: &ioStreams{In: in, Out: out, Err: errOut, InTTY: inTTY}, AWD: dir, Signals: sig.Source}
	opts := &sessionOptions{
		g: g, Registry: testRegistry(t), MaxTurns: 5, callFlags: callFlags{Jobs: 1, Grace: time.Second, MaxOutput: 1 << 20},
		Output: filepath.Join(dir, "t.jsonl"), toolChoice: toolChoice{Tools: []string{""}, named: true},
		model: provider.Config{Model: "gemini-test", BaseURL: srv.URL, IdleTimeout: time.Minute},
	}
	return opts, out, errOut, sig
}

func transcript(t *testing.T, path string) []string {
	t.Helper()
	var got []string
	err := records.ReadFile(path, func(r *message.Record) error {
		got = append(got, string(r.Role)+" "+string(r.Type)+" "+string(r.Content))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestSessionInterruptExits130: outside the interactive loop, Ctrl-C ends
// the session with exit 130 and a valid transcript.
func TestSessionInterruptExits130(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Gemini, "", llmtest.Reply{Text: "too late", Delay: llmtest.Duration(time.Minute)})
	defer srv.Close()
	opts, out, errOut, sig := sessionTestOptions(t, srv, strings.NewReader(""), false)
	opts.Prompt = "think"
	interruptOnRequest(t, srv, 1, sig)
	err := runSession(context.Background(), opts)
	if code, _ := exitCode(err); code != ExitInterrupted {
		t.Fatalf("exit code %d (%v), want %d", code, err, ExitInterrupted)
	}
	if !strings.Contains(errOut.String(), "interrupted; the transcript is") {
		t.Errorf("stderr = %q", errOut.String())
	}
	if out.String() != "" {
		t.Errorf("stdout = %q, want nothing", out.String())
	}
	if diff := cmp.Diff([]string{`user text "think"`}, transcript(t, opts.Output)); diff != "" {
		t.Errorf("transcript mismatch (-want +got):\n%s", diff)
	}
}

// TestInteractiveSessionInterruptsTheTurn: in the interactive loop Ctrl-C
// interrupts the turn and comes back to the prompt; end of input ends the
// session.
func TestInteractiveSessionInterruptsTheTurn(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Gemini, "",
		llmtest.Reply{Text: "too late", Delay: llmtest.Duration(time.Minute)},
		llmtest.Reply{Text: "Second answer."},
	)
	defer srv.Close()
	in, w := io.Pipe()
	opts, out, errOut, sig := sessionTestOptions(t, srv, in, true)
	go func() {
		io.WriteString(w, "first\n")
		for !strings.Contains(errOut.String(), "interrupted") {
			time.Sleep(5 * time.Millisecond)
		}
		io.WriteString(w, "second\n")
		w.Close()
	}()
	interruptOnRequest(t, srv, 1, sig)
	done := make(chan error, 1)
	go func() { done <- runSession(context.Background(), opts) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("session: %v (stderr %q)", err, errOut.String())
		}
	case <-time.After(30 * time.Second):
		w.Close()
		t.Fatalf("the session did not end; stderr %q", errOut.String())
	}
	if out.String() != "Second answer.\n" {
		t.Errorf("stdout = %q", out.String())
	}
	want := []string{`user text "first"`, `user text "second"`, `assistant text "Second answer."`}
	if diff := cmp.Diff(want, transcript(t, opts.Output)); diff != "" {
		t.Errorf("transcript mismatch (-want +got):\n%s", diff)
	}
}

// TestSessionRunsOnlyTheToolsOffered: a model that calls a tool it was not
// offered — a writing tool, when by default only the tools that read are —
// gets an unknown_tool error naming the tools it has, and the tool never
// runs.
func TestSessionRunsOnlyTheToolsOffered(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Gemini, "",
		llmtest.Reply{Calls: []llmtest.Call{{ID: "w1", Name: "label", Args: map[string]any{"labels": map[string]any{"a": "b"}}}}},
		llmtest.Reply{Text: "I may not."},
	)
	defer srv.Close()
	opts, out, errOut, _ := sessionTestOptions(t, srv, strings.NewReader(""), false)
	opts.Prompt = "label a"
	opts.toolChoice = toolChoice{}
	var ran atomic.Bool
	reg := registry.New()
	for _, s := range testRegistry(t).All() {
		if s.Name == "label" {
			spec := *s
			spec.Call = func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				ran.Store(true)
				return "labelled", nil
			}
			s = &spec
		}
		reg.MustRegister(s)
	}
	opts.Registry = reg
	if err := runSession(context.Background(), opts); err != nil {
		t.Fatalf("session: %v (stderr %q)", err, errOut.String())
	}
	if out.String() != "I may not.\n" {
		t.Errorf("stdout = %q", out.String())
	}
	if ran.Load() {
		t.Errorf("the tool that was not offered ran")
	}
	var result *message.Record
	err := records.ReadFile(opts.Output, func(r *message.Record) error {
		if r.Type == message.TypeToolResult {
			result = r
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &message.ErrorInfo{Kind: message.KindUnknownTool, Message: `unknown tool "label"; known tools: calculate_sum, current_time`}
	if result == nil || result.CallID != "w1" {
		t.Fatalf("result = %+v, want one for call w1", result)
	}
	if diff := cmp.Diff(want, result.Error); diff != "" {
		t.Errorf("error mismatch (-want +got):\n%s", diff)
	}
}

// TestSessionTellsWhatGoesOn: what the session below cmd has to say
// reaches standard error through cmd alone: with -v its start and each
// tool call the model asks for; with -q neither.
func TestSessionTellsWhatGoesOn(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		srv := llmtest.NewServer(llmtest.Gemini, "",
			llmtest.Reply{Calls: []llmtest.Call{{ID: "c1", Name: "calculate_sum", Args: map[string]any{"a": 1, "b": "\x1b[2J"}}}},
			llmtest.Reply{Text: "Done."},
		)
		opts, _, errOut, _ := sessionTestOptions(t, srv, strings.NewReader(""), false)
		opts.Prompt = "add"
		opts.toolChoice = toolChoice{}
		opts.g.Verbose, opts.g.Quiet = !quiet, quiet
		runSession(context.Background(), opts)
		srv.Close()
		var want []string
		if !quiet {
			want = []string{
				`^session [0-9a-f-]+ with gemini-test \(gemini\); transcript ` + regexp.QuoteMeta(opts.Output) + `$`,
				`^  → calculate_sum \{"a":1,"b":"\\u001b\[2J"\}$`,
			}
		}
		var got []string
		for _, line := range strings.Split(errOut.String(), "\n") {
			if strings.HasPrefix(line, "session ") || strings.HasPrefix(line, "  → ") {
				got = append(got, line)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("quiet %v: lines %q, want %d like %q (stderr %q)", quiet, got, len(want), want, errOut.String())
		}
		for i, re := range want {
			if !regexp.MustCompile(re).MatchString(got[i]) {
				t.Errorf("quiet %v: line %q, want %s", quiet, got[i], re)
			}
		}
	}
}

package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/notice"
	"github.com/kesoku/kesoku/registry"
)

// TestToolModel: the model of kesoku run --model reaches tools with its
// media options, as an Uploader, knowing its names before any client is
// built (internal/llm/provider tests that it is built on first use).
func TestToolModel(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "test-key")
	_, env, err := Prepare(context.Background(), Options{
		AWD: t.TempDir(), Log: io.Discard, InlineLimit: 1024,
		Model: provider.Config{Model: "gemini-test", IdleTimeout: llm.DefaultIdleTimeout},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	m := env.ToolModel()
	p, ok := m.(llm.Provider)
	if !ok {
		t.Fatalf("tool model %T is no llm.Provider", m)
	}
	if _, ok := m.(media.Uploader); !ok {
		t.Errorf("tool model %T is no media.Uploader", m)
	}
	if got := []string{p.Name(), p.ModelName()}; !cmp.Equal(got, []string{"gemini", "gemini-test"}) {
		t.Errorf("names %q, want gemini, gemini-test", got)
	}
	if got := media.OptionsOf(m).InlineLimit; got != 1024 {
		t.Errorf("inline limit %d, want 1024", got)
	}
	_, none, err := Prepare(context.Background(), Options{AWD: t.TempDir(), Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	defer none.Close()
	if m := none.ToolModel(); m != nil {
		t.Errorf("no model gives tool model %v, want nil", m)
	}
}

// TestModelRequired: a command that calls the model needs its key at
// once; one whose tools may ask it needs it only when one does.
func TestModelRequired(t *testing.T) {
	t.Setenv("GEMINI_API_KEY", "")
	t.Setenv("GOOGLE_API_KEY", "")
	cfg := provider.Config{Model: "gemini-2.5-flash"}
	if _, _, err := Prepare(context.Background(), Options{AWD: t.TempDir(), Log: io.Discard, Model: cfg, ModelRequired: true}); err == nil {
		t.Error("a required model without a key: no error")
	}
	_, env, err := Prepare(context.Background(), Options{AWD: t.TempDir(), Log: io.Discard, Model: cfg})
	if err != nil {
		t.Fatalf("a tool model without a key: %v", err)
	}
	env.Close()
}

// TestRunnerOptions: the runner's options carry the calls' bounds, the
// layout's outputs and staging, and every file protected before they are
// made, the ones given and the ones Protect adds.
func TestRunnerOptions(t *testing.T) {
	awd := t.TempDir()
	given := registry.Protected{Path: filepath.Join(awd, "kesoku.yaml"), Why: "config"}
	_, env, err := Prepare(context.Background(), Options{
		AWD: awd, Log: io.Discard, Tools: registry.New(),
		Calls:     &Calls{Jobs: 3, Timeout: 7, Grace: 9, MaxOutput: 11},
		Protected: []registry.Protected{given},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	env.Protect(filepath.Join(awd, "out.jsonl"), "records")
	env.Protect("-", "standard output is no file")
	o := env.RunnerOptions()
	if o.Jobs != 3 || o.Timeout != 7 || o.Grace != 9 || o.MaxOutput != 11 {
		t.Errorf("bounds %d %v %v %d, want 3 7ns 9ns 11", o.Jobs, o.Timeout, o.Grace, o.MaxOutput)
	}
	if o.OutputDir != filepath.Join(awd, ".kesoku", "outputs") || o.Staging != filepath.Join(awd, ".kesoku", "staging") || o.AWD != awd {
		t.Errorf("workspace %q %q %q", o.AWD, o.OutputDir, o.Staging)
	}
	want := []registry.Protected{given, {Path: filepath.Join(awd, "out.jsonl"), Why: "records"}}
	if !slices.Equal(o.Protected, want) {
		t.Errorf("protected %v, want %v", o.Protected, want)
	}
	if env.Tools == nil || env.Tools.Registry == nil {
		t.Error("no tool set")
	}
	if env.Interrupts != nil {
		t.Error("signals watched before WatchSignals, without OneTurn")
	}
}

// TestOneTurn: with OneTurn the context Prepare returns is a turn's,
// cancelled by the first signal.
func TestOneTurn(t *testing.T) {
	sig := make(chan chan<- os.Signal, 1)
	src := func(ch chan<- os.Signal) func() { sig <- ch; return func() {} }
	ctx, env, err := Prepare(context.Background(), Options{AWD: t.TempDir(), Log: io.Discard, Signals: src, OneTurn: true})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	(<-sig) <- os.Interrupt
	waitClosed(t, ctx.Done(), "the first signal cancelling the turn")
	if !env.Interrupts.Interrupted() {
		t.Error("not interrupted")
	}
}

// told is a notice.Teller that keeps what it is told.
type told struct {
	mu   sync.Mutex
	said []string
}

func (t *told) Tell(level notice.Level, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.said = append(t.said, fmt.Sprintf("%d %s", level, msg))
}

// TestPrepareTells: the environment writes nothing to the terminal; what
// it has to say goes to its Teller, at a level, the outside text in it as
// it is (the command's Teller escapes it), and what -q and -v hold back
// is not made.
func TestPrepareTells(t *testing.T) {
	cassette := filepath.Join(t.TempDir(), "c\x1b[2J.jsonl")
	for _, tt := range []struct {
		quiet bool
		want  []string
	}{
		{false, []string{fmt.Sprintf("%d recording the model's traffic to the cassette %s", notice.Warning, cassette)}},
		{true, nil},
	} {
		var tell told
		var log strings.Builder
		_, env, err := Prepare(context.Background(), Options{AWD: t.TempDir(), Log: &log, Tell: &tell, Quiet: tt.quiet, Cassette: cassette, CassetteMode: "record"})
		if err != nil {
			t.Fatal(err)
		}
		env.Close()
		if diff := cmp.Diff(tt.want, tell.said); diff != "" {
			t.Errorf("quiet %v: told mismatch (-want +got):\n%s", tt.quiet, diff)
		}
		if log.Len() != 0 {
			t.Errorf("quiet %v: the environment wrote %q itself", tt.quiet, log.String())
		}
	}
}

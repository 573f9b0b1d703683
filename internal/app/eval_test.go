package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"testing"

	"github.com/kesoku/kesoku/internal/eval"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// TestEvalTakesCasesAsTheyRun: an eval takes a case from its source only
// once a slot is free for it, so that it holds --jobs cases, and one
// waiting, however many there are; a source that fails stops the eval
// with its error.
func TestEvalTakesCasesAsTheyRun(t *testing.T) {
	const n, jobs = 24, 3
	replies := make([]llmtest.Reply, n)
	for i := range replies {
		replies[i] = llmtest.Reply{Text: "Hi."}
	}
	srv := llmtest.NewServer(llmtest.Gemini, "test-key", replies...)
	defer srv.Close()
	t.Setenv("GEMINI_API_KEY", "test-key")
	ctx, env, err := Prepare(context.Background(), Options{
		AWD: t.TempDir(), Log: io.Discard, ModelRequired: true,
		Model: provider.Config{Model: "gemini-2.5-flash", BaseURL: srv.BaseURL(), IdleTimeout: llm.DefaultIdleTimeout},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	broken := errors.New("the cases' file went away")
	var taken, written atomic.Int64
	cases := func(failAt int) func(yield func(EvalCase, error) bool) {
		return func(yield func(EvalCase, error) bool) {
			for i := range n {
				taken.Add(1)
				if i+1 == failAt {
					yield(EvalCase{}, broken)
					return
				}
				c := &eval.Case{ID: fmt.Sprintf("c%d", i+1), Prompt: "say hi", Expect: eval.Expect{Answer: &eval.AnswerCheck{Contains: "Hi"}}}
				if !yield(EvalCase{Case: c, Registry: registry.New()}, nil) {
					return
				}
			}
		}
	}
	write := func(recs []*message.Record) error {
		w := written.Add(1)
		if got := taken.Load(); got > w+jobs {
			t.Errorf("at the %d-th case written, %d taken: more than %d ahead", w, got, jobs)
		}
		return nil
	}
	report, err := env.evalRuns(ctx, EvalOptions{Cases: cases(0), Jobs: jobs}, write, nil)
	if err != nil {
		t.Fatal(err)
	}
	if report.Summary.Passed != n || report.Total != n {
		t.Errorf("summary %+v, total %d: want %d passed", report.Summary, report.Total, n)
	}

	taken.Store(0)
	written.Store(0)
	if _, err := env.evalRuns(ctx, EvalOptions{Cases: cases(2), Jobs: jobs}, write, nil); !errors.Is(err, broken) {
		t.Errorf("a source that fails: err %v, want %v", err, broken)
	}
}

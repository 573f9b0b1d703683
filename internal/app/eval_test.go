package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/eval"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/message"
)

// TestEvalTakesCasesAsTheyRun: an eval takes a case from its source only
// once a slot is free for it, so that it holds twice --jobs cases (those
// running and those written or waiting to be) and one more waiting for a
// slot, however many there are; a source that fails stops the eval with
// its error.
func TestEvalTakesCasesAsTheyRun(t *testing.T) {
	const n, jobs = 24, 3
	srv := sayHi(t, n)
	ctx, env := evalEnv(t, srv.BaseURL())
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
				if !yield(EvalCase{Case: c, Registry: toolset.New()}, nil) {
					return
				}
			}
		}
	}
	write := func(recs []*message.Record) error {
		w := written.Add(1)
		if got := taken.Load(); got > w+2*jobs {
			t.Errorf("at the %d-th case written, %d taken: more than %d ahead", w, got, 2*jobs)
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

// TestEvalGoesOnPastASlowCase: with more than one job, the workers go on
// while a case that started first holds up the writing: its answer is
// held back until the fourth case has been asked for, which the workers
// reach only past the slow case's slot.
func TestEvalGoesOnPastASlowCase(t *testing.T) {
	const n, jobs = 8, 2
	fourth := make(chan struct{})
	var asked atomic.Int64
	srv := sayHiAfter(t, n, func(body []byte) {
		if bytes.Contains(body, []byte("case 4")) {
			close(fourth)
		}
		if asked.Add(1) == 1 {
			select {
			case <-fourth:
			case <-time.After(time.Minute):
				// Only when the eval is stuck behind the slow case.
				t.Error("the fourth case was not asked for while the first was held")
			}
		}
	})
	ctx, env := evalEnv(t, srv.URL)
	cases := func(yield func(EvalCase, error) bool) {
		for i := range n {
			c := &eval.Case{ID: fmt.Sprintf("c%d", i+1), Prompt: fmt.Sprintf("say hi, case %d", i+1), Expect: eval.Expect{Answer: &eval.AnswerCheck{Contains: "Hi"}}}
			if !yield(EvalCase{Case: c, Registry: toolset.New()}, nil) {
				return
			}
		}
	}
	var order []string
	write := func(recs []*message.Record) error {
		order = append(order, recs[len(recs)-1].ParentID)
		return nil
	}
	report, err := env.evalRuns(ctx, EvalOptions{Cases: cases, Jobs: jobs}, write, nil)
	if err != nil {
		t.Fatal(err)
	}
	if report.Summary.Passed != n {
		t.Errorf("summary %+v: want %d passed", report.Summary, n)
	}
	if got := strings.Join(order, " "); got != "c1 c2 c3 c4 c5 c6 c7 c8" {
		t.Errorf("verdicts written in the order %s, want the cases' order", got)
	}
}

// sayHi is a fake Gemini that answers n requests "Hi.".
func sayHi(t *testing.T, n int) *llmtest.Server {
	t.Helper()
	replies := make([]llmtest.Reply, n)
	for i := range replies {
		replies[i] = llmtest.Reply{Text: "Hi."}
	}
	srv := llmtest.NewServer(llmtest.Gemini, "test-key", replies...)
	t.Cleanup(srv.Close)
	return srv
}

// sayHiAfter is sayHi behind a server that hands each request's body to
// before, and the request to the fake once before returns.
func sayHiAfter(t *testing.T, n int, before func(body []byte)) *httptest.Server {
	t.Helper()
	return sayHiBehind(t, n, func(w http.ResponseWriter, r *http.Request, body []byte, fake http.Handler) {
		before(body)
		fake.ServeHTTP(w, r)
	})
}

// sayHiBehind is sayHi behind a server that reads each request whole
// (so that it sees a client give up) and hands it, with its body, to
// serve, which may pass it on to the fake.
func sayHiBehind(t *testing.T, n int, serve func(w http.ResponseWriter, r *http.Request, body []byte, fake http.Handler)) *httptest.Server {
	t.Helper()
	target, err := url.Parse(sayHi(t, n).URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		serve(w, r, body, proxy)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// evalEnv is the environment of an eval against the Gemini at baseURL.
func evalEnv(t *testing.T, baseURL string) (context.Context, *Env) {
	t.Helper()
	t.Setenv("GEMINI_API_KEY", "test-key")
	ctx, env, err := Prepare(context.Background(), Options{
		AWD: t.TempDir(), Log: io.Discard, ModelRequired: true,
		Model: provider.Config{Model: "gemini-2.5-flash", BaseURL: baseURL, IdleTimeout: llm.DefaultIdleTimeout},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return ctx, env
}

// TestEvalSkipsWithinTheWindow: runs an earlier eval finished take their
// slot too, so that a resumed eval does not read on through every case
// while a slow run holds up the writing: the first case's answer is held
// until the window is full of runs behind it, and no case past the
// window is taken before the first is written.
func TestEvalSkipsWithinTheWindow(t *testing.T) {
	const n, jobs = 24, 2
	full := make(chan struct{})
	srv := sayHiAfter(t, n, func([]byte) { <-full })
	ctx, env := evalEnv(t, srv.URL)
	var written atomic.Bool
	cases := func(yield func(EvalCase, error) bool) {
		for i := range n {
			if i+1 > 2*jobs+1 && !written.Load() {
				t.Errorf("case %d taken before the first was written", i+1)
			}
			c := &eval.Case{ID: fmt.Sprintf("c%d", i+1), Prompt: "say hi", Expect: eval.Expect{Answer: &eval.AnswerCheck{Contains: "Hi"}}}
			if !yield(EvalCase{Case: c, Registry: toolset.New()}, nil) {
				return
			}
		}
	}
	earlier := func(position int64, _ string, _ int) (bool, bool) {
		if position == 2*jobs {
			// The window is full: the first run and the skipped ones
			// behind it.
			close(full)
		}
		return true, position > 1
	}
	write := func(recs []*message.Record) error {
		written.Store(true)
		return nil
	}
	report, err := env.evalRuns(ctx, EvalOptions{Cases: cases, Jobs: jobs}, write, earlier)
	if err != nil {
		t.Fatal(err)
	}
	if report.Skipped != n-1 || report.Summary.Passed != n {
		t.Errorf("skipped %d, summary %+v: want %d skipped, %d passed", report.Skipped, report.Summary, n-1, n)
	}
}

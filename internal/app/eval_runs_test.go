package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/kesoku/kesoku/internal/app/apptest"
	"github.com/kesoku/kesoku/internal/eval"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/message"
)

// signalledEnv is evalEnv with sig as its source of interrupts.
func signalledEnv(t *testing.T, baseURL string, sig *apptest.Signals) (context.Context, *Env) {
	t.Helper()
	t.Setenv("GEMINI_API_KEY", "test-key")
	ctx, env, err := Prepare(context.Background(), Options{
		AWD: t.TempDir(), Log: io.Discard, ModelRequired: true, Signals: sig.Source,
		Model: provider.Config{Model: "gemini-2.5-flash", BaseURL: baseURL, IdleTimeout: llm.DefaultIdleTimeout},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return ctx, env
}

// interruptAt is sayHi behind a server that, at the request numbered at,
// sends an interrupt through sig and holds that request until the
// interrupt has reached it (the client gives up on it), so that the eval
// is interrupted while the request is in flight whatever the schedule.
func interruptAt(t *testing.T, n int, sig *apptest.Signals, at int64, asked *atomic.Int64) *httptest.Server {
	t.Helper()
	return sayHiBehind(t, n, func(w http.ResponseWriter, r *http.Request, _ []byte, fake http.Handler) {
		if asked.Add(1) == at {
			sig.Send(t, os.Interrupt)
			// The client gives up on it once the interrupt reaches it.
			<-r.Context().Done()
			return
		}
		fake.ServeHTTP(w, r)
	})
}

// hiCases are n cases that each say hi, every other one run twice.
func hiCases(n int) func(yield func(EvalCase, error) bool) {
	return func(yield func(EvalCase, error) bool) {
		for i := range n {
			c := &eval.Case{ID: fmt.Sprintf("c%d", i+1), Prompt: "say hi", Repeat: 1 + i%2, Expect: eval.Expect{Answer: &eval.AnswerCheck{Contains: "Hi"}}}
			if !yield(EvalCase{Case: c, Registry: toolset.New()}, nil) {
				return
			}
		}
	}
}

// verdictBlocks reads an eval's records file: the positions of its
// verdicts in the file's order, whether a shard's end ends it, and fails t when a run's records are not
// contiguous and ended by its verdict.
func verdictBlocks(t *testing.T, path string) (positions []int64, end bool) {
	t.Helper()
	session, done := "", map[string]bool{}
	err := records.ReadFile(path, func(rec *message.Record) error {
		if end {
			t.Errorf("%s: records after the shard's end", path)
		}
		if rec.Type == records.TypeShardEnd {
			end = true
			return nil
		}
		if rec.SessionID != session {
			if session != "" && !done[session] {
				t.Errorf("%s: run %s's records end with no verdict", path, session)
			}
			if done[rec.SessionID] {
				t.Errorf("%s: run %s's records are not contiguous", path, rec.SessionID)
			}
			session = rec.SessionID
		}
		if rec.Type == message.TypeVerdict {
			done[session] = true
			positions = append(positions, rec.Position)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if session != "" && !done[session] {
		t.Errorf("%s: the last run's records end with no verdict", path)
	}
	return positions, end
}

// TestEvalInterruptedResumes: an interrupt at any request, at --jobs 1,
// 2 and 4, whole or sharded, leaves the file with whole runs in case
// order, and --resume runs exactly the runs not written, once each, and
// ends with every run of the shard in order (and the shard's end).
func TestEvalInterruptedResumes(t *testing.T) {
	const n = 7
	const all = n + n/2 // every other case runs twice
	for _, shard := range []request.Shard{{}, {K: 2, N: 3}} {
		var want []int64
		for p := int64(1); p <= all; p++ {
			if shard.N == 0 || (p-1)%shard.N == shard.K-1 {
				want = append(want, p)
			}
		}
		runs := len(want)
		for _, jobs := range []int{1, 2, 4} {
			for at := int64(1); at <= int64(runs); at += 2 {
				t.Run(fmt.Sprintf("shard%d-jobs%d-at%d", shard.K, jobs, at), func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "out.jsonl")
					sig := &apptest.Signals{}
					var asked atomic.Int64
					srv := interruptAt(t, runs, sig, at, &asked)
					ctx, env := signalledEnv(t, srv.URL, sig)
					rep, err := env.Eval(ctx, EvalOptions{Cases: hiCases(n), Jobs: jobs, Output: out, Shard: shard})
					if err != nil {
						t.Fatal(err)
					}
					if !rep.Interrupted {
						t.Errorf("report %+v: not interrupted", rep)
					}
					first, end := verdictBlocks(t, out)
					if end {
						t.Error("an interrupted shard's file has its end")
					}
					for i := 1; i < len(first); i++ {
						if first[i] <= first[i-1] {
							t.Errorf("verdicts at positions %v: not in case order", first)
						}
					}

					var again atomic.Int64
					srv2 := sayHiAfter(t, runs, func([]byte) { again.Add(1) })
					ctx2, env2 := signalledEnv(t, srv2.URL, &apptest.Signals{})
					rep, err = env2.Eval(ctx2, EvalOptions{Cases: hiCases(n), Jobs: jobs, Output: out, Resume: true, Shard: shard})
					if err != nil {
						t.Fatal(err)
					}
					if got, want := again.Load(), int64(runs-len(first)); got != want {
						t.Errorf("resumed: %d requests, want %d (%d runs, %d written before)", got, want, runs, len(first))
					}
					if rep.Interrupted || rep.Summary.Passed != runs || rep.Skipped != int64(len(first)) || rep.Total != all {
						t.Errorf("resumed: report %+v, want %d passed, %d skipped, %d in all", rep, runs, len(first), all)
					}
					got, end := verdictBlocks(t, out)
					if fmt.Sprint(got) != fmt.Sprint(want) || end != (shard.N > 0) {
						t.Errorf("resumed: verdicts at %v, end %v; want %v, end %v", got, end, want, shard.N > 0)
					}
				})
			}
		}
	}
}

// TestEvalLetsGoOfTheCases: however the eval ends (every case run, a case
// that cannot be read, a records file that cannot be written, an
// interrupt, no case at all, every run an earlier eval's), the cases'
// source is let go of, its goroutine not left blocked, the runs written
// are in order, and the eval says how it ended.
func TestEvalLetsGoOfTheCases(t *testing.T) {
	broken := errors.New("the cases' file went away")
	full := errors.New("the disk is full")
	for _, jobs := range []int{1, 2, 4, 40} {
		for _, end := range []string{"all", "read", "write", "interrupt", "none", "skipped"} {
			t.Run(fmt.Sprintf("jobs%d-%s", jobs, end), func(t *testing.T) {
				const n = 9
				sig := &apptest.Signals{}
				var asked atomic.Int64
				at := int64(0)
				if end == "interrupt" {
					at = 3
				}
				srv := interruptAt(t, 2*n, sig, at, &asked)
				ctx, env := signalledEnv(t, srv.URL, sig)
				var returned atomic.Bool
				cases := func(yield func(EvalCase, error) bool) {
					defer returned.Store(true)
					if end == "none" {
						return
					}
					for c, err := range hiCases(n) {
						if end == "read" && c.ID == "c5" {
							c, err = EvalCase{}, broken
						}
						if !yield(c, err) {
							return
						}
					}
				}
				var written []int64
				write := func(recs []*message.Record) error {
					v := recs[len(recs)-1]
					if end == "write" && v.Position >= 4 {
						return full
					}
					written = append(written, v.Position)
					return nil
				}
				var earlier func(int64, string, int) (bool, bool)
				if end == "skipped" {
					earlier = func(int64, string, int) (bool, bool) { return true, true }
				}
				rep, err := env.evalRuns(ctx, EvalOptions{Cases: cases, Jobs: jobs}, write, earlier)
				if !returned.Load() {
					t.Error("the cases' source was not let go of")
				}
				for i := 1; i < len(written); i++ {
					if written[i] <= written[i-1] {
						t.Errorf("written at positions %v: not in case order", written)
					}
				}
				const runs = n + n/2
				switch end {
				case "all":
					if err != nil || rep.Summary.Passed != runs || rep.Total != runs || len(written) != runs {
						t.Errorf("err %v, report %+v, %d written: want %d passed", err, rep, len(written), runs)
					}
				case "read":
					if !errors.Is(err, broken) {
						t.Errorf("err %v, want %v", err, broken)
					}
				case "write":
					if !errors.Is(err, full) {
						t.Errorf("err %v, want %v", err, full)
					}
				case "interrupt":
					if err != nil || !rep.Interrupted {
						t.Errorf("err %v, report %+v: want interrupted", err, rep)
					}
				case "none":
					if err != nil || rep.Total != 0 || len(written) != 0 {
						t.Errorf("err %v, report %+v, %d written: want nothing", err, rep, len(written))
					}
				case "skipped":
					if err != nil || rep.Skipped != runs || rep.Summary.Passed != runs || len(written) != 0 || asked.Load() != 0 {
						t.Errorf("err %v, report %+v, %d written, %d asked: want %d skipped", err, rep, len(written), asked.Load(), runs)
					}
				}
			})
		}
	}
}

// TestEvalOneJobWritesACaseBeforeTheNext: with one job, a run's records
// are in the file, whole, before the next run asks the model anything:
// an eval killed at any moment loses at most the run under way.
func TestEvalOneJobWritesACaseBeforeTheNext(t *testing.T) {
	const n = 5
	const runs = n + n/2
	out := filepath.Join(t.TempDir(), "out.jsonl")
	var asked atomic.Int64
	srv := sayHiAfter(t, runs, func([]byte) {
		k := asked.Add(1)
		var verdicts int64
		err := records.ReadFile(out, func(rec *message.Record) error {
			if rec.Type == message.TypeVerdict {
				verdicts++
			}
			return nil
		})
		if err != nil {
			t.Error(err)
		}
		if verdicts != k-1 {
			t.Errorf("at request %d, %d verdicts in the file, want %d", k, verdicts, k-1)
		}
	})
	ctx, env := evalEnv(t, srv.URL)
	rep, err := env.Eval(ctx, EvalOptions{Cases: hiCases(n), Jobs: 1, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Passed != runs {
		t.Errorf("report %+v: want %d passed", rep, runs)
	}
}

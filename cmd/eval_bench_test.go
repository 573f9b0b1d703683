//go:build unix

package cmd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/kesoku/kesoku/internal/app/apptest"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/gemini"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
	"github.com/kesoku/kesoku/message"
)

const benchKey = "test-key-bench-eval-7c2e"

// instantGemini is a Gemini server that answers every streamed request
// with the same turn, after think (at once when 0): the answer llmtest's
// fake gives, taken from it once, so that the wire format is the fake's.
// It keeps nothing of the requests (the fake keeps them all), so that
// what grows with the number of cases is the client's alone.
// conns counts the connections it accepts.
func instantGemini(b *testing.B, think time.Duration, conns *atomic.Int64) *httptest.Server {
	b.Helper()
	fake := llmtest.NewServer(llmtest.Gemini, benchKey, llmtest.Reply{Text: "Hi.", Usage: &message.Usage{InputTokens: 12, OutputTokens: 2}})
	defer fake.Close()
	req, err := http.NewRequest(http.MethodPost, fake.URL+"/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
		strings.NewReader(`{"contents": [{"role": "user", "parts": [{"text": "say hi"}]}]}`))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("x-goog-api-key", benchKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("the fake answered %d %q: %v", resp.StatusCode, answer, err)
	}
	contentType := resp.Header.Get("Content-Type")
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if think > 0 {
			time.Sleep(think)
		}
		w.Header().Set("Content-Type", contentType)
		w.Write(answer)
	}))
	srv.Config.ConnState = func(_ net.Conn, state http.ConnState) {
		if state == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	b.Cleanup(srv.Close)
	return srv
}

// writeCases writes n cases, each a prompt the model answers in one turn
// with no tools offered, and a check of its answer.
func writeCases(b *testing.B, n int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "cases.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		fmt.Fprintf(w, `{"id": "c%d", "prompt": "say hi, %d", "tools": "", "expect": {"answer": {"contains": "Hi"}}}`+"\n", i+1, i+1)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

// peakHeap samples the heap's live and unswept objects until stop is
// called, which returns the most seen, in bytes: what a run holds at its
// fullest, give or take a collection.
func peakHeap() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// cpuTime is the CPU time the process has taken so far, user and system:
// on a machine shared with other work it says what an op cost better
// than its wall time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sdkLoop makes the 1,000 sessions' requests over client, on goroutines
// taking them in turn: the floor an eval is measured against.
func sdkLoop(b *testing.B, client *genai.Client, goroutines int) {
	ctx := context.Background()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= 1000; i = next.Add(1) {
				if err := askHi(ctx, client, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

// askHi is one session of the loop: the i-th case's prompt, its answer
// streamed and checked.
func askHi(ctx context.Context, client *genai.Client, i int64) error {
	text := ""
	for chunk, err := range client.Models.GenerateContentStream(ctx, "gemini-2.5-flash", genai.Text(fmt.Sprintf("say hi, %d", i)), nil) {
		if err != nil {
			return err
		}
		text += chunk.Text()
	}
	if !strings.Contains(text, "Hi") {
		return fmt.Errorf("answer %q", text)
	}
	return nil
}

// newSDKClient is the SDK client of the loop, against srv.
func newSDKClient(b *testing.B, srv *httptest.Server) *genai.Client {
	client, err := genai.NewClient(context.Background(), &genai.ClientConfig{APIKey: benchKey, Backend: genai.BackendGeminiAPI, HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
	if err != nil {
		b.Fatal(err)
	}
	return client
}

// evalOnce runs `kesoku eval` in-process as a user runs it: the cases
// against srv, jobs at once, the records to out.
func evalOnce(b *testing.B, srv *httptest.Server, cases, out string, jobs int) {
	os.Remove(out)
	sig := &apptest.Signals{}
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, AWD: b.TempDir(), Quiet: true, Signals: sig.Source}
	c := newEvalCmd(g, runEval)
	c.SetArgs([]string{cases, "--model", "gemini-2.5-flash", "--base-url", srv.URL, "--jobs", fmt.Sprint(jobs), "-o", out})
	c.SilenceUsage, c.SilenceErrors = true, true
	if err := c.ExecuteContext(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkEval is `kesoku eval` end to end against a model that answers
// at once: each op an eval of a dataset of cases, one-turn sessions whose
// answers are checked and written with their transcripts to -o. Beside it
// (loop), the same 1,000 sessions' requests made one after another by a
// plain Go loop over the same SDK client (genai), the floor: eval with
// --jobs N is to take at most 1.5 times the loop's time divided by N.
// The loop also runs on N goroutines for each eval row's --jobs N, the
// same requests taken in turn over the same client: where the work is the
// CPU's, N goroutines go no faster than the machine's cores (GOMAXPROCS,
// the -N suffix of each row's name), and that is the fairer floor.
// With think=5ms the model takes 5ms to answer, as a network would, so
// that what --jobs overlaps is not the CPU the client and the fake share.
// conns/op is how many connections the server accepted an op.
// peak-heap-MiB is the most the heap held during an op; cpu-ms/op the CPU
// time of the process, the fake's included, which the machine's other
// work moves less than the wall time. An op is a whole dataset: run with
// -benchtime 3x (bench/compare.sh does), so that the op that warms the
// process up first is left out of the figures. BenchmarkEvalPaired
// gives the ratios on a machine that other work shares.
func BenchmarkEval(b *testing.B) {
	for _, lc := range []struct {
		goroutines int
		think      time.Duration
	}{{1, 0}, {1, 5 * time.Millisecond}, {2, 0}, {4, 0}, {4, 5 * time.Millisecond}, {16, 5 * time.Millisecond}} {
		name := fmt.Sprintf("loop/cases=1000/think=%v", lc.think)
		if lc.goroutines > 1 {
			// The loop on as many goroutines as an eval row's --jobs, at
			// the same think: what the machine's cores allow the SDK
			// client at that concurrency at all.
			name = fmt.Sprintf("loop/cases=1000/goroutines=%d/think=%v", lc.goroutines, lc.think)
		}
		b.Run(name, func(b *testing.B) {
			var conns atomic.Int64
			srv := instantGemini(b, lc.think, &conns)
			client := newSDKClient(b, srv)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				runtime.GC()
				stop, cpu := peakHeap(), cpuTime(b)
				sdkLoop(b, client, lc.goroutines)
				b.ReportMetric(float64(cpuTime(b)-cpu)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
			}
			b.ReportMetric(float64(conns.Load())/float64(b.N), "conns/op")
		})
	}
	for _, bc := range []struct {
		cases, jobs int
		think       time.Duration
	}{{1000, 1, 0}, {1000, 2, 0}, {1000, 4, 0}, {4000, 4, 0}, {16000, 4, 0}, {1000, 4, 5 * time.Millisecond}, {1000, 16, 5 * time.Millisecond}} {
		b.Run(fmt.Sprintf("eval/cases=%d/jobs=%d/think=%v", bc.cases, bc.jobs, bc.think), func(b *testing.B) {
			var conns atomic.Int64
			srv := instantGemini(b, bc.think, &conns)
			b.Setenv("GEMINI_API_KEY", benchKey)
			cases := writeCases(b, bc.cases)
			out := filepath.Join(b.TempDir(), "out.jsonl")
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				runtime.GC()
				stop, cpu := peakHeap(), cpuTime(b)
				evalOnce(b, srv, cases, out, bc.jobs)
				b.ReportMetric(float64(cpuTime(b)-cpu)/1e6, "cpu-ms/op")
				b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MiB")
			}
			b.ReportMetric(float64(conns.Load())/float64(b.N), "conns/op")
		})
	}
}

// BenchmarkEvalPaired measures the target's ratio where other work
// shares the machine: each op runs the plain loop and then the eval of
// the same 1,000 cases at --jobs N, back to back against the same fake
// that answers at once, so that both see the same load; the metrics are
// the medians over the ops of the loop's time, the eval's, and the eval's
// over the loop's divided by N (the target: at most 1.5). With N above
// one the loop also runs on N goroutines in each op, and loopN-ratio is
// that plain loop held to the same target: where the SDK client itself
// at that concurrency misses it, the machine's cores are the limit, not
// the eval. Run with -benchtime 5x or more.
func BenchmarkEvalPaired(b *testing.B) {
	for _, jobs := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("cases=1000/jobs=%d", jobs), func(b *testing.B) {
			var conns atomic.Int64
			srv := instantGemini(b, 0, &conns)
			client := newSDKClient(b, srv)
			b.Setenv("GEMINI_API_KEY", benchKey)
			cases := writeCases(b, 1000)
			out := filepath.Join(b.TempDir(), "out.jsonl")
			var loops, evals, ratios, loopNs, loopNRatios []float64
			b.ResetTimer()
			for range b.N {
				runtime.GC()
				start := time.Now()
				sdkLoop(b, client, 1)
				loop := time.Since(start)
				if jobs > 1 {
					runtime.GC()
					start = time.Now()
					sdkLoop(b, client, jobs)
					loopN := time.Since(start)
					loopNs = append(loopNs, loopN.Seconds()*1e3)
					loopNRatios = append(loopNRatios, loopN.Seconds()/(loop.Seconds()/float64(jobs)))
				}
				runtime.GC()
				start = time.Now()
				evalOnce(b, srv, cases, out, jobs)
				ev := time.Since(start)
				loops, evals = append(loops, loop.Seconds()*1e3), append(evals, ev.Seconds()*1e3)
				ratios = append(ratios, ev.Seconds()/(loop.Seconds()/float64(jobs)))
			}
			b.ReportMetric(median(loops), "loop-ms")
			b.ReportMetric(median(evals), "eval-ms")
			b.ReportMetric(median(ratios), "ratio")
			if jobs > 1 {
				b.ReportMetric(median(loopNs), "loopN-ms")
				b.ReportMetric(median(loopNRatios), "loopN-ratio")
			}
		})
	}
}

// BenchmarkEvalLayers says where an eval's time goes beyond the loop's,
// a case an op, against the fake that answers at once: the SDK client
// alone (sdk), the same client over kesoku's Transport (transport),
// kesoku's Gemini provider (provider), a session with no tools and a
// store that keeps nothing (session), and a whole eval at --jobs 1
// (eval, its records written to a file), each layer the one before it
// and more. The eval row is one eval of b.N cases: its start (the cases
// read and checked, the model built, a first connection) is spread over
// them. cpu-µs/op is the process's CPU time, the fake's included.
// Run with -benchtime 3000x or more, several times: on a shared machine
// only the differences that stay from run to run say anything.
func BenchmarkEvalLayers(b *testing.B) {
	var conns atomic.Int64
	srv := instantGemini(b, 0, &conns)
	ctx := context.Background()
	perCase := func(b *testing.B, f func(i int64) error) {
		b.ReportAllocs()
		cpu := cpuTime(b)
		for i := range int64(b.N) {
			if err := f(i + 1); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime(b)-cpu)/1e3/float64(b.N), "cpu-µs/op")
	}
	b.Run("sdk", func(b *testing.B) {
		client := newSDKClient(b, srv)
		perCase(b, func(i int64) error { return askHi(ctx, client, i) })
	})
	opts := llm.ClientOptions{Model: "gemini-2.5-flash", APIKey: benchKey, BaseURL: srv.URL}
	b.Run("transport", func(b *testing.B) {
		t := llm.NewTransport(gemini.Name, srv.URL, opts)
		client, err := genai.NewClient(ctx, &genai.ClientConfig{APIKey: benchKey, Backend: genai.BackendGeminiAPI, HTTPClient: t.Client(), HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL}})
		if err != nil {
			b.Fatal(err)
		}
		perCase(b, func(i int64) error { return askHi(ctx, client, i) })
	})
	p, err := gemini.New(ctx, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("provider", func(b *testing.B) {
		perCase(b, func(i int64) error {
			resp, err := p.Generate(ctx, &llm.Request{Messages: []llm.Message{{Role: message.RoleUser, Parts: []llm.Part{{Text: fmt.Sprintf("say hi, %d", i)}}}}}, nil)
			if err == nil && !strings.Contains(llm.AnswerText(resp.Message), "Hi") {
				err = fmt.Errorf("answer %+v", resp.Message)
			}
			return err
		})
	})
	b.Run("session", func(b *testing.B) {
		perCase(b, func(i int64) error {
			s := llm.NewSession(llm.SessionOptions{Provider: p, Store: discardRecords{}})
			answer, err := s.Send(ctx, fmt.Sprintf("say hi, %d", i))
			if err == nil && !strings.Contains(answer, "Hi") {
				err = fmt.Errorf("answer %q", answer)
			}
			return err
		})
	})
	b.Run("eval", func(b *testing.B) {
		b.Setenv("GEMINI_API_KEY", benchKey)
		cases := writeCases(b, b.N)
		out := filepath.Join(b.TempDir(), "out.jsonl")
		b.ReportAllocs()
		b.ResetTimer()
		cpu := cpuTime(b)
		evalOnce(b, srv, cases, out, 1)
		b.ReportMetric(float64(cpuTime(b)-cpu)/1e3/float64(b.N), "cpu-µs/op")
	})
}

// discardRecords is a transcript's store that keeps nothing.
type discardRecords struct{}

func (discardRecords) Append(context.Context, ...*message.Record) error { return nil }

// median is the middle of xs (the mean of the two middle ones when even).
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

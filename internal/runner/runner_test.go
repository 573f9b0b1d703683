package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// calls counts how often each request id reached a tool, across the runs
// of one test, so that a test can prove nothing ran twice.
type calls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *calls) note(tc *registry.ToolContext) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = make(map[string]int)
	}
	c.n[tc.OriginalMsgID]++
}

// testRegistry builds the tools the tests use: the ones with arguments
// typed (registry.Add), the others by hand, as generated code would.
func testRegistry(t testing.TB, c *calls) *registry.Registry {
	t.Helper()
	reg := registry.New()
	type sumArgs struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	type msArgs struct {
		MS float64 `json:"ms"`
	}
	type nArgs struct {
		N int `json:"n"`
	}
	typed := []error{
		registry.Add(reg, "sum", "Adds two numbers.", func(_ context.Context, tc *registry.ToolContext, in sumArgs) (int64, error) {
			c.note(tc)
			return int64(in.A + in.B), nil
		}),
		registry.Add(reg, "sleep", "Sleeps, and stops when cancelled.", func(ctx context.Context, tc *registry.ToolContext, in msArgs) (float64, error) {
			c.note(tc)
			t := time.NewTimer(time.Duration(in.MS * float64(time.Millisecond)))
			defer t.Stop()
			select {
			case <-t.C:
				return in.MS, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}),
		registry.Add(reg, "stubborn", "Sleeps, cancelled or not.", func(_ context.Context, tc *registry.ToolContext, in msArgs) (string, error) {
			c.note(tc)
			time.Sleep(time.Duration(in.MS * float64(time.Millisecond)))
			return "done", nil
		}),
		registry.Add(reg, "big", "Returns n bytes.", func(_ context.Context, _ *registry.ToolContext, in nArgs) (string, error) {
			return strings.Repeat("a", in.N/2) + strings.Repeat("z", in.N/2), nil
		}),
	}
	for _, err := range typed {
		if err != nil {
			t.Fatal(err)
		}
	}
	specs := []*registry.Spec{
		{Name: "boom", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
			var m map[string]int
			m["x"] = 1 // a nil map write: a runtime panic
			return nil, nil
		}},
		{Name: "boom_value", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
			panic("the tool gave up")
		}},
		{Name: "fail", Call: func(_ context.Context, tc *registry.ToolContext, _ map[string]any) (any, error) {
			c.note(tc)
			return nil, errors.New("disk on fire")
		}},
		{Name: "bad_path", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
			return nil, registry.InvalidArg("path", errors.New(`"../x" leads out of the working directory`))
		}},
		{Name: "whoami", Call: func(_ context.Context, tc *registry.ToolContext, _ map[string]any) (any, error) {
			model := ""
			if tc.Model != nil {
				model = tc.Model.ModelName()
			}
			return map[string]any{
				"session": tc.SessionID, "msg": tc.OriginalMsgID, "awd": tc.AWD,
				"staging": tc.Staging, "store": tc.Store != nil, "model": model,
			}, nil
		}},
		{Name: "not_json", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
			return func() {}, nil
		}},
		{Name: "bounded", Params: []*registry.Property{{Name: "n", Required: true, Schema: &registry.Schema{Type: registry.TypeNumber}}},
			Precheck: func(tc *registry.ToolContext, args map[string]any) error {
				if n, _ := args["n"].(float64); n > 10 || tc.AWD != "/awd" {
					return registry.InvalidArg("n", fmt.Errorf("%v is more than 10 (in %s)", args["n"], tc.AWD))
				}
				return nil
			},
			Call: func(_ context.Context, tc *registry.ToolContext, args map[string]any) (any, error) {
				c.note(tc)
				return args["n"], nil
			}},
	}
	for _, s := range specs {
		if err := reg.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// collect runs reqs and returns their records in the order emitted.
// collect runs reqs as a file's requests come, each but the last with
// the next at hand (More): the dispatcher makes batches of them.
func collect(t testing.TB, ctx context.Context, r *ToolRunner, reqs []*request.Request) ([]*message.Record, records.RunReport) {
	t.Helper()
	var recs []*message.Record
	sum, err := r.Run(ctx, func(yield func(*request.Request) bool) {
		for i, q := range reqs {
			q.More = i+1 < len(reqs)
			if !yield(q) {
				return
			}
		}
	}, func(rec *message.Record) error {
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return recs, sum
}

// shape is what a test compares of a record: everything but the fields
// that vary from run to run.
type shape struct {
	ParentID, Name, Session string
	Status                  message.Status
	Content                 string
	Kind                    message.ErrorKind
	IsError                 bool
}

func shapeOf(rec *message.Record) shape {
	s := shape{ParentID: rec.ParentID, Name: rec.Name, Session: rec.SessionID, Status: rec.Status, Content: string(rec.Content), IsError: rec.IsError}
	if rec.Error != nil {
		s.Kind = rec.Error.Kind
	}
	return s
}

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestRunOneRecordPerRequest(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t, nil)
	tests := []struct {
		name    string
		req     *request.Request
		want    shape
		message string // a regexp the error message must match
	}{
		{"success", &request.Request{ID: "c1", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
			shape{ParentID: "c1", Name: "sum", Session: "s", Status: "responded", Content: "3"}, ""},
		{"invalid request", &request.Request{ID: "c2", Name: "sum", Err: errors.New("f.yaml:3:1: args: expected an object")},
			shape{ParentID: "c2", Name: "sum", Session: "s", Status: "responded", Kind: "invalid_request", IsError: true}, `^f\.yaml:3:1: args`},
		{"missing name", &request.Request{ID: "c3", Pos: yamlpos.Pos{File: "f.yaml", Line: 4, Col: 3}},
			shape{ParentID: "c3", Session: "s", Status: "responded", Kind: "invalid_request", IsError: true}, `^f\.yaml:4:3: missing "name"`},
		{"unknown tool", &request.Request{ID: "c4", Name: "summ"},
			shape{ParentID: "c4", Name: "summ", Session: "s", Status: "responded", Kind: "unknown_tool", IsError: true}, `unknown tool "summ"; did you mean "sum"\? known tools: .*sum`},
		{"arguments the tool refuses", &request.Request{ID: "c5", Name: "sum", Args: map[string]any{"a": 1.0}},
			shape{ParentID: "c5", Name: "sum", Session: "s", Status: "responded", Kind: "invalid_args", IsError: true}, `args\.b: missing required argument`},
		{"a path the tool refuses", &request.Request{ID: "c6", Name: "bad_path"},
			shape{ParentID: "c6", Name: "bad_path", Session: "s", Status: "responded", Kind: "invalid_args", IsError: true}, `leads out`},
		{"tool error", &request.Request{ID: "c7", Name: "fail"},
			shape{ParentID: "c7", Name: "fail", Session: "s", Status: "responded", Kind: "tool_error", IsError: true}, `^disk on fire$`},
		{"runtime panic", &request.Request{ID: "c8", Name: "boom"},
			shape{ParentID: "c8", Name: "boom", Session: "s", Status: "responded", Kind: "panic", IsError: true}, `(?s)^panic: assignment to entry in nil map\n.*runner_test\.go:\d+`},
		{"panic with a value", &request.Request{ID: "c9", Name: "boom_value"},
			shape{ParentID: "c9", Name: "boom_value", Session: "s", Status: "responded", Kind: "panic", IsError: true}, `^panic: the tool gave up\n`},
		{"result that is not JSON", &request.Request{ID: "c10", Name: "not_json"},
			shape{ParentID: "c10", Name: "not_json", Session: "s", Status: "responded", Kind: "tool_error", IsError: true}, `not JSON`},
		{"file session wins", &request.Request{ID: "c11", Name: "sum", SessionID: "file", Args: map[string]any{"a": 1.0, "b": 1.0}},
			shape{ParentID: "c11", Name: "sum", Session: "file", Status: "responded", Content: "2"}, ""},
		{"missing id", &request.Request{Name: "sum", Args: map[string]any{"a": 1.0, "b": 1.0}},
			shape{ParentID: "call_1", Name: "sum", Session: "s", Status: "responded", Content: "2"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := New(reg, Options{SessionID: "s"})
			recs, _ := collect(t, context.Background(), r, []*request.Request{tt.req})
			if len(recs) != 1 {
				t.Fatalf("got %d records, want 1", len(recs))
			}
			rec := recs[0]
			if diff := cmp.Diff(tt.want, shapeOf(rec)); diff != "" {
				t.Errorf("record mismatch (-want +got):\n%s", diff)
			}
			if !uuidV7.MatchString(rec.ID) {
				t.Errorf("id %q is not a UUIDv7", rec.ID)
			}
			if rec.Role != message.RoleTool || rec.Type != message.TypeToolResult {
				t.Errorf("role/type = %s/%s, want tool/tool_result", rec.Role, rec.Type)
			}
			if rec.CreatedAt.Location() != time.UTC || time.Since(rec.CreatedAt) > time.Minute {
				t.Errorf("created_at = %v, want now in UTC", rec.CreatedAt)
			}
			if rec.DurationMS == nil {
				t.Errorf("duration_ms missing")
			}
			if tt.message == "" {
				if rec.Error != nil {
					t.Errorf("unexpected error %+v", rec.Error)
				}
				return
			}
			if rec.Error == nil || !regexp.MustCompile(tt.message).MatchString(rec.Error.Message) {
				t.Errorf("error = %+v, want a message matching %q", rec.Error, tt.message)
			}
		})
	}
}

func TestRunKeepsRequestOrder(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t, nil)
	r := New(reg, Options{Jobs: 8})
	var reqs []*request.Request
	var want []string
	for i := range 300 {
		id := fmt.Sprintf("r%d", i)
		q := &request.Request{ID: id, Name: "sleep", Args: map[string]any{"ms": rand.Float64() * 3}}
		if i%7 == 0 {
			q.Name = "nope" // refused at once, while earlier calls still run
		}
		reqs = append(reqs, q)
		want = append(want, id)
	}
	recs, sum := collect(t, context.Background(), r, reqs)
	var got []string
	for _, rec := range recs {
		got = append(got, rec.ParentID)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("record order mismatch (-want +got):\n%s", diff)
	}
	for i := 1; i < len(recs); i++ {
		if recs[i].ID <= recs[i-1].ID {
			t.Fatalf("record %d has id %s after %s: ids must increase in request order", i, recs[i].ID, recs[i-1].ID)
		}
	}
	if sum.Records != 300 || sum.Kinds[message.KindUnknownTool] != 43 || sum.Failed != 43 {
		t.Errorf("summary = %+v, want 300 records, 43 unknown_tool", sum)
	}
}

// TestRunRunsUpToJobsAtOnce checks that Jobs calls run at once and never
// more: the first Jobs calls wait at a barrier that opens only when Jobs
// of them are in flight (a runner that ran fewer at once would never open
// it), and every call counts how many run beside it.
func TestRunRunsUpToJobsAtOnce(t *testing.T) {
	t.Parallel()
	const jobs = 5
	reg := registry.New()
	var now, peak, arrived atomic.Int32
	barrier := make(chan struct{})
	reg.MustRegister(&registry.Spec{Name: "probe", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
		n := now.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		if a := arrived.Add(1); a == jobs {
			close(barrier)
		}
		<-barrier
		now.Add(-1)
		return nil, nil
	}})
	reqs := make([]*request.Request, 100)
	for i := range reqs {
		reqs[i] = &request.Request{Name: "probe"}
	}
	// A file's requests, in batches, and a model's, one at a time.
	collect(t, context.Background(), New(reg, Options{Jobs: jobs}), reqs)
	if p := peak.Load(); p != jobs {
		t.Errorf("in batches: peak concurrency = %d, want %d", p, jobs)
	}
	now.Store(0)
	peak.Store(0)
	arrived.Store(0)
	barrier = make(chan struct{})
	for _, q := range reqs {
		q.ID = ""
	}
	if _, err := New(reg, Options{Jobs: jobs}).RunAll(context.Background(), reqs); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p != jobs {
		t.Errorf("one at a time: peak concurrency = %d, want %d", p, jobs)
	}
}

// TestRunSpreadsSlowCallsOfABatch runs one batch of calls that each wait
// until every one of them has started: the workers must share the batch
// (a batch run by one worker would never open the barrier), whatever the
// calls before them took.
func TestRunSpreadsSlowCallsOfABatch(t *testing.T) {
	t.Parallel()
	const jobs = 8
	reg := registry.New()
	var arrived atomic.Int32
	barrier := make(chan struct{})
	reg.MustRegister(&registry.Spec{Name: "fast", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
		return nil, nil
	}})
	reg.MustRegister(&registry.Spec{Name: "wait", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
		if arrived.Add(1) == jobs {
			close(barrier)
		}
		<-barrier
		return nil, nil
	}})
	var reqs []*request.Request
	for range 300 {
		reqs = append(reqs, &request.Request{Name: "fast"}) // fast calls first: batches of one worker a core
	}
	for range jobs {
		reqs = append(reqs, &request.Request{Name: "wait"})
	}
	recs, _ := collect(t, context.Background(), New(reg, Options{Jobs: jobs}), reqs)
	if len(recs) != len(reqs) {
		t.Fatalf("%d records for %d requests", len(recs), len(reqs))
	}
}

// TestRunDoesNotHoldARequestBack gives Run requests that come one at a
// time, each only once the record of the one before is out (a pipe
// written by someone who waits for the answers): a request without the
// next at hand must not wait for more. If it did, the test would block,
// and the test binary's -timeout report it.
func TestRunDoesNotHoldARequestBack(t *testing.T) {
	t.Parallel()
	for _, jobs := range []int{1, 4} {
		t.Run(fmt.Sprint("jobs=", jobs), func(t *testing.T) {
			t.Parallel()
			answered := make(chan struct{}, 1)
			reqs := func(yield func(*request.Request) bool) {
				for i := range 20 {
					if i > 0 {
						<-answered
					}
					if !yield(&request.Request{ID: fmt.Sprint("r", i), Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}}) {
						return
					}
				}
			}
			n := 0
			_, err := New(testRegistry(t, nil), Options{Jobs: jobs}).Run(context.Background(), reqs, func(rec *message.Record) error {
				n++
				answered <- struct{}{}
				return nil
			})
			if err != nil || n != 20 {
				t.Fatalf("%d records, error %v; want 20", n, err)
			}
		})
	}
}

// TestRunInterruptAtRandomMoments interrupts runs at random moments and
// checks that every request taken gets exactly one record, in order, and
// that records after the interrupt are aborted: for a stream, the
// requests read by then (a prefix); for RunAll, every request.
func TestRunInterruptAtRandomMoments(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t, nil)
	for round := range 25 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			t.Parallel()
			jobs := 1 + rand.IntN(8)
			r := New(reg, Options{Jobs: jobs, Grace: time.Duration(rand.IntN(5)) * time.Millisecond})
			var reqs []*request.Request
			for i := range 200 {
				name := "sleep"
				if i%3 == 0 {
					name = "stubborn" // ignores its context: only the grace ends it
				}
				reqs = append(reqs, &request.Request{ID: fmt.Sprint(i), Name: name, Args: map[string]any{"ms": rand.Float64() * 2}})
			}
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Duration(rand.IntN(40))*time.Millisecond, cancel)
			all := round%2 == 0
			var recs []*message.Record
			var sum records.RunReport
			if all {
				var err error
				if recs, err = r.RunAll(ctx, reqs); err != nil {
					t.Fatal(err)
				}
				for _, rec := range recs {
					sum.Add(rec)
				}
			} else {
				recs, sum = collect(t, ctx, r, reqs)
			}
			cancel()
			switch {
			case all && len(recs) != len(reqs):
				t.Fatalf("RunAll: got %d records for %d requests", len(recs), len(reqs))
			case len(recs) > len(reqs):
				t.Fatalf("got %d records for %d requests", len(recs), len(reqs))
			case len(recs) < len(reqs) && !sum.StoppedReading:
				t.Fatalf("got %d records for %d requests, and the summary says reading did not stop", len(recs), len(reqs))
			}
			aborted := 0
			for i, rec := range recs {
				if rec.ParentID != reqs[i].ID {
					t.Fatalf("record %d answers %q, want %q", i, rec.ParentID, reqs[i].ID)
				}
				if rec.Status == message.StatusAborted {
					aborted++
					if rec.Error == nil || rec.Error.Kind != message.KindAborted || !rec.IsError {
						t.Errorf("aborted record %d: error = %+v", i, rec.Error)
					}
				} else if rec.Error != nil {
					t.Errorf("record %d: unexpected error %+v", i, rec.Error)
				}
			}
			if sum.Aborted != aborted || sum.Records != len(recs) {
				t.Errorf("summary = %+v, want %d aborted of %d", sum, aborted, len(recs))
			}
			if aborted > 0 && !all && !sum.Interrupted {
				t.Errorf("summary says not interrupted, but %d records were aborted", aborted)
			}
		})
	}
}

// TestRunStopsReadingOnInterrupt feeds Run a stream that never ends and is
// interrupted while it reads: the request read with the interrupt is
// recorded as aborted, and nothing more is read (yes |
// kesoku run - did not stop).
func TestRunStopsReadingOnInterrupt(t *testing.T) {
	t.Parallel()
	for _, jobs := range []int{1, 4} {
		t.Run(fmt.Sprint("jobs=", jobs), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			read := 0
			endless := func(yield func(*request.Request) bool) {
				for {
					read++
					if read == 51 {
						cancel() // the interrupt comes as the 51st request is read
					}
					if !yield(&request.Request{ID: fmt.Sprint("r", read), Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}}) {
						return
					}
				}
			}
			var recs []*message.Record
			sum, err := New(testRegistry(t, nil), Options{Jobs: jobs}).Run(ctx, endless, func(rec *message.Record) error {
				recs = append(recs, rec)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if read != 51 || len(recs) != 51 {
				t.Fatalf("read %d requests and recorded %d; want 51 and 51", read, len(recs))
			}
			for i, rec := range recs {
				if rec.ParentID != fmt.Sprint("r", i+1) {
					t.Fatalf("record %d answers %s", i, rec.ParentID)
				}
			}
			if last := recs[50]; last.Status != message.StatusAborted {
				t.Errorf("the request read with the interrupt: status %s, want aborted", last.Status)
			}
			if !sum.Interrupted || !sum.StoppedReading {
				t.Errorf("summary = %+v, want interrupted and stopped reading", sum)
			}
		})
	}
}

// TestRunAllAbortsQueued checks that every queued request of RunAll (the
// calls of a model turn, all in memory) is recorded as aborted on an
// interrupt, without waiting for the calls in flight beyond their grace.
func TestRunAllAbortsQueued(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t, nil)
	r := New(reg, Options{Jobs: 4, Grace: time.Hour})
	reqs := make([]*request.Request, 10000)
	for i := range reqs {
		reqs[i] = &request.Request{Name: "sleep", Args: map[string]any{"ms": 3.6e6}}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	recs, err := r.RunAll(ctx, reqs)
	if err != nil {
		t.Fatal(err)
	}
	aborted := 0
	for _, rec := range recs {
		if rec.Status == message.StatusAborted {
			aborted++
		}
	}
	// The sleeps honour their context, so even those that started are
	// aborted at once; nothing waits for the hour of grace.
	if len(recs) != 10000 || aborted != 10000 {
		t.Errorf("got %d records, %d aborted; want 10000 and 10000", len(recs), aborted)
	}
}

// TestRunGrace checks what the grace does with calls in flight, with
// tools that return only when the test lets them: what returns within the
// grace is recorded as it returned, what outlives it (or a second signal)
// is recorded as aborted, and what was queued is aborted.
func TestRunGrace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		grace    time.Duration
		endGrace bool
		// returns says the first call returns once its context is
		// cancelled; otherwise it returns only at the end of the test.
		returns bool
		status  message.Status
	}{
		{"returns within the grace", time.Hour, false, true, message.StatusResponded},
		{"outlives the grace", time.Millisecond, false, false, message.StatusAborted},
		{"a second signal ends the grace", time.Hour, true, false, message.StatusAborted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			started := make(chan struct{}, 2)
			release := make(chan struct{})
			t.Cleanup(func() { close(release) })
			reg := registry.New()
			reg.MustRegister(&registry.Spec{Name: "hold", Call: func(ctx context.Context, _ *registry.ToolContext, _ map[string]any) (any, error) {
				started <- struct{}{}
				if tt.returns {
					<-ctx.Done()
					return "returned", nil
				}
				<-release
				return "too late", nil
			}})
			reg.MustRegister(&registry.Spec{Name: "queued", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
				return "ran", nil
			}})
			end := make(chan struct{})
			r := New(reg, Options{Jobs: 2, Grace: tt.grace, EndGrace: end})
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				// Both slots are taken by calls in flight: interrupt.
				<-started
				<-started
				cancel()
				if tt.endGrace {
					close(end)
				}
			}()
			recs, err := r.RunAll(ctx, []*request.Request{
				{ID: "a", Name: "hold"},
				{ID: "b", Name: "hold"},
				{ID: "c", Name: "queued"},
			})
			if err != nil {
				t.Fatal(err)
			}
			got := []message.Status{recs[0].Status, recs[1].Status, recs[2].Status}
			want := []message.Status{tt.status, tt.status, message.StatusAborted}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("statuses mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t, nil)
	for _, name := range []string{"sleep", "stubborn"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := New(reg, Options{Timeout: 30 * time.Millisecond})
			recs, sum := collect(t, context.Background(), r, []*request.Request{
				{ID: "slow", Name: name, Args: map[string]any{"ms": 3000.0}},
				{ID: "fast", Name: name, Args: map[string]any{"ms": 1.0}},
			})
			if recs[0].Error == nil || recs[0].Error.Kind != message.KindTimeout || recs[0].Status != message.StatusResponded {
				t.Errorf("slow call: status %s, error %+v; want a timeout", recs[0].Status, recs[0].Error)
			} else if recs[0].Error.Message != "timed out after 30ms (the timeout for each call)" {
				// Only what the user needs: the bound, and which it was;
				// not the context's "context deadline exceeded".
				t.Errorf("timeout message %q, want %q", recs[0].Error.Message, "timed out after 30ms (the timeout for each call)")
			}
			if recs[1].Error != nil {
				t.Errorf("fast call: %+v", recs[1].Error)
			}
			if sum.Interrupted {
				t.Errorf("a timeout is not an interrupt")
			}
		})
	}
}

// TestRunToolTimeout: a tool's own timeout bounds its calls in place of
// --timeout, longer or shorter, and the record says which bound it was.
func TestRunToolTimeout(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	sleep, _ := testRegistry(t, nil).Lookup("sleep")
	own := *sleep
	own.Name, own.Timeout = "own", 30*time.Millisecond
	reg.MustRegister(sleep)
	reg.MustRegister(&own)
	r := New(reg, Options{Timeout: 10 * time.Second})
	recs, _ := collect(t, context.Background(), r, []*request.Request{
		{ID: "own", Name: "own", Args: map[string]any{"ms": 3000.0}},
		{ID: "flag", Name: "sleep", Args: map[string]any{"ms": 50.0}},
	})
	if e := recs[0].Error; e == nil || e.Kind != message.KindTimeout || !strings.Contains(e.Message, "timed out after 30ms (the tool's own timeout)") {
		t.Errorf("own timeout: %+v", e)
	}
	if recs[1].Error != nil {
		t.Errorf("a call within --timeout: %+v", recs[1].Error)
	}
	own.Timeout = time.Hour
	r = New(reg, Options{Timeout: 20 * time.Millisecond})
	recs, _ = collect(t, context.Background(), r, []*request.Request{{ID: "long", Name: "own", Args: map[string]any{"ms": 50.0}}})
	if recs[0].Error != nil {
		t.Errorf("a tool's own longer timeout lost to --timeout: %+v", recs[0].Error)
	}
}

type fakeModel struct{}

func (fakeModel) ModelName() string { return "gemini-test" }

type memStore struct{}

func (memStore) Append(context.Context, ...*message.Record) error { return nil }

func TestRunInjectsToolContext(t *testing.T) {
	t.Parallel()
	r := New(testRegistry(t, nil), Options{SessionID: "sess", AWD: "/awd", Staging: "/stage", Store: memStore{}, Model: fakeModel{}})
	recs, err := r.RunAll(context.Background(), []*request.Request{
		{ID: "tool_call_7", Name: "whoami", CallID: "toolu_01"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(recs[0].Content, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"session": "sess", "msg": "tool_call_7", "awd": "/awd", "staging": "/stage", "store": true, "model": "gemini-test"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToolContext mismatch (-want +got):\n%s", diff)
	}
	if recs[0].CallID != "toolu_01" || recs[0].ParentID != "tool_call_7" {
		t.Errorf("call_id/parent_id = %q/%q, want toolu_01/tool_call_7", recs[0].CallID, recs[0].ParentID)
	}
}

func TestRunTruncatesLargeOutput(t *testing.T) {
	t.Parallel()
	awd := t.TempDir()
	r := New(testRegistry(t, nil), Options{MaxOutput: 100, AWD: awd})
	recs, _ := collect(t, context.Background(), r, []*request.Request{
		{ID: "small", Name: "big", Args: map[string]any{"n": 50.0}},
		{ID: "large", Name: "big", Args: map[string]any{"n": 10000.0}},
	})
	if recs[0].Truncated != nil {
		t.Errorf("50 bytes were truncated at a 100-byte limit: %+v", recs[0].Truncated)
	}
	rec := recs[1]
	if rec.Truncated == nil {
		t.Fatalf("10,000 bytes were not truncated at a 100-byte limit")
	}
	if !regexp.MustCompile(`^\.kesoku/outputs/[0-9a-f-]{36}\.txt$`).MatchString(rec.Truncated.SavedTo) {
		t.Errorf("saved to %q, want .kesoku/outputs/UUID.txt", rec.Truncated.SavedTo)
	}
	want := &message.Truncation{Bytes: 10000, SavedTo: rec.Truncated.SavedTo}
	if diff := cmp.Diff(want, rec.Truncated); diff != "" {
		t.Errorf("truncation mismatch (-want +got):\n%s", diff)
	}
	var content string
	if err := json.Unmarshal(rec.Content, &content); err != nil {
		t.Fatalf("truncated content is not a JSON string: %v", err)
	}
	if !strings.HasPrefix(content, strings.Repeat("a", 50)+"\n[... kesoku cut 9900 of 10000 bytes") ||
		!strings.HasSuffix(content, "...]\n"+strings.Repeat("z", 50)) || !strings.Contains(content, want.SavedTo) {
		t.Errorf("content = %q, want 50 bytes of head, a note naming the saved file, 50 of tail", content)
	}
	whole, err := os.ReadFile(filepath.Join(awd, want.SavedTo))
	if err != nil {
		t.Fatal(err)
	}
	if string(whole) != strings.Repeat("a", 5000)+strings.Repeat("z", 5000) {
		t.Errorf("saved output is not the whole output (%d bytes)", len(whole))
	}
}

// TestRunClipsLargeErrors pins that an error message, which a tool may
// fill with anything (a whole failed command's output), is held to
// --max-output as content is: head and tail, with a note of what was cut
// (a huge output gets a clear record, never an unbounded line).
func TestRunClipsLargeErrors(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	reg.MustRegister(&registry.Spec{Name: "loud_failure", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
		return nil, errors.New(strings.Repeat("a", 5000) + strings.Repeat("z", 5000))
	}})
	reg.MustRegister(&registry.Spec{Name: "quiet_failure", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
		return nil, errors.New(strings.Repeat("q", 100))
	}})
	r := New(reg, Options{MaxOutput: 100, AWD: t.TempDir()})
	recs, _ := collect(t, context.Background(), r, []*request.Request{
		{Name: "loud_failure"},
		{Name: "quiet_failure"},
	})
	want := []*message.ErrorInfo{
		{Kind: message.KindToolError, Message: strings.Repeat("a", 50) + "\n[... 9900 bytes cut ...]\n" + strings.Repeat("z", 50)},
		{Kind: message.KindToolError, Message: strings.Repeat("q", 100)}, // at the limit: whole
	}
	var got []*message.ErrorInfo
	for _, rec := range recs {
		got = append(got, rec.Error)
		if !rec.IsError || rec.Content != nil || rec.Truncated != nil {
			t.Errorf("%s: is_error %v, content %s, truncated %+v; want an error record only", rec.Name, rec.IsError, rec.Content, rec.Truncated)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors mismatch (-want +got):\n%s", diff)
	}
}

func TestRunFailFast(t *testing.T) {
	t.Parallel()
	c := &calls{}
	r := New(testRegistry(t, c), Options{FailFast: true})
	recs, sum := collect(t, context.Background(), r, []*request.Request{
		{ID: "1", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
		{ID: "2", Name: "fail"},
		{ID: "3", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
		{ID: "4", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
	})
	var got []shape
	for _, rec := range recs {
		got = append(got, shapeOf(rec))
	}
	want := []shape{
		{ParentID: "1", Name: "sum", Status: "responded", Content: "3"},
		{ParentID: "2", Name: "fail", Status: "responded", Kind: "tool_error", IsError: true},
		{ParentID: "3", Name: "sum", Status: "aborted", Kind: "aborted", IsError: true},
		{ParentID: "4", Name: "sum", Status: "aborted", Kind: "aborted", IsError: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s", diff)
	}
	if !sum.FailedFast || sum.Interrupted {
		t.Errorf("summary = %+v, want FailedFast and not Interrupted", sum)
	}
	if !strings.Contains(recs[2].Error.Message, "an earlier call failed") {
		t.Errorf("aborted message %q does not say why", recs[2].Error.Message)
	}
	if c.n["3"] != 0 {
		t.Errorf("request 3 ran after the failure")
	}
}

func TestRunRefusesDuplicateIDs(t *testing.T) {
	t.Parallel()
	c := &calls{}
	r := New(testRegistry(t, c), Options{})
	recs, _ := collect(t, context.Background(), r, []*request.Request{
		{ID: "x", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
		{ID: "x", Name: "sum", Args: map[string]any{"a": 5.0, "b": 5.0}, Pos: yamlpos.Pos{File: "b.jsonl", Line: 2, Col: 1}},
		{ID: "call_3", Name: "sum", Args: map[string]any{"a": 1.0, "b": 1.0}},
		{Name: "sum", Args: map[string]any{"a": 1.0, "b": 1.0}}, // becomes call_4
	})
	var got []shape
	for _, rec := range recs {
		got = append(got, shapeOf(rec))
	}
	want := []shape{
		{ParentID: "x", Name: "sum", Status: "responded", Content: "3"},
		{ParentID: "x", Name: "sum", Status: "responded", Kind: "invalid_request", IsError: true},
		{ParentID: "call_3", Name: "sum", Status: "responded", Content: "2"},
		{ParentID: "call_4", Name: "sum", Status: "responded", Content: "2"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s", diff)
	}
	if c.n["x"] != 1 {
		t.Errorf("id x ran %d times, want once", c.n["x"])
	}
	if want := `b.jsonl:2:1: duplicate id "x"`; !strings.HasPrefix(recs[1].Error.Message, want) {
		t.Errorf("message %q does not start with %q", recs[1].Error.Message, want)
	}
}

// TestRunResumeFinishesTheRest interrupts a run, then runs the same
// requests again with the finished ids skipped, as --resume does: every
// request ends with exactly one finished record and no call ran twice.
// TestRunResumeNamesByPosition pins that a request without an id is
// call_N by its position in the whole run, skipped requests counted: the
// same request gets the same id when the run is resumed, so --resume can
// finish a batch whose requests have no ids.
func TestRunResumeNamesByPosition(t *testing.T) {
	t.Parallel()
	reqs := make([]*request.Request, 4)
	finished := records.NewFinished()
	for i := range reqs {
		reqs[i] = &request.Request{Name: "sum", Args: map[string]any{"a": 1.0, "b": float64(i)}}
		if i%2 == 0 {
			finished.Add(records.Head{ParentID: fmt.Sprint("call_", i+1), Name: "sum", ArgsHash: records.ArgsHash(reqs[i].Args),
				Type: message.TypeToolResult, Status: message.StatusResponded})
		}
	}
	recs, sum := collect(t, context.Background(), New(testRegistry(t, nil), Options{Finished: finished}), reqs)
	var got []string
	for _, rec := range recs {
		got = append(got, rec.ParentID+"="+string(rec.Content))
	}
	if diff := cmp.Diff([]string{"call_2=2", "call_4=4"}, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s", diff)
	}
	if sum.Skipped != 2 {
		t.Errorf("skipped %d, want 2", sum.Skipped)
	}
}

func TestRunResumeFinishesTheRest(t *testing.T) {
	t.Parallel()
	for round := range 10 {
		t.Run(fmt.Sprint(round), func(t *testing.T) {
			t.Parallel()
			c := &calls{}
			reg := testRegistry(t, c)
			var reqs []*request.Request
			newReqs := func() []*request.Request {
				// A new run reads the file anew: fresh requests, same ids.
				out := make([]*request.Request, 300)
				for i := range out {
					out[i] = &request.Request{ID: fmt.Sprint("r", i), Name: "sleep", Args: map[string]any{"ms": 0.2}}
				}
				return out
			}
			reqs = newReqs()
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(time.Duration(rand.IntN(30))*time.Millisecond, cancel)
			// A grace longer than any call here: Run returns only once every
			// call it started has returned, so that counting the calls of the
			// first run cannot race with a call still entering its tool.
			first, _ := collect(t, ctx, New(reg, Options{Jobs: 4, ArgsHash: true, Grace: time.Minute}), reqs)
			cancel()

			c.mu.Lock()
			ranFirst := maps.Clone(c.n)
			c.mu.Unlock()
			finished := records.NewFinished()
			for _, rec := range first {
				finished.Add(records.HeadOf(rec))
			}
			var told atomic.Int64
			onSkip := func(q *request.Request) {
				if !finished.Has(q.ID) {
					t.Errorf("told of skipping %s, which did not finish", q.ID)
				}
				told.Add(1)
			}
			second, sum := collect(t, context.Background(), New(reg, Options{Jobs: 4, Finished: finished, OnSkip: onSkip}), newReqs())
			if sum.Skipped != finished.Len() || len(second)+finished.Len() != len(reqs) {
				t.Errorf("second run: %d records, %d skipped; first finished %d of %d", len(second), sum.Skipped, finished.Len(), len(reqs))
			}
			if told.Load() != int64(sum.Skipped) {
				t.Errorf("OnSkip told of %d skipped requests, want %d", told.Load(), sum.Skipped)
			}
			done := map[string]int{}
			for _, rec := range append(first, second...) {
				if rec.Status != message.StatusAborted {
					done[rec.ParentID]++
				}
			}
			for _, q := range reqs {
				if done[q.ID] != 1 {
					t.Errorf("%s has %d finished records, want 1", q.ID, done[q.ID])
				}
				// A call cut short in flight is run again; a finished one never.
				again := c.n[q.ID] - ranFirst[q.ID]
				if finished.Has(q.ID) && again != 0 || again > 1 {
					t.Errorf("%s ran %d times in the first run and %d in the second (finished first: %v)", q.ID, ranFirst[q.ID], again, finished.Has(q.ID))
				}
			}
		})
	}
}

func TestRunStopsOnEmitError(t *testing.T) {
	t.Parallel()
	r := New(testRegistry(t, nil), Options{Jobs: 3})
	broken := errors.New("disk full")
	n := 0
	_, err := r.Run(context.Background(), func(yield func(*request.Request) bool) {
		for {
			if !yield(&request.Request{Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}}) {
				return
			}
		}
	}, func(*message.Record) error {
		if n++; n == 10 {
			return broken
		}
		return nil
	})
	if !errors.Is(err, broken) {
		t.Errorf("Run error = %v, want %v", err, broken)
	}
}

func TestRunFailFastRunsWhatCameBefore(t *testing.T) {
	t.Parallel()
	c := &calls{}
	r := New(testRegistry(t, c), Options{FailFast: true, Jobs: 4, Grace: time.Second})
	recs, sum := collect(t, context.Background(), r, []*request.Request{
		{ID: "slow", Name: "sleep", Args: map[string]any{"ms": 100.0}},
		{ID: "stubborn", Name: "stubborn", Args: map[string]any{"ms": 50.0}},
		{ID: "bad", Name: "sum", Args: map[string]any{"a": 1.0}},
		{ID: "later", Name: "sleep", Args: map[string]any{"ms": 5000.0}},
		{ID: "queued", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
	})
	var got []string
	for _, rec := range recs {
		got = append(got, rec.ParentID+":"+string(rec.Status))
	}
	want := []string{"slow:responded", "stubborn:responded", "bad:responded", "later:aborted", "queued:aborted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s", diff)
	}
	if recs[0].Error != nil || recs[1].Error != nil {
		t.Errorf("calls before the failure were cut short: %+v %+v", recs[0].Error, recs[1].Error)
	}
	if !sum.FailedFast || sum.Interrupted {
		t.Errorf("summary = %+v, want FailedFast, not Interrupted", sum)
	}
}

// BenchmarkRun is the per-request path of the runner alone: steps 1–5 for
// requests already parsed, with a tool that adds two numbers. One op is
// one request.
func BenchmarkRun(b *testing.B) {
	for _, jobs := range []int{1, 8} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			r := New(testRegistry(b, nil), Options{Jobs: jobs, SessionID: "bench"})
			b.ReportAllocs()
			b.ResetTimer()
			r.Run(context.Background(), func(yield func(*request.Request) bool) {
				for i := range b.N {
					if !yield(&request.Request{Name: "sum", Args: map[string]any{"a": int64(i), "b": int64(2)}}) {
						return
					}
				}
			}, func(*message.Record) error { return nil })
		})
	}
}

// TestCheckerAgreesWithRun: the Checker (kesoku validate) names the
// requests without an id and refuses duplicates exactly as Run does, and
// finds what Run's steps 1 and 3 would refuse.
func TestCheckerAgreesWithRun(t *testing.T) {
	t.Parallel()
	reqs := func() []*request.Request {
		return []*request.Request{
			{ID: "x", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
			{ID: "x", Name: "sum", Args: map[string]any{"a": 5.0, "b": 5.0}, Pos: yamlpos.Pos{File: "b.jsonl", Line: 2, Col: 1}},
			{Name: "sum", Args: map[string]any{"a": 1.0}},       // call_3
			{Name: "summ", Args: map[string]any{"a": 1.0}},      // call_4
			{ID: "call_4", Name: "sum", Args: map[string]any{}}, // call_4 again
			{Err: errors.New("not an object")},                  // call_6
			{Name: "sum", Args: map[string]any{"a": 1.0, "b": 1.0}},
			// What the tool refuses before it runs, with the call's context.
			{Name: "bounded", Args: map[string]any{"n": 11.0}, Pos: yamlpos.Pos{File: "b.jsonl", Line: 9, Col: 1}},
			{Name: "bounded", Args: map[string]any{"n": 9.0}},
		}
	}
	c := &calls{}
	r := New(testRegistry(t, c), Options{AWD: "/awd"})
	recs, _ := collect(t, context.Background(), r, reqs())
	check := r.Checker()
	for i, req := range reqs() {
		p := check.Check(req)
		rec := recs[i]
		if req.ID != rec.ParentID {
			t.Errorf("request %d: Checker names it %q, Run %q", i+1, req.ID, rec.ParentID)
		}
		switch {
		case p == nil && rec.Error != nil:
			t.Errorf("request %d: Checker finds nothing, Run records %s: %s", i+1, rec.Error.Kind, rec.Error.Message)
		case p != nil && rec.Error == nil:
			t.Errorf("request %d: Checker finds %s: %s, Run ran it", i+1, p.Kind, p)
		case p != nil && (p.Kind != rec.Error.Kind || p.String() != rec.Error.Message):
			t.Errorf("request %d: Checker finds %s: %s, Run records %s: %s", i+1, p.Kind, p, rec.Error.Kind, rec.Error.Message)
		}
	}
	if rec := recs[7]; rec.Error == nil || rec.Error.Message != `b.jsonl:9:1: tool "bounded": args.n: invalid value: 11 is more than 10 (in /awd)` {
		t.Errorf("the refusal before the call: %+v", rec.Error)
	}
	if n := c.n["call_8"]; n != 0 {
		t.Errorf("a call refused before it ran ran %d times", n)
	}
}

// TestRunNeverStartsACallRecordedAsNotStarted holds the worker between the
// interrupt check and the tool while the grace (none) ends and the writer
// records the call as never started: once let go, the worker must not run
// the tool. Not parallel: it sets the worker's hook.
func TestRunNeverStartsACallRecordedAsNotStarted(t *testing.T) {
	c := &calls{}
	entered, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	testHookExecute = func(execute func()) {
		close(entered)
		<-release
		execute()
		close(done)
	}
	defer func() { testHookExecute = nil }()

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-entered
		cancel()
	}()
	var recs []*message.Record
	reqs := []*request.Request{{ID: "w", Name: "sleep", Args: map[string]any{"ms": 0.0}}}
	_, err := New(testRegistry(t, c), Options{Jobs: 1}).Run(ctx, slices.Values(reqs), func(rec *message.Record) error {
		recs = append(recs, rec)
		close(release) // the record is out: now the worker goes on
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if len(recs) != 1 || recs[0].Status != message.StatusAborted || !strings.Contains(recs[0].Error.Message, "before it started") {
		t.Fatalf("records = %+v, want one aborted before it started", recs)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n["w"] != 0 {
		t.Errorf("the tool ran %d times after its record said it never started", c.n["w"])
	}
}

// TestRunStartsInRequestOrder runs requests in waves of Jobs calls, each
// call waiting until Jobs of them have arrived: with calls started in
// request order, wave k is requests kJobs to kJobs+Jobs-1, whatever worker
// takes which, because no worker is free to take another request before
// the wave is whole. A request started while one before it waited
// unstarted shows in the wrong wave.
func TestRunStartsInRequestOrder(t *testing.T) {
	t.Parallel()
	const jobs, waves = 3, 12
	reg := registry.New()
	var mu sync.Mutex
	var arrived []string
	gates := make([]chan struct{}, waves)
	for i := range gates {
		gates[i] = make(chan struct{})
	}
	reg.MustRegister(&registry.Spec{Name: "wave", Call: func(_ context.Context, tc *registry.ToolContext, _ map[string]any) (any, error) {
		mu.Lock()
		arrived = append(arrived, tc.OriginalMsgID)
		n := len(arrived)
		mu.Unlock()
		gate := gates[(n-1)/jobs]
		if n%jobs == 0 {
			close(gate)
		}
		<-gate
		return nil, nil
	}})
	for _, run := range []string{"batches", "one at a time"} {
		arrived = nil
		for i := range gates {
			gates[i] = make(chan struct{})
		}
		reqs := make([]*request.Request, jobs*waves)
		for i := range reqs {
			reqs[i] = &request.Request{ID: fmt.Sprint("q", i), Name: "wave"}
		}
		if run == "batches" {
			collect(t, context.Background(), New(reg, Options{Jobs: jobs}), reqs)
		} else if _, err := New(reg, Options{Jobs: jobs}).RunAll(context.Background(), reqs); err != nil {
			t.Fatal(err)
		}
		for w := range waves {
			got := slices.Sorted(slices.Values(arrived[w*jobs : (w+1)*jobs]))
			var want []string
			for i := w * jobs; i < (w+1)*jobs; i++ {
				want = append(want, fmt.Sprint("q", i))
			}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s: wave %d started %v, want %v (all: %v)", run, w, got, want, arrived)
				break
			}
		}
	}
}

// TestRunBoundsTheBytesHeld runs long requests (by their Size) through a
// tool that does not return until the dispatcher has taken all it may:
// until it waits for room, or has taken more than the bytes bound lets
// it. The requests taken and not yet written never outgrow the bound by
// more than the one in the dispatcher's hand.
func TestRunBoundsTheBytesHeld(t *testing.T) {
	const size = roomBytes / 4
	reg := registry.New()
	var taken, written atomic.Int64
	most := int64(0)
	far := make(chan struct{})
	var once sync.Once
	enough := func() { once.Do(func() { close(far) }) }
	testHookRoomWait = enough
	defer func() { testHookRoomWait = nil }()
	reg.MustRegister(&registry.Spec{Name: "hold", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
		<-far
		return nil, nil
	}})
	reqs := func(yield func(*request.Request) bool) {
		for i := range 40 {
			held := taken.Add(1) - written.Load()
			most = max(most, held) // the dispatcher's alone
			if held > roomBytes/size+1 {
				enough()
			}
			if !yield(&request.Request{ID: fmt.Sprint("q", i), Name: "hold", Size: size, More: true}) {
				return
			}
		}
	}
	_, err := New(reg, Options{Jobs: 1}).Run(context.Background(), reqs, func(*message.Record) error {
		written.Add(1)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := written.Load(); n != 40 {
		t.Errorf("%d records, want 40", n)
	}
	if want := int64(roomBytes/size + 1); most > want {
		t.Errorf("%d requests of %d bytes held at once, want at most %d", most, size, want)
	}
}

// TestRunPlacesAToolsRefusal: arguments that the tool itself refuses (a
// path outside the working directory) are recorded as a refusal of the
// validation is, with the request's place in its file and the tool's name.
func TestRunPlacesAToolsRefusal(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t, nil)
	reqs := []*request.Request{
		{ID: "a", Name: "bad_path", Pos: yamlpos.Pos{File: "r.jsonl", Line: 3, Col: 1}},
		{ID: "b", Name: "sum", Args: map[string]any{"a": 1.0}, Pos: yamlpos.Pos{File: "r.jsonl", Line: 4, Col: 1}},
		{ID: "c", Name: "bad_path"}, // a model's call: no place
	}
	recs, _ := collect(t, context.Background(), New(reg, Options{}), reqs)
	want := []string{
		`r.jsonl:3:1: tool "bad_path": args.path: invalid value: "../x" leads out of the working directory`,
		`r.jsonl:4:1: tool "sum": args.b: missing required argument: expected number (float64)`,
		`tool "bad_path": args.path: invalid value: "../x" leads out of the working directory`,
	}
	for i, rec := range recs {
		if rec.Error == nil || rec.Error.Kind != message.KindInvalidArgs || rec.Error.Message != want[i] {
			t.Errorf("request %s: %+v, want invalid_args %q", rec.ParentID, rec.Error, want[i])
		}
	}
}

// TestRunFillsEveryWorkerAcrossBatches: Jobs calls that each wait until
// all of them have started, more of them than the first batch holds: the
// workers must be woken for the batch after the first as well. If they
// were not, the calls would wait for ever, and the test binary's -timeout
// report it.
func TestRunFillsEveryWorkerAcrossBatches(t *testing.T) {
	t.Parallel()
	for _, jobs := range []int{9, 16, 40} {
		reg := registry.New()
		var arrived atomic.Int32
		barrier := make(chan struct{})
		reg.MustRegister(&registry.Spec{Name: "meet", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
			if int(arrived.Add(1)) == jobs {
				close(barrier)
			}
			<-barrier
			return nil, nil
		}})
		reqs := make([]*request.Request, jobs)
		for i := range reqs {
			reqs[i] = &request.Request{Name: "meet"}
		}
		if recs, _ := collect(t, context.Background(), New(reg, Options{Jobs: jobs}), reqs); len(recs) != jobs {
			t.Fatalf("jobs=%d: %d records", jobs, len(recs))
		}
	}
}

// TestSavedOutputHidesSecrets: the whole output saved when a record
// holds only its head and tail holds no secret the run knows, and a
// secret cut in two where the head ends is hidden whole.
func TestSavedOutputHidesSecrets(t *testing.T) {
	t.Parallel()
	const tok = "provider-key-5be1c0ffee"
	reg := registry.New()
	reg.MustRegister(&registry.Spec{Name: "leak", Call: func(context.Context, *registry.ToolContext, map[string]any) (any, error) {
		return strings.Repeat("x", 40) + tok + strings.Repeat("y", 5000) + tok, nil
	}})
	awd := t.TempDir()
	r := New(reg, Options{MaxOutput: 100, AWD: awd, Secrets: secret.NewRedactor(tok)})
	recs, _ := collect(t, context.Background(), r, []*request.Request{{Name: "leak"}})
	rec := recs[0]
	if rec.Truncated == nil {
		t.Fatalf("not truncated: %s", rec.Content)
	}
	whole, err := os.ReadFile(filepath.Join(awd, rec.Truncated.SavedTo))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(whole), tok) || !strings.HasSuffix(string(whole), "y"+secret.Redacted) {
		t.Errorf("the saved output holds the secret: ...%s", whole[len(whole)-60:])
	}
	if strings.Contains(string(rec.Content), "provider-") {
		t.Errorf("the record holds a piece of the secret: %s", rec.Content)
	}
}

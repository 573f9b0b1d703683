package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/message"
)

// byName decides each call by its tool's name: a policy for tests.
func byName(m map[string]policy.Decision) policy.Decider {
	return policy.DeciderFunc(func(_ context.Context, c *policy.Call) policy.Decision {
		return m[c.Name]
	})
}

// Every way into the runner — Run (a file, --fail-fast's dispatcher that
// validates in order), RunAll (a model's turn) and RunOne (an MCP
// client's call) — passes the decision point: a denied call never runs,
// and its record says what denied it.
func TestDecisionPointEveryPath(t *testing.T) {
	t.Parallel()
	deny := policy.Decision{Verdict: policy.Deny, By: `deny rule "sum"`, Reason: "no sums today"}
	allow := policy.Decision{Verdict: policy.Allow, By: `allow rule "fail"`}
	paths := map[string]func(r *ToolRunner, reqs []*request.Request) []*message.Record{
		"Run": func(r *ToolRunner, reqs []*request.Request) []*message.Record {
			recs, _ := collect(t, context.Background(), r, reqs)
			return recs
		},
		"RunAll": func(r *ToolRunner, reqs []*request.Request) []*message.Record {
			recs, err := r.RunAll(context.Background(), reqs)
			if err != nil {
				t.Fatal(err)
			}
			return recs
		},
		"RunOne": func(r *ToolRunner, reqs []*request.Request) []*message.Record {
			var recs []*message.Record
			for _, q := range reqs {
				recs = append(recs, r.RunOne(context.Background(), q))
			}
			return recs
		},
	}
	for name, path := range paths {
		for _, failFast := range []bool{false, true} {
			t.Run(name, func(t *testing.T) {
				c := &calls{}
				r := New(testRegistry(t, c), Options{SessionID: "s", FailFast: failFast && name == "Run",
					Policy: byName(map[string]policy.Decision{"sum": deny, "fail": allow})})
				recs := path(r, []*request.Request{
					{ID: "a", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
					{ID: "b", Name: "fail"},
				})
				if len(recs) != 2 {
					t.Fatalf("%d records, want 2", len(recs))
				}
				got := shapeOf(recs[0])
				want := shape{ParentID: "a", Name: "sum", Session: "s", Status: message.StatusResponded, Kind: message.KindDenied, IsError: true}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("denied call's record (-want +got):\n%s", diff)
				}
				if recs[0].DecidedBy != deny.By || !strings.Contains(recs[0].Error.Message, "denied by "+deny.By+": no sums today") {
					t.Errorf("decided_by %q, message %q: want the rule and its reason", recs[0].DecidedBy, recs[0].Error.Message)
				}
				if c.n["a"] != 0 {
					t.Errorf("the denied call ran %d times", c.n["a"])
				}
				if failFast && name == "Run" {
					// The denial is the run's first error: the rest is cut.
					if recs[1].Status != message.StatusAborted {
						t.Errorf("after a denial under --fail-fast: %+v", recs[1])
					}
					return
				}
				if recs[1].DecidedBy != allow.By || recs[1].Error.Kind != message.KindToolError || c.n["b"] != 1 {
					t.Errorf("allowed call: decided_by %q, error %+v, ran %d times", recs[1].DecidedBy, recs[1].Error, c.n["b"])
				}
			})
		}
	}
}

// A deferred call stops the run at it: what comes before it runs, it
// waits with a deferred record, and nothing after it starts.
func TestDecisionDeferStopsTheRun(t *testing.T) {
	t.Parallel()
	c := &calls{}
	r := New(testRegistry(t, c), Options{SessionID: "s",
		Policy: byName(map[string]policy.Decision{"fail": {Verdict: policy.Defer, By: `ask rule "fail"; --on-ask defer`}})})
	recs, sum := collect(t, context.Background(), r, []*request.Request{
		{ID: "a", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
		{ID: "b", Name: "fail"},
		{ID: "c", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
	})
	var got []string
	for _, rec := range recs {
		got = append(got, rec.ParentID+" "+string(rec.Status))
	}
	want := []string{"a responded", "b deferred", "c aborted"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("records (-want +got):\n%s", diff)
	}
	if k := recs[1].Error.Kind; k != message.KindDeferred || !strings.Contains(recs[1].Error.Message, "kesoku approve") {
		t.Errorf("deferred record: %+v", recs[1].Error)
	}
	if !strings.Contains(recs[2].Error.Message, "deferred") {
		t.Errorf("the call after it says %q: not why it did not start", recs[2].Error.Message)
	}
	if c.n["b"] != 0 || c.n["c"] != 0 {
		t.Errorf("calls ran: %v", c.n)
	}
	if sum.FailedFast || sum.Kinds[message.KindDeferred] != 1 {
		t.Errorf("summary %+v: want one deferred, not a --fail-fast stop", sum)
	}
}

// Arguments a step rewrote are validated again, as a model's are: wrong
// ones never reach the tool, right ones are what it gets.
func TestDecisionUpdatedArgsValidatedAgain(t *testing.T) {
	t.Parallel()
	var seen map[string]any
	rewrite := policy.DeciderFunc(func(_ context.Context, c *policy.Call) policy.Decision {
		seen = c.Args
		if c.ID == "bad" {
			return policy.Decision{Verdict: policy.Allow, By: "hook", UpdatedArgs: map[string]any{"a": "one"}}
		}
		return policy.Decision{By: "hook", UpdatedArgs: map[string]any{"a": 40.0, "b": 2.0}}
	})
	r := New(testRegistry(t, nil), Options{SessionID: "s", Policy: rewrite})
	bad := r.RunOne(context.Background(), &request.Request{ID: "bad", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}})
	if bad.Error == nil || bad.Error.Kind != message.KindInvalidArgs || bad.DecidedBy != "hook" {
		t.Errorf("a rewrite to wrong arguments: %+v (%+v)", bad, bad.Error)
	}
	good := r.RunOne(context.Background(), &request.Request{ID: "good", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}})
	if string(good.Content) != "42" || good.DecidedBy != "hook" {
		t.Errorf("a rewrite to right arguments: content %s, decided_by %q", good.Content, good.DecidedBy)
	}
	if seen["a"] != 1.0 {
		t.Errorf("the policy saw %v: not the call's arguments", seen)
	}
}

package runner

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/message"
)

// The step after a call (the PostToolUse hooks) hears of every call that
// ran and succeeded, with its content, on every way into the runner, and
// its record keeps what it said; a call that failed or never ran is not
// told of.
func TestAfterCall(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"Run", "RunAll", "RunOne"} {
		t.Run(path, func(t *testing.T) {
			var mu sync.Mutex
			seen := map[string]string{}
			after := func(_ context.Context, c *policy.Call, content json.RawMessage) string {
				mu.Lock()
				defer mu.Unlock()
				seen[c.ID] = c.Name + " " + string(content)
				return "checked " + c.ID + " sekrit-0123456789"
			}
			deny := policy.DeciderFunc(func(_ context.Context, c *policy.Call) policy.Decision {
				if c.ID == "denied" {
					return policy.Decision{Verdict: policy.Deny, By: "test"}
				}
				return policy.Decision{}
			})
			opts := Options{SessionID: "s", Policy: deny, After: after, Secrets: secret.NewRedactor("sekrit-0123456789")}
			r := New(testRegistry(t, nil), opts)
			reqs := []*request.Request{
				{ID: "ok", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
				{ID: "failed", Name: "fail"},
				{ID: "denied", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
			}
			var recs []*message.Record
			switch path {
			case "Run":
				recs, _ = collect(t, context.Background(), r, reqs)
			case "RunAll":
				var err error
				if recs, err = r.RunAll(context.Background(), reqs); err != nil {
					t.Fatal(err)
				}
			case "RunOne":
				for _, q := range reqs {
					recs = append(recs, r.RunOne(context.Background(), q))
				}
			}
			if len(seen) != 1 || seen["ok"] != "sum 3" {
				t.Errorf("the step after the call heard of %v, want the one call that succeeded", seen)
			}
			if got := recs[0].HookFeedback; got != "checked ok [redacted]" {
				t.Errorf("hook_feedback %q", got)
			}
			for _, rec := range recs[1:] {
				if rec.HookFeedback != "" {
					t.Errorf("%s: hook_feedback %q", rec.ParentID, rec.HookFeedback)
				}
			}
		})
	}
}

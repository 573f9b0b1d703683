package runner

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/message"
)

// RunOne gives the record Run gives a run of that one request, whatever
// happens to it.
func TestRunOneIsRunOfOne(t *testing.T) {
	t.Parallel()
	reg := testRegistry(t, nil)
	for _, tc := range []struct {
		name string
		req  request.Request
		opts Options
		// interrupt cancels the context 10ms into the call; at once
		// when before.
		interrupt, before bool
	}{
		{name: "success", req: request.Request{ID: "c1", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}}},
		{name: "no id", req: request.Request{Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}}},
		{name: "invalid request", req: request.Request{ID: "c2", Name: "sum", Err: context.Canceled}},
		{name: "unknown tool", req: request.Request{ID: "c3", Name: "summ"}},
		{name: "invalid args", req: request.Request{ID: "c4", Name: "sum", Args: map[string]any{"a": 1.0}}},
		{name: "tool error", req: request.Request{ID: "c5", Name: "fail"}},
		{name: "panic", req: request.Request{ID: "c6", Name: "boom_value"}},
		{name: "timeout", req: request.Request{ID: "c7", Name: "sleep", Args: map[string]any{"ms": 5000.0}}, opts: Options{Timeout: 10 * time.Millisecond}},
		{name: "truncated", req: request.Request{ID: "c8", Name: "big", Args: map[string]any{"n": 100.0}}, opts: Options{MaxOutput: 20}},
		{name: "interrupted before", req: request.Request{ID: "c9", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}}, interrupt: true, before: true},
		{name: "interrupted, returns in the grace", req: request.Request{ID: "c10", Name: "sleep", Args: map[string]any{"ms": 5000.0}}, opts: Options{Grace: time.Minute}, interrupt: true},
		{name: "interrupted, outlives the grace", req: request.Request{ID: "c11", Name: "stubborn", Args: map[string]any{"ms": 2000.0}}, opts: Options{Grace: 10 * time.Millisecond}, interrupt: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.opts.SessionID, tc.opts.OutputDir = "s", t.TempDir()
			r := New(reg, tc.opts)
			run := func(f func(context.Context, *request.Request) *message.Record) *message.Record {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				switch {
				case tc.before:
					cancel()
				case tc.interrupt:
					time.AfterFunc(10*time.Millisecond, cancel)
				}
				req := tc.req
				return f(ctx, &req)
			}
			want := run(func(ctx context.Context, req *request.Request) *message.Record {
				recs, err := r.RunAll(ctx, []*request.Request{req})
				if err != nil || len(recs) != 1 {
					t.Fatalf("RunAll: %d records, %v", len(recs), err)
				}
				return recs[0]
			})
			got := run(r.RunOne)
			if !uuidV7.MatchString(got.ID) {
				t.Errorf("id %q is not a UUIDv7", got.ID)
			}
			ws, gs := shapeOf(want), shapeOf(got)
			if want.Truncated != nil && got.Truncated != nil {
				// Each saved the whole output to a file of its own.
				ws.Content = strings.ReplaceAll(ws.Content, want.Truncated.SavedTo, "FILE")
				gs.Content = strings.ReplaceAll(gs.Content, got.Truncated.SavedTo, "FILE")
			}
			if diff := cmp.Diff(ws, gs); diff != "" {
				t.Errorf("RunOne's record differs from Run's (-run +one):\n%s", diff)
			}
			if (want.Error == nil) != (got.Error == nil) || want.Error != nil && !sameMessage(want.Error.Message, got.Error.Message) {
				t.Errorf("error %+v, Run's %+v", got.Error, want.Error)
			}
			if (want.Truncated == nil) != (got.Truncated == nil) {
				t.Errorf("truncated %+v, Run's %+v", got.Truncated, want.Truncated)
			}
		})
	}
}

// sameMessage compares two error messages but for what varies between
// calls: the lines of a stack, the file a whole output was saved to.
func sameMessage(a, b string) bool {
	cut := func(s string) string {
		for i := range len(s) {
			if s[i] == '\n' {
				return s[:i]
			}
		}
		return s
	}
	return cut(a) == cut(b)
}

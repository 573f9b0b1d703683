package runner

import (
	"bytes"
	"context"
	"testing"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

// TestRunGoesOnPastAResultTooDeep: a Go tool whose result nests deeper
// than a record holds gets an error record of its own; the run goes on,
// the next request gets its record, and the file written reads back.
func TestRunGoesOnPastAResultTooDeep(t *testing.T) {
	t.Parallel()
	reg := registry.New()
	type depthArgs struct {
		N int `json:"n"`
	}
	if err := registry.Add(reg, "deep", "Returns a value nested n levels.", func(_ context.Context, _ *registry.ToolContext, in depthArgs) (any, error) {
		v := any([]any{})
		for range in.N - 1 {
			v = []any{v}
		}
		return v, nil
	}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := records.NewWriter(&buf)
	reqs := []*request.Request{
		{ID: "c1", Name: "deep", Args: map[string]any{"n": float64(records.MaxContentDepth + 1)}},
		{ID: "c2", Name: "deep", Args: map[string]any{"n": float64(records.MaxContentDepth)}},
		{ID: "c3", Name: "deep", Args: map[string]any{"n": 1.0}},
	}
	_, err := New(toolset.Of(reg), Options{SessionID: "s"}).Run(context.Background(), func(yield func(*request.Request) bool) {
		for _, q := range reqs {
			if !yield(q) {
				return
			}
		}
	}, w.Write)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []message.ErrorKind
	err = records.Read(&buf, "out.jsonl", func(rec *message.Record) error {
		kind := message.ErrorKind("")
		if rec.Error != nil {
			kind = rec.Error.Kind
		}
		got = append(got, kind)
		return nil
	})
	if err != nil {
		t.Fatalf("the records written do not read back: %v", err)
	}
	if want := []message.ErrorKind{message.KindToolError, "", ""}; len(got) != 3 || got[0] != want[0] || got[1] != "" || got[2] != "" {
		t.Errorf("error kinds %q, want %q", got, want)
	}
}

package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/kesoku/kesoku/internal/request"
	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/tracing"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

func attrs(s sdktrace.ReadOnlySpan) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes() {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// TestRunTracesEachCall: traced, each call is an execute_tool span under
// the run's, with the tool's name and the call's id, and error.type when
// it failed — one refused before it ran too, ended at once; each record
// carries the ids of its span. Content stays off
// the spans unless asked for, and a secret never reaches them.
func TestRunTracesEachCall(t *testing.T) {
	t.Parallel()
	for _, content := range []bool{false, true} {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		tr := tracing.NewTracer(tp.Tracer("test"), content)
		ctx, root := tr.Root(tracing.With(context.Background(), tr), "run")
		reg := testRegistry(t, nil)
		type tokenArgs struct {
			Token string `json:"token"`
		}
		typed := registry.New()
		if err := registry.Add(typed, "login", "Fails, with a token.", func(context.Context, *registry.ToolContext, tokenArgs) (string, error) {
			return "", errors.New("refused")
		}); err != nil {
			t.Fatal(err)
		}
		login, _ := typed.Lookup("login")
		reg.MustRegister(toolset.FromSpec(login))
		r := New(reg, Options{Jobs: 2, Secrets: secret.NewRedactor("hunter2-secret")})
		recs, _ := collect(t, ctx, r, []*request.Request{
			{ID: "ok", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
			{ID: "bad", Name: "login", Args: map[string]any{"token": "hunter2-secret"}},
			{ID: "unknown", Name: "no_such_tool", Args: map[string]any{}},
		})
		root.End()
		spans := map[string]sdktrace.ReadOnlySpan{}
		for _, s := range rec.Ended() {
			spans[s.Name()] = s
		}
		if len(spans) != 4 {
			t.Fatalf("spans %v, want the run's and three calls'", names(rec.Ended()))
		}
		run := spans["kesoku run"]
		ok, bad, unknown := spans["execute_tool sum"], spans["execute_tool login"], spans["execute_tool no_such_tool"]
		if run == nil || ok == nil || bad == nil || unknown == nil {
			t.Fatalf("spans %v", names(rec.Ended()))
		}
		for _, s := range []sdktrace.ReadOnlySpan{ok, bad, unknown} {
			if s.Parent().SpanID() != run.SpanContext().SpanID() {
				t.Errorf("%s: not under the run's span", s.Name())
			}
		}
		a := attrs(ok)
		if a["gen_ai.operation.name"] != "execute_tool" || a["gen_ai.tool.name"] != "sum" || a["gen_ai.tool.call.id"] != "ok" {
			t.Errorf("execute_tool sum: %v", a)
		}
		if _, failed := a["error.type"]; failed {
			t.Errorf("a call that succeeded has error.type: %v", a)
		}
		if got := attrs(bad)["error.type"]; got != "tool_error" {
			t.Errorf("the failed call's error.type %q, want tool_error", got)
		}
		if got := attrs(unknown)["error.type"]; got != "unknown_tool" {
			t.Errorf("the refused call's error.type %q, want unknown_tool", got)
		}
		want := map[string]sdktrace.ReadOnlySpan{"ok": ok, "bad": bad, "unknown": unknown}
		for _, rc := range recs {
			s := want[rc.ParentID]
			if rc.TraceID != s.SpanContext().TraceID().String() || rc.SpanID != s.SpanContext().SpanID().String() {
				t.Errorf("record of %s: trace %q span %q, want those of %s", rc.ParentID, rc.TraceID, rc.SpanID, s.Name())
			}
		}
		args, hasArgs := attrs(bad)["gen_ai.tool.call.arguments"]
		if hasArgs != content {
			t.Errorf("content %v: arguments on the span: %v", content, hasArgs)
		}
		_, hasResult := attrs(ok)["gen_ai.tool.call.result"]
		if hasResult != content {
			t.Errorf("content %v: result on the span: %v", content, hasResult)
		}
		if content && (strings.Contains(args, "hunter2") || !strings.Contains(args, "[redacted]")) {
			t.Errorf("arguments on the span: %s, want the secret hidden", args)
		}
	}
}

// TestRunAbortedCallsHaveNoSpan: traced, a call an interrupt aborts
// before it started has no execute_tool span, only the run's span on its
// record: nothing of it ran for a span to measure.
func TestRunAbortedCallsHaveNoSpan(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tr := tracing.NewTracer(tp.Tracer("test"), false)
	ctx, root := tr.Root(tracing.With(context.Background(), tr), "run")
	ctx, cancel := context.WithCancel(ctx)
	cancel()
	r := New(testRegistry(t, nil), Options{Jobs: 2})
	recs, err := r.RunAll(ctx, []*request.Request{
		{ID: "a", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
		{ID: "b", Name: "sum", Args: map[string]any{"a": 3.0, "b": 4.0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	root.End()
	if ended := rec.Ended(); len(ended) != 1 || ended[0].Name() != "kesoku run" {
		t.Fatalf("spans %v, want the run's alone", names(ended))
	}
	run := rec.Ended()[0].SpanContext()
	for _, rc := range recs {
		if rc.Status != message.StatusAborted {
			t.Errorf("record of %s: status %s, want aborted", rc.ParentID, rc.Status)
		}
		if rc.TraceID != run.TraceID().String() || rc.SpanID != run.SpanID().String() {
			t.Errorf("record of %s: trace %q span %q, want the run's", rc.ParentID, rc.TraceID, rc.SpanID)
		}
	}
}

// TestRunUntracedStampsNothing: without a tracer in the context, records
// carry no trace ids.
func TestRunUntracedStampsNothing(t *testing.T) {
	t.Parallel()
	r := New(testRegistry(t, nil), Options{Jobs: 2})
	recs, _ := collect(t, context.Background(), r, []*request.Request{
		{ID: "ok", Name: "sum", Args: map[string]any{"a": 1.0, "b": 2.0}},
		{ID: "unknown", Name: "no_such_tool", Args: map[string]any{}},
	})
	for _, rc := range recs {
		if rc.TraceID != "" || rc.SpanID != "" {
			t.Errorf("record of %s: trace %q span %q, want none", rc.ParentID, rc.TraceID, rc.SpanID)
		}
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

package tracing

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/kesoku/kesoku/message"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestFromEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  map[string]string
		want Config
		err  string
	}{
		{name: "nothing set: off", env: nil},
		{name: "an endpoint: on", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"},
			want: Config{On: true, ShutdownWait: DefaultShutdownWait}},
		{name: "the traces' endpoint: on", env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4318/v1/traces"},
			want: Config{On: true, ShutdownWait: DefaultShutdownWait}},
		{name: "otlp: on", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp"},
			want: Config{On: true, ShutdownWait: DefaultShutdownWait}},
		{name: "none wins over an endpoint", env: map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x"}},
		{name: "the SDK disabled", env: map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}},
		{name: "content and the wait", env: map[string]string{
			"OTEL_TRACES_EXPORTER": "otlp", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true", "OTEL_BSP_EXPORT_TIMEOUT": "250",
		}, want: Config{On: true, Content: true, ShutdownWait: 250 * time.Millisecond}},
		{name: "http/json", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			want: Config{On: true, ShutdownWait: DefaultShutdownWait}},
		{name: "the traces' protocol wins", env: map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf"},
			want: Config{On: true, ShutdownWait: DefaultShutdownWait}},
		{name: "grpc refused", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://x", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			err: "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported (http/protobuf or http/json)"},
		{name: "another exporter refused", env: map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"},
			err: "OTEL_TRACES_EXPORTER=zipkin is not supported (otlp or none)"},
	} {
		got, err := FromEnv(env(tc.env))
		if tc.err != "" {
			var se *SettingError
			if !errors.As(err, &se) || err.Error() != tc.err {
				t.Errorf("%s: error %v, want %s", tc.name, err, tc.err)
			}
			if got.On {
				t.Errorf("%s: on after an error", tc.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tc.name, diff)
		}
	}
}

// hungExporter takes spans and never returns until released: a collector
// that is down.
type hungExporter struct{ release chan struct{} }

func (h hungExporter) ExportSpans(ctx context.Context, _ []sdktrace.ReadOnlySpan) error {
	select {
	case <-h.release:
	case <-ctx.Done():
	}
	return errors.New("no answer")
}

func (h hungExporter) Shutdown(context.Context) error { return nil }

// TestShutdownDoesNotWaitForADeadCollector: a collector that never
// answers neither holds the end (Shutdown returns once its wait is
// over) nor goes unnoticed: every span is counted lost.
func TestShutdownDoesNotWaitForADeadCollector(t *testing.T) {
	t.Parallel()
	h := hungExporter{release: make(chan struct{})}
	defer close(h.release)
	p, err := StartWith(context.Background(), Config{On: true, ShutdownWait: time.Millisecond}, "test", h)
	if err != nil {
		t.Fatal(err)
	}
	ctx, root := p.Tracer().Root(context.Background(), "run")
	for range 3 {
		_, s := p.Tracer().Tool(ctx, "sum", "call_1")
		s.End()
	}
	root.End()
	if got := p.Shutdown(context.Background()); got.Ended != 4 || got.Lost != 4 || got.Err == "" {
		t.Errorf("lost %+v, want all 4 spans and why", got)
	}
}

// TestShutdownCountsNothingLost: a collector that takes everything loses
// nothing.
func TestShutdownCountsNothingLost(t *testing.T) {
	t.Parallel()
	exp := &keptExporter{tracetest.NewInMemoryExporter()}
	p, err := StartWith(context.Background(), Config{On: true}, "test", exp)
	if err != nil {
		t.Fatal(err)
	}
	_, s := p.Tracer().Agent(context.Background(), Agent{SessionID: "s1", Provider: "claude", Model: "claude-sonnet-4-5"})
	s.End()
	if got := p.Shutdown(context.Background()); got != (Lost{Ended: 1}) {
		t.Errorf("lost %+v, want none of 1", got)
	}
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].Name != "invoke_agent kesoku" {
		t.Fatalf("spans %v", spans)
	}
	want := map[string]string{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "anthropic",
		"gen_ai.request.model": "claude-sonnet-4-5", "gen_ai.conversation.id": "s1", "gen_ai.agent.name": "kesoku",
	}
	got := map[string]string{}
	for _, kv := range spans[0].Attributes {
		got[string(kv.Key)] = kv.Value.Emit()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attributes (-want +got)\n%s", diff)
	}
}

// TestResourceFromEnv: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
// name the service, over kesoku's own defaults.
func TestResourceFromEnv(t *testing.T) {
	t.Setenv("OTEL_SERVICE_NAME", "nightly-evals")
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=ci")
	exp := &keptExporter{tracetest.NewInMemoryExporter()}
	p, err := StartWith(context.Background(), Config{On: true}, "v9.9.9", exp)
	if err != nil {
		t.Fatal(err)
	}
	_, s := p.Tracer().Root(context.Background(), "eval")
	s.End()
	p.Shutdown(context.Background())
	spans := exp.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("spans %v", spans)
	}
	got := map[string]string{}
	for _, kv := range spans[0].Resource.Attributes() {
		got[string(kv.Key)] = kv.Value.Emit()
	}
	for k, v := range map[string]string{"service.name": "nightly-evals", "deployment.environment.name": "ci", "service.version": "v9.9.9"} {
		if got[k] != v {
			t.Errorf("resource %s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}

// TestNilTracerDoesNothing: off, the helpers are no-ops and stamp
// nothing.
func TestNilTracerDoesNothing(t *testing.T) {
	t.Parallel()
	var tr *Tracer
	ctx, s := tr.Chat(context.Background(), "gemini", "m")
	s.Answered(&message.Usage{InputTokens: 1}, "STOP")
	s.Error(errors.New("x"))
	s.End()
	rec := &message.Record{}
	s.ToolDone(rec)
	Stamp(ctx, rec)
	if rec.TraceID != "" || rec.SpanID != "" || From(ctx) != nil {
		t.Errorf("a nil tracer traced: %+v", rec)
	}
}

// TestInjectExtract: the span a request carries in _meta is the one the
// server continues.
func TestInjectExtract(t *testing.T) {
	t.Parallel()
	tp := sdktrace.NewTracerProvider()
	tr := NewTracer(tp.Tracer("test"), false)
	ctx, s := tr.MCPClient(context.Background(), "tools/call", "sum")
	defer s.End()
	meta := map[string]any{"progressToken": 1}
	Inject(ctx, meta)
	if _, ok := meta["traceparent"].(string); !ok {
		t.Fatalf("_meta %v: no traceparent", meta)
	}
	_, server := tr.MCPServer(Extract(context.Background(), meta), "tools/call", "sum")
	defer server.End()
	ro := server.s.(sdktrace.ReadOnlySpan)
	if ro.Parent().SpanID() != s.s.SpanContext().SpanID() || ro.SpanContext().TraceID() != s.s.SpanContext().TraceID() {
		t.Errorf("the server's span is not the client's child")
	}
}

// keptExporter keeps its spans past Shutdown, which the in-memory
// exporter forgets them at.
type keptExporter struct{ *tracetest.InMemoryExporter }

func (keptExporter) Shutdown(context.Context) error { return nil }

func TestHeaderValues(t *testing.T) {
	t.Parallel()
	got := HeaderValues(env(map[string]string{
		"OTEL_EXPORTER_OTLP_HEADERS":        "authorization=Bearer%20tok-1,x-team=evals",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api-key=tok-2, broken",
	}))
	if diff := cmp.Diff([]string{"Bearer tok-1", "tok-1", "evals", "tok-2"}, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestOffAllocatesNothing holds the promise that tracing off costs a call
// nothing: a nil Tracer's spans are built of nothing, names included.
func TestOffAllocatesNothing(t *testing.T) {
	var tr *Tracer
	ctx := context.Background()
	n := testing.AllocsPerRun(100, func() {
		_, s := tr.Tool(ctx, "calculate_sum", "call-1")
		s.End()
		_, s = tr.Chat(ctx, "gemini", "gemini-2.5-flash")
		s.Answered(nil, "STOP")
		s.End()
		_, s = tr.Root(ctx, "run")
		s.End()
	})
	if n != 0 {
		t.Errorf("tracing off: %v allocations a call, want 0", n)
	}
}

package toolsource

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/kesoku/kesoku/internal/tracing"
)

// TestTraceRequestsCarriesTheTrace: traced, each request kesoku sends to
// an MCP server is a span ("tools/call echo", mcp.method.name) under the
// caller's, and its params._meta carries that span as traceparent;
// untraced, the request goes out without one.
func TestTraceRequestsCarriesTheTrace(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]string{} // method → traceparent the server got
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p := req.GetParams(); p != nil {
				tp, _ := p.GetMeta()["traceparent"].(string)
				mu.Lock()
				seen[method] = tp
				mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, _ *mcp.CallToolRequest, in struct{ Text string }) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := mcp.NewClient(&mcp.Implementation{Name: "kesoku", Version: "test"}, nil)
	c.AddSendingMiddleware(traceRequests)
	cs, err := c.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// Untraced: nothing in _meta.
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"Text": "a"}}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if tp := seen["tools/call"]; tp != "" {
		t.Errorf("untraced call carried traceparent %q", tp)
	}
	mu.Unlock()

	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tr := tracing.NewTracer(tp.Tracer("test"), false)
	ctx, parent := tr.Tool(tracing.With(context.Background(), tr), "fake__echo", "call_1")
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"Text": "b"}}); err != nil {
		t.Fatal(err)
	}
	parent.End()
	var client sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.Name() == "tools/call echo" {
			client = s
		}
	}
	if client == nil {
		t.Fatalf("no span tools/call echo")
	}
	var method bool
	for _, kv := range client.Attributes() {
		method = method || kv.Key == "mcp.method.name" && kv.Value.AsString() == "tools/call"
	}
	if !method {
		t.Errorf("attributes %v: no mcp.method.name tools/call", client.Attributes())
	}
	sc := client.SpanContext()
	want := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"
	mu.Lock()
	defer mu.Unlock()
	if got := seen["tools/call"]; got != want {
		t.Errorf("the server got traceparent %q, want the client span's %q", got, want)
	}
	if client.Parent().TraceID() != sc.TraceID() {
		t.Errorf("the request's span is not in its caller's trace")
	}
}

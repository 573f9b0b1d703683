package mcpserve

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/kesoku/kesoku/internal/tracing"
)

// TestServeContinuesTheClientsTrace: a tools/call whose _meta carries a
// traceparent is served under that span: its server span is the remote
// span's child, in the same trace, and the call's execute_tool span and
// its record are inside it.
func TestServeContinuesTheClientsTrace(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	tt := newTestTools(t)
	store := &memStore{}
	opts := testOptions(t)
	opts.Records = store
	opts.Tracer = tracing.NewTracer(tp.Tracer("test"), false)
	sv := serve(t, New(tt.reg, opts))

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	params := &mcp.CallToolParams{Name: "calculate_sum", Arguments: map[string]any{"a": 1, "b": 2}}
	params.Meta = mcp.Meta{"traceparent": "00-" + traceID + "-" + parentID + "-01"}
	if _, err := sv.cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byName[s.Name()] = s
	}
	server, ok := byName["tools/call calculate_sum"]
	if !ok {
		t.Fatalf("no span tools/call calculate_sum among %v", names(rec.Ended()))
	}
	if got := server.SpanContext().TraceID().String(); got != traceID {
		t.Errorf("server span's trace %s, want the client's %s", got, traceID)
	}
	if got := server.Parent().SpanID().String(); got != parentID || !server.Parent().IsRemote() {
		t.Errorf("server span's parent %s (remote %v), want the client's %s", got, server.Parent().IsRemote(), parentID)
	}
	if !hasAttr(server, "mcp.method.name", "tools/call") {
		t.Errorf("server span's attributes %v: no mcp.method.name", server.Attributes())
	}
	tool, ok := byName["execute_tool calculate_sum"]
	if !ok {
		t.Fatalf("no span execute_tool calculate_sum among %v", names(rec.Ended()))
	}
	if tool.Parent().SpanID() != server.SpanContext().SpanID() {
		t.Errorf("execute_tool's parent %s, want the server span %s", tool.Parent().SpanID(), server.SpanContext().SpanID())
	}
	recs := store.all()
	if len(recs) != 1 || recs[0].TraceID != traceID || recs[0].SpanID != tool.SpanContext().SpanID().String() {
		t.Errorf("records %+v: want one under trace %s, span %s", recs, traceID, tool.SpanContext().SpanID())
	}
}

// TestServeUntracedLeavesNoIDs: without a Tracer, nothing is traced and
// records carry no ids, whatever the request's _meta says.
func TestServeUntracedLeavesNoIDs(t *testing.T) {
	t.Parallel()
	tt := newTestTools(t)
	store := &memStore{}
	opts := testOptions(t)
	opts.Records = store
	sv := serve(t, New(tt.reg, opts))
	params := &mcp.CallToolParams{Name: "calculate_sum", Arguments: map[string]any{"a": 1, "b": 2}}
	params.Meta = mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}
	if _, err := sv.cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	if recs := store.all(); len(recs) != 1 || recs[0].TraceID != "" || recs[0].SpanID != "" {
		t.Errorf("records %+v: want one without trace ids", recs)
	}
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	var out []string
	for _, s := range spans {
		out = append(out, s.Name())
	}
	return out
}

func hasAttr(s sdktrace.ReadOnlySpan, key, value string) bool {
	for _, kv := range s.Attributes() {
		if string(kv.Key) == key && kv.Value.Emit() == value {
			return true
		}
	}
	return false
}

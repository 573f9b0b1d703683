package tracing

import (
	"context"
	"encoding/json"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/message"
)

// SemconvVersion is the version of the OpenTelemetry semantic conventions
// whose GenAI and MCP names the spans follow.
const SemconvVersion = "1.41.0"

// Span is one of kesoku's spans; a nil Span (traces off) does nothing.
type Span struct {
	s       trace.Span
	content bool
}

func (t *Tracer) start(ctx context.Context, name string, kind trace.SpanKind, attrs ...attribute.KeyValue) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	ctx, s := t.tr.Start(With(ctx, t), name, trace.WithSpanKind(kind), trace.WithAttributes(attrs...))
	return ctx, &Span{s: s, content: t.content}
}

// Root starts the span of a whole command (run, eval): "kesoku run".
func (t *Tracer) Root(ctx context.Context, command string) (context.Context, *Span) {
	if t == nil {
		// Off: not even the name is built.
		return ctx, nil
	}
	return t.start(ctx, "kesoku "+command, trace.SpanKindInternal, attribute.String("kesoku.command", command))
}

// Agent is what an invoke_agent span says of a session.
type Agent struct {
	SessionID string
	// Provider is kesoku's name of it (gemini, claude, openai), Model the
	// model's.
	Provider, Model string
	// Case and Repeat name an eval's case and which run of it.
	Case   string
	Repeat int
}

// Agent starts the invoke_agent span of a session or an eval case.
func (t *Tracer) Agent(ctx context.Context, a Agent) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIAgentNameKey.String("kesoku"),
		semconv.GenAIConversationIDKey.String(a.SessionID),
		semconv.GenAIProviderNameKey.String(ProviderName(a.Provider)),
		semconv.GenAIRequestModelKey.String(a.Model),
	}
	if a.Case != "" {
		attrs = append(attrs, attribute.String("kesoku.eval.case", a.Case), attribute.Int("kesoku.eval.repeat", a.Repeat))
	}
	return t.start(ctx, "invoke_agent kesoku", trace.SpanKindInternal, attrs...)
}

// ProviderName is gen_ai.provider.name of one of kesoku's providers.
func ProviderName(provider string) string {
	switch provider {
	case "gemini":
		return semconv.GenAIProviderNameGCPGemini.Value.AsString()
	case "claude":
		return semconv.GenAIProviderNameAnthropic.Value.AsString()
	case "openai":
		return semconv.GenAIProviderNameOpenAI.Value.AsString()
	}
	return provider
}

// Chat starts the span of one model request: "chat {model}".
func (t *Tracer) Chat(ctx context.Context, provider, model string) (context.Context, *Span) {
	if t == nil {
		// Off: not even the name is built.
		return ctx, nil
	}
	return t.start(ctx, "chat "+model, trace.SpanKindClient,
		semconv.GenAIOperationNameChat,
		semconv.GenAIProviderNameKey.String(ProviderName(provider)),
		semconv.GenAIRequestModelKey.String(model))
}

// Answered ends what a chat span says of the model's answer: its usage
// and why it ended.
func (s *Span) Answered(u *message.Usage, finish string) {
	if s == nil {
		return
	}
	if u != nil {
		s.s.SetAttributes(semconv.GenAIUsageInputTokensKey.Int64(u.InputTokens), semconv.GenAIUsageOutputTokensKey.Int64(u.OutputTokens))
	}
	if finish != "" {
		s.s.SetAttributes(semconv.GenAIResponseFinishReasonsKey.StringSlice([]string{finish}))
	}
}

// Tool starts the span of one tool call: "execute_tool {name}".
func (t *Tracer) Tool(ctx context.Context, name, callID string) (context.Context, *Span) {
	if t == nil {
		// Off: not even the name is built.
		return ctx, nil
	}
	return t.start(ctx, "execute_tool "+name, trace.SpanKindInternal,
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolNameKey.String(name),
		semconv.GenAIToolCallIDKey.String(callID),
		semconv.GenAIToolTypeKey.String("function"))
}

// ToolDone says how the call went, from its record: error.type is the
// record's error kind. The record gets the span's ids, and with content
// captured the span gets the record's content (already redacted).
func (s *Span) ToolDone(rec *message.Record) {
	if s == nil {
		return
	}
	s.Stamp(rec)
	if rec.Error != nil {
		s.Fail(string(rec.Error.Kind))
	}
	if s.content && len(rec.Content) > 0 {
		s.s.SetAttributes(semconv.GenAIToolCallResultKey.String(string(rec.Content)))
	}
}

// Fail marks the span as failed, of kind errType (error.type). The
// description is the kind alone: an error's words may hold what content
// capture keeps off spans.
func (s *Span) Fail(errType string) {
	if s == nil {
		return
	}
	s.s.SetAttributes(semconv.ErrorTypeKey.String(errType))
	s.s.SetStatus(codes.Error, errType)
}

// Error marks the span as failed by err: error.type is err's type (or
// "timeout" past a deadline, "canceled" when cancelled).
func (s *Span) Error(err error) {
	if s == nil || err == nil {
		return
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		s.Fail("timeout")
	case errors.Is(err, context.Canceled):
		s.Fail("canceled")
	default:
		s.Fail(semconv.ErrorType(err).Value.AsString())
	}
}

// Content puts text on the span under key when content is captured,
// with every secret r knows hidden.
func (s *Span) Content(key attribute.Key, text string, r *secret.Redactor) {
	if s == nil || !s.content || text == "" {
		return
	}
	s.s.SetAttributes(key.String(r.String(text)))
}

// ContentJSON is Content of v as JSON.
func (s *Span) ContentJSON(key attribute.Key, v any, r *secret.Redactor) {
	if s == nil || !s.content {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	s.Content(key, string(b), r)
}

// The keys of content on spans, captured only when asked for.
var (
	KeyArguments    = semconv.GenAIToolCallArgumentsKey
	KeyInput        = semconv.GenAIInputMessagesKey
	KeyOutput       = semconv.GenAIOutputMessagesKey
	KeyInstructions = semconv.GenAISystemInstructionsKey
)

// Passed says whether the eval case of an invoke_agent span passed.
func (s *Span) Passed(passed bool) {
	if s != nil {
		s.s.SetAttributes(attribute.Bool("kesoku.eval.passed", passed))
	}
}

// End ends the span.
func (s *Span) End() {
	if s != nil {
		s.s.End()
	}
}

// Stamp puts the span's trace and span ids on rec.
func (s *Span) Stamp(rec *message.Record) {
	if s == nil || rec == nil {
		return
	}
	sc := s.s.SpanContext()
	rec.TraceID, rec.SpanID = sc.TraceID().String(), sc.SpanID().String()
}

// Stamp puts on rec the ids of the span ctx is in, when traces are on and
// rec has none yet: a record made under a span of kesoku's (a request
// that never started, under its run's).
func Stamp(ctx context.Context, rec *message.Record) {
	if rec == nil || rec.TraceID != "" || From(ctx) == nil {
		return
	}
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return
	}
	rec.TraceID, rec.SpanID = sc.TraceID().String(), sc.SpanID().String()
}

// MCPClient starts the span of a request kesoku sends to an MCP server:
// "{method} {target}", target the tool's name for tools/call.
func (t *Tracer) MCPClient(ctx context.Context, method, target string) (context.Context, *Span) {
	return t.mcp(ctx, trace.SpanKindClient, method, target)
}

// MCPServer starts the span of a request kesoku serves, under the span
// of the client's that the request's _meta carried (Extract).
func (t *Tracer) MCPServer(ctx context.Context, method, target string) (context.Context, *Span) {
	return t.mcp(ctx, trace.SpanKindServer, method, target)
}

func (t *Tracer) mcp(ctx context.Context, kind trace.SpanKind, method, target string) (context.Context, *Span) {
	if t == nil {
		return ctx, nil
	}
	name := method
	attrs := []attribute.KeyValue{semconv.McpMethodNameKey.String(method)}
	if target != "" {
		name += " " + target
		if method == "tools/call" {
			attrs = append(attrs, semconv.GenAIToolNameKey.String(target), semconv.GenAIOperationNameExecuteTool)
		}
	}
	return t.start(ctx, name, kind, attrs...)
}

// metaCarrier is an MCP request's params._meta as a carrier of the W3C
// trace context.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

var traceContext propagation.TraceContext

// Inject writes the span ctx is in as traceparent (and tracestate) into
// meta, an MCP request's params._meta.
func Inject(ctx context.Context, meta map[string]any) {
	traceContext.Inject(ctx, metaCarrier(meta))
}

// Extract is ctx under the client's span that meta, an MCP request's
// params._meta, carries in traceparent (and tracestate); ctx itself when
// it carries none, or one that is not valid.
func Extract(ctx context.Context, meta map[string]any) context.Context {
	if meta == nil {
		return ctx
	}
	return traceContext.Extract(ctx, metaCarrier(meta))
}

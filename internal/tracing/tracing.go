// Package tracing owns kesoku's OpenTelemetry traces: whether they are on,
// their exporter, and the spans themselves.
//
// It owns whether they are on (the standard OTEL_* variables alone decide,
// and they are off unless asked for), the exporter (OTLP over HTTP,
// protobuf or JSON) behind a
// bounded queue that drops rather than waits, the count of spans that
// never reached the collector, and the spans themselves, named and
// attributed as the OpenTelemetry GenAI semantic conventions say
// (semconv v1.41.0): invoke_agent, chat {model}, execute_tool {tool}, and
// the MCP requests kesoku sends and serves. Off, nothing of the SDK is
// built: a context carries no Tracer, and every helper is a no-op on a
// nil one.
package tracing

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Config is what the environment asks of traces.
type Config struct {
	// On says spans are to be exported.
	On bool
	// Content says the arguments, results and prompts go on spans
	// (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true), through
	// the run's redactor.
	Content bool
	// ShutdownWait bounds how long the end of a command waits for the
	// last spans to reach the collector (OTEL_BSP_EXPORT_TIMEOUT, else
	// DefaultShutdownWait).
	ShutdownWait time.Duration
}

// DefaultShutdownWait is how long a command's end waits at most for its
// last spans when OTEL_BSP_EXPORT_TIMEOUT does not say: a collector that
// is down must not hold the exit for the exporter's own 10 s timeout.
const DefaultShutdownWait = 5 * time.Second

// SettingError is a variable whose value kesoku cannot follow: traces
// stay off, and the command runs.
type SettingError struct {
	Var, Value string
	// Want says what the variable may be.
	Want string
}

func (e *SettingError) Error() string {
	return fmt.Sprintf("%s=%s is not supported (%s)", e.Var, e.Value, e.Want)
}

// FromEnv reads the configuration from getenv: traces are on when
// OTEL_TRACES_EXPORTER is otlp, or when it is unset and an OTLP endpoint
// is given; OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn them
// off. The exporter reads the endpoint, the headers, the protocol and its
// timeout itself; only OTLP over HTTP is spoken.
func FromEnv(getenv func(string) string) (Config, error) {
	var c Config
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return c, nil
	}
	endpoint := getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	switch exp := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")); exp {
	case "":
		c.On = endpoint
	case "otlp":
		c.On = true
	case "none":
		return c, nil
	default:
		return c, &SettingError{Var: "OTEL_TRACES_EXPORTER", Value: exp, Want: "otlp or none"}
	}
	if !c.On {
		return c, nil
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		p := strings.TrimSpace(getenv(v))
		if p == "" {
			continue
		}
		if p != "http/protobuf" && p != "http/json" {
			// The HTTP exporter would take grpc for http/protobuf and
			// send to a gRPC port what it cannot read.
			return Config{}, &SettingError{Var: v, Value: p, Want: "http/protobuf or http/json"}
		}
		break // the traces' own variable wins
	}
	c.Content = strings.EqualFold(strings.TrimSpace(getenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT")), "true")
	c.ShutdownWait = DefaultShutdownWait
	if ms, err := strconv.Atoi(strings.TrimSpace(getenv("OTEL_BSP_EXPORT_TIMEOUT"))); err == nil && ms > 0 {
		c.ShutdownWait = time.Duration(ms) * time.Millisecond
	}
	return c, nil
}

// HeaderValues are the values of the headers the exporter sends
// (OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TRACES_HEADERS), and
// the token of a value written SCHEME TOKEN: a collector's token among
// them is a secret like any other.
func HeaderValues(getenv func(string) string) []string {
	var vals []string
	for _, v := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		for _, kv := range strings.Split(getenv(v), ",") {
			_, val, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			val = strings.TrimSpace(val)
			if u, err := url.PathUnescape(val); err == nil {
				val = u
			}
			if val != "" {
				vals = append(vals, val)
			}
			// Authorization's value is a scheme and the token (Bearer
			// TOKEN): the token alone is as secret, and is what shows up
			// elsewhere.
			if _, tok, ok := strings.Cut(val, " "); ok && strings.TrimSpace(tok) != "" {
				vals = append(vals, strings.TrimSpace(tok))
			}
		}
	}
	return vals
}

// Provider is the SDK while traces are on: the exporter, its queue, and
// the counts of what was ended and what was exported.
type Provider struct {
	tp     *sdktrace.TracerProvider
	tracer *Tracer
	wait   time.Duration
	count  *counts
}

type counts struct {
	ended, exported atomic.Int64
	// last is the last error of an export, for the line at the end.
	last atomic.Pointer[string]
}

func (c *counts) note(err error) {
	msg := err.Error()
	c.last.Store(&msg)
}

// Start builds the SDK for c, which must be On: an OTLP/HTTP exporter
// configured by the environment, behind a batch span processor whose
// queue is bounded (OTEL_BSP_MAX_QUEUE_SIZE) and drops spans when full,
// never blocking the run; its client refuses a redirect to another
// origin (OriginError). version is kesoku's, on the resource.
func Start(ctx context.Context, c Config, version string) (*Provider, error) {
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithHTTPClient(exportClient(os.Getenv)))
	if err != nil {
		return nil, err
	}
	return StartWith(ctx, c, version, exp)
}

// StartWith is Start with the exporter given (tests give an in-memory
// one).
func StartWith(ctx context.Context, c Config, version string, exp sdktrace.SpanExporter) (*Provider, error) {
	res, err := resource.New(ctx,
		// The defaults first: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES
		// override them.
		resource.WithAttributes(attribute.String("service.name", "kesoku"), attribute.String("service.version", version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil && res == nil {
		return nil, err
	}
	n := &counts{}
	// The SDK logs what fails to the standard logger, a line each time: a
	// collector that is down is said once, at the end, with the count.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(n.note))
	bsp := sdktrace.NewBatchSpanProcessor(&countingExporter{SpanExporter: exp, n: n})
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(&endCounter{SpanProcessor: bsp, n: n}),
	)
	wait := c.ShutdownWait
	if wait <= 0 {
		wait = DefaultShutdownWait
	}
	return &Provider{
		tp:     tp,
		tracer: &Tracer{tr: tp.Tracer("github.com/kesoku/kesoku"), content: c.Content},
		wait:   wait,
		count:  n,
	}, nil
}

// Tracer is the provider's tracer: nil for a nil Provider.
func (p *Provider) Tracer() *Tracer {
	if p == nil {
		return nil
	}
	return p.tracer
}

// Lost is how many spans ended and how many of them never reached the
// collector: dropped when the queue was full, refused by a collector that
// was down, or still queued when the wait at the end ran out.
type Lost struct {
	Ended, Lost int64
	// Err is the last error of an export, "" when none failed.
	Err string
}

// Shutdown exports what is queued, waiting at most the configured time
// (a collector that never answers does not hold the exit), and says how
// many spans were lost.
func (p *Provider) Shutdown(ctx context.Context) Lost {
	if p == nil {
		return Lost{}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.wait)
	defer cancel()
	if err := p.tp.Shutdown(ctx); err != nil && p.count.last.Load() == nil {
		p.count.note(err)
	}
	ended := p.count.ended.Load()
	l := Lost{Ended: ended, Lost: ended - p.count.exported.Load()}
	if last := p.count.last.Load(); last != nil {
		l.Err = *last
	}
	return l
}

// endCounter counts the spans handed to the queue.
type endCounter struct {
	sdktrace.SpanProcessor
	n *counts
}

func (e *endCounter) OnEnd(s sdktrace.ReadOnlySpan) {
	e.n.ended.Add(1)
	e.SpanProcessor.OnEnd(s)
}

// countingExporter counts the spans the collector took: the batch
// processor drops spans past its queue and says so only in a debug log.
type countingExporter struct {
	sdktrace.SpanExporter
	n *counts
}

func (c *countingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := c.SpanExporter.ExportSpans(ctx, spans)
	if err == nil {
		c.n.exported.Add(int64(len(spans)))
	} else {
		c.n.note(err)
	}
	return err
}

// Tracer makes kesoku's spans. A nil Tracer makes none: every method is a
// no-op on it, at the cost of a nil check.
type Tracer struct {
	tr      trace.Tracer
	content bool
}

// NewTracer is a Tracer over tr (tests give a provider of their own).
func NewTracer(tr trace.Tracer, content bool) *Tracer {
	return &Tracer{tr: tr, content: content}
}

type tracerKey struct{}

// With is ctx carrying t: what is done under it is traced. A nil t
// leaves ctx as it is.
func With(ctx context.Context, t *Tracer) context.Context {
	if t == nil {
		return ctx
	}
	return context.WithValue(ctx, tracerKey{}, t)
}

// From is the Tracer ctx carries, nil when traces are off.
func From(ctx context.Context) *Tracer {
	t, _ := ctx.Value(tracerKey{}).(*Tracer)
	return t
}

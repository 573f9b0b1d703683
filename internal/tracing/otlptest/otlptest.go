// Package otlptest is an OTLP/HTTP trace receiver for tests.
//
// It takes what an exporter sends to /v1/traces, protobuf or JSON, keeps the
// spans, and shows them as the tree their parents make. It can also be
// a collector that never answers.
package otlptest

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"

	collpb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// Span is a span received, its ids in lowercase hex and its attributes'
// values as text (a list as [a b]).
type Span struct {
	TraceID, SpanID, ParentID string
	Name                      string
	Start                     uint64
	Attrs                     map[string]string
	// Error says the span's status is an error.
	Error bool
	// Resource is the attributes of the resource that sent it.
	Resource map[string]string
}

// Receiver is an OTLP/HTTP receiver of traces.
type Receiver struct {
	srv     *httptest.Server
	release chan struct{}
	once    sync.Once

	mu    sync.Mutex
	spans []Span
	// Types are the Content-Types of the requests, Headers their headers.
	types   []string
	headers []http.Header
}

// Start starts a receiver that answers every export.
func Start() *Receiver { return start(false) }

// StartHung starts a collector that takes each request and never
// answers it, until Close.
func StartHung() *Receiver { return start(true) }

func start(hang bool) *Receiver {
	r := &Receiver{release: make(chan struct{})}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ct := req.Header.Get("Content-Type")
		r.mu.Lock()
		r.types = append(r.types, ct)
		r.headers = append(r.headers, req.Header.Clone())
		r.mu.Unlock()
		if hang {
			<-r.release
			return
		}
		if req.URL.Path != "/v1/traces" {
			http.NotFound(w, req)
			return
		}
		var spans []Span
		if strings.HasPrefix(ct, "application/json") {
			spans, err = decodeJSON(body)
		} else {
			spans, err = decodeProto(body)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.spans = append(r.spans, spans...)
		r.mu.Unlock()
		w.Header().Set("Content-Type", ct)
		if strings.HasPrefix(ct, "application/json") {
			io.WriteString(w, "{}")
		}
	}))
	return r
}

// URL is the receiver's base URL (OTEL_EXPORTER_OTLP_ENDPOINT).
func (r *Receiver) URL() string { return r.srv.URL }

// Close answers what hangs and stops the receiver.
func (r *Receiver) Close() {
	r.once.Do(func() { close(r.release) })
	r.srv.Close()
}

// Spans are the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// ContentTypes are the Content-Types of the requests received so far.
func (r *Receiver) ContentTypes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.types)
}

// Headers are the headers of the requests received so far.
func (r *Receiver) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.headers)
}

func decodeProto(body []byte) ([]Span, error) {
	var req collpb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []Span
	for _, rs := range req.GetResourceSpans() {
		res := protoAttrs(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				out = append(out, Span{
					TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentID: hex.EncodeToString(s.GetParentSpanId()),
					Name:     s.GetName(), Start: s.GetStartTimeUnixNano(),
					Attrs:    protoAttrs(s.GetAttributes()),
					Error:    s.GetStatus().GetCode() == 2,
					Resource: res,
				})
			}
		}
	}
	return out, nil
}

func protoAttrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = protoValue(kv.GetValue())
	}
	return m
}

func protoValue(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, protoValue(e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return fmt.Sprint(v)
}

// The OTLP JSON encoding: ids in hex, 64-bit integers as strings.
type jsonRequest struct {
	ResourceSpans []struct {
		Resource struct {
			Attributes []jsonKV `json:"attributes"`
		} `json:"resource"`
		ScopeSpans []struct {
			Spans []struct {
				TraceID      string   `json:"traceId"`
				SpanID       string   `json:"spanId"`
				ParentSpanID string   `json:"parentSpanId"`
				Name         string   `json:"name"`
				Start        string   `json:"startTimeUnixNano"`
				Attributes   []jsonKV `json:"attributes"`
				Status       struct {
					Code int `json:"code"`
				} `json:"status"`
			} `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
}

type jsonKV struct {
	Key   string    `json:"key"`
	Value jsonValue `json:"value"`
}

type jsonValue struct {
	String *string          `json:"stringValue"`
	Int    *json.RawMessage `json:"intValue"`
	Bool   *bool            `json:"boolValue"`
	Double *float64         `json:"doubleValue"`
	Array  *struct {
		Values []jsonValue `json:"values"`
	} `json:"arrayValue"`
}

func (v jsonValue) text() string {
	switch {
	case v.String != nil:
		return *v.String
	case v.Int != nil:
		return strings.Trim(string(*v.Int), `"`)
	case v.Bool != nil:
		return strconv.FormatBool(*v.Bool)
	case v.Double != nil:
		return strconv.FormatFloat(*v.Double, 'g', -1, 64)
	case v.Array != nil:
		var parts []string
		for _, e := range v.Array.Values {
			parts = append(parts, e.text())
		}
		return "[" + strings.Join(parts, " ") + "]"
	}
	return ""
}

func jsonAttrs(kvs []jsonKV) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value.text()
	}
	return m
}

func decodeJSON(body []byte) ([]Span, error) {
	var req jsonRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var out []Span
	for _, rs := range req.ResourceSpans {
		res := jsonAttrs(rs.Resource.Attributes)
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				start, _ := strconv.ParseUint(s.Start, 10, 64)
				out = append(out, Span{
					TraceID: strings.ToLower(s.TraceID), SpanID: strings.ToLower(s.SpanID), ParentID: strings.ToLower(s.ParentSpanID),
					Name: s.Name, Start: start, Attrs: jsonAttrs(s.Attributes), Error: s.Status.Code == 2, Resource: res,
				})
			}
		}
	}
	return out, nil
}

// Tree shows spans as the trees their parents make, a span a line,
// indented under its parent, siblings in the order they started: its name
// and, sorted, the attributes that keep says to show. A span whose parent
// was not received (a remote one) is a root; so is each trace's first.
func Tree(spans []Span, keep func(key string) bool) string {
	byID := make(map[string]bool, len(spans))
	for _, s := range spans {
		byID[s.SpanID] = true
	}
	children := map[string][]Span{}
	var roots []Span
	for _, s := range spans {
		if s.ParentID == "" || !byID[s.ParentID] {
			roots = append(roots, s)
		} else {
			children[s.ParentID] = append(children[s.ParentID], s)
		}
	}
	order := func(list []Span) {
		slices.SortStableFunc(list, func(a, b Span) int {
			if a.Start != b.Start {
				if a.Start < b.Start {
					return -1
				}
				return 1
			}
			return strings.Compare(a.Name, b.Name)
		})
	}
	var b strings.Builder
	var walk func(s Span, depth int)
	walk = func(s Span, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		b.WriteString(s.Name)
		keys := make([]string, 0, len(s.Attrs))
		for k := range s.Attrs {
			if keep(k) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%s", k, s.Attrs[k])
		}
		if s.Error {
			b.WriteString(" (error)")
		}
		b.WriteByte('\n')
		kids := children[s.SpanID]
		order(kids)
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	order(roots)
	for _, r := range roots {
		walk(r, 0)
	}
	return b.String()
}

package mcpserve

import (
	"context"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/tracing"
)

// trace continues the client's trace: each request served is a span
// under the one its params._meta names (traceparent, tracestate), and
// what the request does (a tool call's execute_tool) is inside it. The
// first middleware, so that a request refused by the others has its span
// too.
func (s *Server) trace(next mcp.MethodHandler) mcp.MethodHandler {
	tr := s.opts.Tracer
	if tr == nil {
		return next
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		p := req.GetParams()
		if p == nil || reflect.ValueOf(p).IsNil() {
			p = nil
		}
		target := ""
		if p != nil {
			ctx = tracing.Extract(ctx, p.GetMeta())
			if c, ok := p.(*mcp.CallToolParamsRaw); ok {
				target = c.Name
			}
		}
		ctx, span := tr.MCPServer(tracing.With(ctx, tr), method, target)
		defer span.End()
		res, err := next(ctx, method, req)
		if err != nil {
			span.Error(err)
		}
		return res, err
	}
}

package toolsource

import (
	"context"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/tracing"
)

// traceRequests makes a span of each request kesoku sends to an MCP
// server, when the request's context is traced ("tools/call {tool}",
// mcp.method.name), and writes the span's context into the request's
// params._meta (traceparent, tracestate), so that the server's spans join
// the trace. Untraced, a request goes out as it came.
func traceRequests(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		tr := tracing.From(ctx)
		if tr == nil {
			return next(ctx, method, req)
		}
		p := req.GetParams()
		if p == nil || reflect.ValueOf(p).IsNil() {
			p = nil
		}
		target := ""
		if c, ok := p.(*mcp.CallToolParams); ok {
			target = c.Name
		}
		ctx, span := tr.MCPClient(ctx, method, target)
		defer span.End()
		if p != nil {
			meta := p.GetMeta()
			if meta == nil {
				meta = map[string]any{}
			}
			tracing.Inject(ctx, meta)
			p.SetMeta(meta)
		}
		res, err := next(ctx, method, req)
		if err != nil {
			span.Error(err)
		}
		return res, err
	}
}

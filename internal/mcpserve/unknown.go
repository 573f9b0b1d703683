package mcpserve

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/request"
)

// UnknownToolError says that a client called a tool the server does not
// offer: one that no one has, or one that exists but is withheld (a tool
// that writes, say, when only those that read are offered). Its message
// lists the tools offered, so that a model can correct its call in one
// try.
type UnknownToolError struct {
	Name string
	// Suggestion is a tool whose name is close to Name, when Name is no
	// tool ("did you mean").
	Suggestion string
	// Withheld is the tool meant that exists but is not offered: Name
	// itself, or Suggestion; "" when the tool meant is offered, or none.
	Withheld string
	// Offered are the names of the tools offered, sorted.
	Offered []string
}

// maxListed is how many of the tools offered an UnknownToolError names:
// enough for a model to correct a call, not a list of thousands.
const maxListed = 30

// Is says an UnknownToolError is records.ErrUnknownTool: its record is
// an unknown_tool error.
func (e *UnknownToolError) Is(target error) bool { return target == records.ErrUnknownTool }

func (e *UnknownToolError) Error() string {
	var b strings.Builder
	// After a question, the list is a sentence of its own.
	sep, offered, none := "; ", "the tools offered: ", "no tool is offered"
	if e.Withheld != "" && e.Withheld == e.Name {
		fmt.Fprintf(&b, "tool %q is not offered by this server", e.Name)
	} else {
		fmt.Fprintf(&b, "unknown tool %q", e.Name)
		if e.Suggestion != "" {
			fmt.Fprintf(&b, "; did you mean %q?", e.Suggestion)
			if e.Withheld != "" {
				b.WriteString(" It is not offered by this server.")
			}
			sep, offered, none = " ", "The tools offered: ", "No tool is offered."
		}
	}
	b.WriteString(sep)
	switch n := len(e.Offered); {
	case n == 0:
		b.WriteString(none)
	case n > maxListed:
		fmt.Fprintf(&b, "%s%s and %d more", offered, strings.Join(e.Offered[:maxListed], ", "), n-maxListed)
	default:
		b.WriteString(offered + strings.Join(e.Offered, ", "))
	}
	return b.String()
}

// unknownTool is the error of a call of name, which is not offered.
func (s *Server) unknownTool(name string) *UnknownToolError {
	e := &UnknownToolError{Name: name, Offered: s.offered}
	if _, ok := slices.BinarySearch(s.withheld, name); ok {
		e.Withheld = name
		return e
	}
	e.Suggestion = english.Suggest(name, append(slices.Clip(s.offered), s.withheld...))
	if _, ok := slices.BinarySearch(s.withheld, e.Suggestion); ok && e.Suggestion != "" {
		e.Withheld = e.Suggestion
	}
	return e
}

// refuseUnknown answers a call of a tool that is not offered with the
// protocol's error for it (invalid params), in kesoku's words rather than
// the SDK's bare "unknown tool"; the call has its record, numbered among
// its client's calls, as every call has.
func (s *Server) refuseUnknown(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok || p == nil {
			return next(ctx, method, req)
		}
		if _, offered := slices.BinarySearch(s.offered, p.Name); offered {
			return next(ctx, method, req)
		}
		var err error = s.unknownTool(p.Name)
		if s.opts.Verbose {
			// Quoted, the name is safe to print: %q escapes what a
			// terminal would act on.
			s.logf("✗ a call of %q, which is not offered", p.Name)
		}
		msg := err.Error()
		if s.opts.Word != nil {
			msg = s.opts.Word(err)
		}
		if s.opts.Records != nil {
			cs := s.clientOf(req)
			r := &request.Request{ID: "call_" + strconv.FormatInt(cs.calls.Add(1), 10), Name: p.Name, SessionID: cs.id}
			rec := s.runner.Refused(r, err, msg)
			if err := s.opts.Records.Append(context.WithoutCancel(ctx), rec); err != nil {
				s.fail(err)
			}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	}
}

// undeclared are the methods of the capabilities kesoku does not declare
// (prompts, resources, logging, completions): the SDK answers them
// whatever a server declares, empty, and a client must not be told of
// prompts or resources that kesoku does not have.
var undeclared = map[string]bool{
	"prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"logging/setLevel":    true,
	"completion/complete": true,
}

// refuseUndeclared answers the methods of a capability kesoku does not
// declare as methods it does not have, as the protocol asks.
func (s *Server) refuseUndeclared(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if undeclared[method] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method %q not found: kesoku serves tools alone", method)}
		}
		return next(ctx, method, req)
	}
}

package mcpserve

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

// The benchmarks below measure one tools/call of calculate_sum, client to
// server and back over the SDK's in-memory transport, through kesoku's
// server and through bare SDK servers of the same tool: the typed one the
// SDK's README teaches (mcp.AddTool, which validates the arguments
// against a schema inferred from the Go type), and a raw one that does
// nothing but decode and add (the floor). bench/RESULTS.md has the
// numbers.

func benchClient(b *testing.B, s *mcp.Server) *mcp.ClientSession {
	b.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func benchCalls(b *testing.B, cs *mcp.ClientSession) {
	b.Helper()
	params := &mcp.CallToolParams{Name: "calculate_sum", Arguments: map[string]any{"a": 1, "b": 2}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// benchCallsParallel makes the calls from several goroutines at once, as
// an agent's parallel tool calls do.
func benchCallsParallel(b *testing.B, cs *mcp.ClientSession) {
	b.Helper()
	params := &mcp.CallToolParams{Name: "calculate_sum", Arguments: map[string]any{"a": 1, "b": 2}}
	b.ReportAllocs()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				b.Errorf("%v %+v", err, res)
				return
			}
		}
	})
}

func kesokuServer(b *testing.B) *mcp.Server {
	b.Helper()
	spec, ok := registry.Default.Lookup("calculate_sum")
	if !ok {
		b.Fatal("no calculate_sum")
	}
	reg := toolset.New()
	reg.MustRegister(toolset.FromSpec(spec))
	opts := Options{Version: "bench"}
	opts.Runner.Jobs = 16
	opts.Runner.MaxOutput = 1 << 20
	opts.Runner.AWD = b.TempDir()
	return New(reg, opts).mcp
}

type sumArgs struct {
	A int `json:"a" jsonschema:"The first integer."`
	B int `json:"b" jsonschema:"The second integer."`
}

// typedSDKServer is calculate_sum as the SDK's README writes a tool.
func typedSDKServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "calculate_sum", Description: "Returns the sum of two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in sumArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(in.A + in.B)}}}, nil, nil
		})
	return s
}

// rawSDKServer is calculate_sum with nothing but decoding: no validation.
func rawSDKServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`)
	s.AddTool(&mcp.Tool{Name: "calculate_sum", InputSchema: schema},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in sumArgs
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strconv.Itoa(in.A + in.B)}}}, nil
		})
	return s
}

func BenchmarkCallKesoku(b *testing.B)   { benchCalls(b, benchClient(b, kesokuServer(b))) }
func BenchmarkCallSDKTyped(b *testing.B) { benchCalls(b, benchClient(b, typedSDKServer())) }
func BenchmarkCallSDKRaw(b *testing.B)   { benchCalls(b, benchClient(b, rawSDKServer())) }

func BenchmarkCallKesokuParallel(b *testing.B) {
	benchCallsParallel(b, benchClient(b, kesokuServer(b)))
}

func BenchmarkCallSDKTypedParallel(b *testing.B) {
	benchCallsParallel(b, benchClient(b, typedSDKServer()))
}

// BenchmarkKesokuCallOnly is kesoku's side of a call alone, without the
// transport and the client: what the server adds to what the SDK does.
func BenchmarkKesokuCallOnly(b *testing.B) {
	spec, _ := registry.Default.Lookup("calculate_sum")
	reg := toolset.New()
	reg.MustRegister(toolset.FromSpec(spec))
	opts := Options{Version: "bench"}
	opts.Runner.Jobs = 16
	opts.Runner.AWD = b.TempDir()
	s := New(reg, opts)
	cs := benchClient(b, s.mcp) // a session for the calls to belong to
	_ = cs
	var ss *mcp.ServerSession
	for x := range s.mcp.Sessions() {
		ss = x
	}
	req := &mcp.CallToolRequest{Session: ss, Params: &mcp.CallToolParamsRaw{Name: "calculate_sum", Arguments: json.RawMessage(`{"a":1,"b":2}`)}}
	b.ReportAllocs()
	for b.Loop() {
		res, err := s.call(context.Background(), req)
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// Command mcp is the peer a Go developer would reach for today to run tool
// calls: the official MCP Go SDK, with calculate_sum and sleep as
// typed tools on a server, and a client calling them one request at a time
// over the SDK's in-memory transport, so that no process or pipe is
// measured, only the SDK's own work (JSON-RPC framing, schema validation,
// the typed handler).
//
// Usage: mcp REQUESTS.jsonl > results.jsonl
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type sumInput struct {
	A int `json:"a" jsonschema:"the first integer"`
	B int `json:"b" jsonschema:"the second integer"`
}

type sumOutput struct {
	Sum int `json:"sum"`
}

type sleepInput struct {
	Seconds float64 `json:"seconds" jsonschema:"how long to sleep"`
}

type sleepOutput struct {
	Slept float64 `json:"slept"`
}

// request is one line of the workload.
type request struct {
	ID   string         `json:"id"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// result is what the peer writes for each request.
type result struct {
	ParentID string `json:"parent_id"`
	Name     string `json:"name"`
	Content  any    `json:"content,omitempty"`
	IsError  bool   `json:"is_error,omitempty"`
}

func newServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench-peer", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "calculate_sum", Description: "Returns the sum of two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in sumInput) (*mcp.CallToolResult, sumOutput, error) {
			return nil, sumOutput{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleeps, then returns how long it slept."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepInput) (*mcp.CallToolResult, sleepOutput, error) {
			select {
			case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
			case <-ctx.Done():
				return nil, sleepOutput{}, ctx.Err()
			}
			return nil, sleepOutput{Slept: in.Seconds}, nil
		})
	return s
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: mcp REQUESTS.jsonl")
		os.Exit(2)
	}
	if err := run(context.Background(), os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, path string, stdout io.Writer) error {
	serverSide, clientSide := mcp.NewInMemoryTransports()
	if _, err := newServer().Connect(ctx, serverSide, nil); err != nil {
		return fmt.Errorf("start the server: %w", err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil).Connect(ctx, clientSide, nil)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer session.Close()

	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	in := bufio.NewReaderSize(f, 64<<10)
	out := bufio.NewWriterSize(stdout, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for n := 1; ; n++ {
		line, readErr := in.ReadBytes('\n')
		if len(line) > 0 {
			var req request
			if err := json.Unmarshal(line, &req); err != nil {
				return fmt.Errorf("%s:%d: %w", path, n, err)
			}
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: req.Name, Arguments: req.Args})
			if err != nil {
				return fmt.Errorf("%s:%d: call %s: %w", path, n, req.Name, err)
			}
			if err := enc.Encode(result{ParentID: req.ID, Name: req.Name, Content: res.StructuredContent, IsError: res.IsError}); err != nil {
				return err
			}
		}
		if readErr == io.EOF {
			return out.Flush()
		}
		if readErr != nil {
			return readErr
		}
	}
}

// Command mcpstdio is the peer of kesoku's MCP batches: what a Go
// developer would write to call an MCP server's tool many times without
// kesoku. It is both sides:
//
//	mcpstdio serve                       an MCP server on standard input and
//	                                     output, with a typed calculate_sum
//	mcpstdio call [-j N] REQUESTS.jsonl  starts "mcpstdio serve" as its child
//	                                     (the official Go SDK's CommandTransport)
//	                                     and calls its tool once a line, N at a
//	                                     time (16), one JSON line a result, in
//	                                     request order
//
// kesoku is timed on the same server declared in an MCP config,
// `kesoku run REQUESTS.jsonl --jobs 16 --mcp-config mcp.json`, its tool
// named s__calculate_sum (bench/compare.sh writes both).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sumIn and sumOut are calculate_sum's input and output.
type sumIn struct {
	A int `json:"a" jsonschema:"the first integer"`
	B int `json:"b" jsonschema:"the second integer"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

// request is one line of the workload.
type request struct {
	ID   string         `json:"id"`
	Args map[string]any `json:"args"`
}

func main() {
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "serve":
		err = serve(context.Background())
	case len(os.Args) > 1 && os.Args[1] == "call":
		fs := flag.NewFlagSet("call", flag.ExitOnError)
		jobs := fs.Int("j", 16, "calls at once")
		fs.Parse(os.Args[2:])
		if fs.NArg() != 1 {
			err = fmt.Errorf("usage: mcpstdio call [-j N] REQUESTS.jsonl")
			break
		}
		err = call(context.Background(), *jobs, fs.Arg(0))
	default:
		fmt.Fprintln(os.Stderr, "usage: mcpstdio serve | mcpstdio call [-j N] REQUESTS.jsonl")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpstdio:", err)
		os.Exit(1)
	}
}

func serve(ctx context.Context) error {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpstdio", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "calculate_sum", Description: "Returns the sum of two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
			return nil, sumOut{Sum: in.A + in.B}, nil
		})
	return s.Run(ctx, &mcp.StdioTransport{})
}

// call reads every request first, so that only the calls are timed
// beside kesoku's reading as it goes: the loop's advantage, not its cost.
func call(ctx context.Context, jobs int, path string) error {
	reqs, err := read(path)
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpstdio-call", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(self, "serve")}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()

	lines := make([][]byte, len(reqs))
	next := make(chan int)
	errs := make(chan error, jobs)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for i := range next {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "calculate_sum", Arguments: reqs[i].Args})
				if err != nil {
					errs <- fmt.Errorf("%s: %w", reqs[i].ID, err)
					return
				}
				lines[i], _ = json.Marshal(map[string]any{"parent_id": reqs[i].ID, "content": res.StructuredContent, "is_error": res.IsError})
			}
		})
	}
	for i := range reqs {
		select {
		case next <- i:
		case err := <-errs:
			close(next)
			return err
		}
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
	}
	w := bufio.NewWriter(os.Stdout)
	for _, l := range lines {
		w.Write(l)
		w.WriteByte('\n')
	}
	return w.Flush()
}

func read(path string) ([]request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var reqs []request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var r request
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		reqs = append(reqs, r)
	}
	return reqs, sc.Err()
}

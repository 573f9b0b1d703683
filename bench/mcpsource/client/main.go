// Command client is the plain Go SDK client loop that bench/compare.sh
// --sources sets beside kesoku run: it starts the server, makes N calls of
// its add tool from J goroutines, and prints nothing but errors. What
// kesoku adds per call (reading requests, validation against the server's
// schema, records) is the difference.
//
//	client -n 10000 -j 16 SERVER [ARGS...]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	n := flag.Int("n", 10000, "calls")
	j := flag.Int("j", 16, "calls at once")
	flag.Parse()
	if flag.NArg() < 1 {
		log.Fatal("usage: client [-n N] [-j J] SERVER [ARGS...]")
	}
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(flag.Arg(0), flag.Args()[1:]...)}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	var next atomic.Int64
	var failed atomic.Int64
	var wg sync.WaitGroup
	for range *j {
		wg.Go(func() {
			for {
				i := next.Add(1)
				if i > int64(*n) {
					return
				}
				res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": i, "b": 2 * i}})
				if err != nil || res.IsError {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		fmt.Fprintf(os.Stderr, "%d calls failed\n", f)
		os.Exit(1)
	}
}

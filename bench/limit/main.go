// Command limit is the floor kesoku's batch path is measured against
// (its target: within 1.5× of it): for each JSON Lines request it decodes the line, calls the Go
// function directly and encodes a record of the same shape as kesoku's.
// No registry, no validation, no concurrency, no ordering to keep: what
// any runner of these requests must at least spend.
//
// Usage: limit REQUESTS.jsonl > records.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// request is one line of the workload.
type request struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Args struct {
		A       int     `json:"a"`
		B       int     `json:"b"`
		Seconds float64 `json:"seconds"`
	} `json:"args"`
}

// record has the fields a kesoku record has for a successful call.
type record struct {
	ID         string `json:"id"`
	SessionID  string `json:"session_id"`
	ParentID   string `json:"parent_id"`
	Role       string `json:"role"`
	Type       string `json:"type"`
	Status     string `json:"status"`
	Name       string `json:"name"`
	Content    any    `json:"content"`
	CreatedAt  string `json:"created_at"`
	DurationMS int64  `json:"duration_ms"`
}

func calculateSum(a, b int) int { return a + b }

func sleep(seconds float64) float64 {
	time.Sleep(time.Duration(seconds * float64(time.Second)))
	return seconds
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: limit REQUESTS.jsonl")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "limit:", err)
		os.Exit(1)
	}
}

func run(path string, stdout io.Writer) error {
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
			start := time.Now()
			var content any
			switch req.Name {
			case "calculate_sum":
				content = calculateSum(req.Args.A, req.Args.B)
			case "sleep":
				content = sleep(req.Args.Seconds)
			default:
				return fmt.Errorf("%s:%d: unknown tool %q", path, n, req.Name)
			}
			rec := record{
				ID: "rec_" + strconv.Itoa(n), SessionID: "limit", ParentID: req.ID,
				Role: "tool", Type: "tool_result", Status: "responded", Name: req.Name,
				Content: content, CreatedAt: time.Now().UTC().Format(time.RFC3339Nano),
				DurationMS: time.Since(start).Milliseconds(),
			}
			if err := enc.Encode(&rec); err != nil {
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

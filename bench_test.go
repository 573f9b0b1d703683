package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
)

// TestBenchRunsFromAClone checks that bench/compare.sh and the speed
// figures can be reproduced from a clone: the peers it compares against
// live in bench/, build and answer the workload, and nothing points at
// files outside the repository.
func TestBenchRunsFromAClone(t *testing.T) {
	for _, name := range []string{"bench/compare.sh", "bench/README.md", "bench/RESULTS.md", "README.md", "DEVELOPERS.md"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("shared/bench")) || bytes.Contains(data, []byte("KESOKU_BENCH_PEERS")) {
			t.Errorf("%s sends the reader to peers outside the repository (shared/bench)", name)
		}
	}
	requests := filepath.Join(t.TempDir(), "requests.jsonl")
	if err := os.WriteFile(requests, []byte(`{"id": "call_1", "name": "calculate_sum", "args": {"a": 1, "b": 2}}
{"id": "call_2", "name": "sleep", "args": {"seconds": 0.001}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"call_1": 3.0, "call_2": 0.001}

	t.Run("limit", func(t *testing.T) {
		t.Parallel()
		bin := filepath.Join(t.TempDir(), "limit")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Dir = "bench/limit"
		build.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build bench/limit: %v\n%s", err, out)
		}
		checkPeerOutput(t, want, exec.Command(bin, requests))
	})
	t.Run("pyref", func(t *testing.T) {
		t.Parallel()
		python, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("no python3")
		}
		checkPeerOutput(t, want, exec.Command(python, "bench/pyref/runner.py", requests, "-j", "2"))
	})
	t.Run("yamlparsers", func(t *testing.T) {
		// It measures the YAML library kesoku uses, at kesoku's version.
		want := requiredVersion(t, "go.mod", "github.com/goccy/go-yaml")
		if got := requiredVersion(t, "bench/yamlparsers/go.mod", "github.com/goccy/go-yaml"); got != want || want == "" {
			t.Errorf("bench/yamlparsers measures goccy/go-yaml %q, kesoku uses %q", got, want)
		}
	})
	for _, peer := range []string{"mcp", "mcpstdio"} {
		t.Run(peer, func(t *testing.T) {
			// Building it needs the SDK from the network; check what it
			// is built from instead: the SDK kesoku uses, at its version.
			const sdk = "github.com/modelcontextprotocol/go-sdk"
			dir := "bench/" + peer
			want := requiredVersion(t, "go.mod", sdk)
			if got := requiredVersion(t, dir+"/go.mod", sdk); got != want || want == "" {
				t.Errorf("%s/go.mod requires %s %q, kesoku %q", dir, sdk, got, want)
			}
			sum, err := os.ReadFile(dir + "/go.sum")
			if err != nil || !bytes.Contains(sum, []byte(sdk+" "+want+" h1:")) {
				t.Errorf("%s/go.sum does not pin the SDK (%v)", dir, err)
			}
		})
	}
}

// checkPeerOutput runs a peer and checks that it wrote one line per
// request, answering each with the tool's result.
func checkPeerOutput(t *testing.T, want map[string]any, c *exec.Cmd) {
	t.Helper()
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(c.Args, " "), err, stderr.String())
	}
	got := map[string]any{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var rec struct {
			ParentID string `json:"parent_id"`
			Content  any    `json:"content"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s wrote %q: %v", c.Args[0], sc.Text(), err)
		}
		got[rec.ParentID] = rec.Content
	}
	if len(got) != len(want) {
		t.Fatalf("%s answered %v, want %v", c.Args[0], got, want)
	}
	for id, v := range want {
		if got[id] != v {
			t.Errorf("%s: %s = %v, want %v", c.Args[0], id, got[id], v)
		}
	}
}

// requiredVersion is the version of module path that the go.mod at file
// requires, "" when it does not.
func requiredVersion(t *testing.T, file, path string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := modfile.Parse(file, data, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range mf.Require {
		if r.Mod.Path == path {
			return r.Mod.Version
		}
	}
	return ""
}

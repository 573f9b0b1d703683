package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/app/apptest"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// shardRegistry has sum, and fail, which fails; with interrupt set, the
// call of sum whose a is *interrupt signals an interrupt, as a user's
// Ctrl-C in the middle of a run would.
func shardRegistry(t *testing.T, sig *apptest.Signals, interrupt *atomic.Int64) *registry.Registry {
	r := runTestRegistry(t)
	spec, _ := r.Lookup("sum")
	call := spec.Call
	spec.Call = func(ctx context.Context, tc *registry.ToolContext, args map[string]any) (any, error) {
		a, _ := toolspec.DecodeInt[int64](args["a"])
		if interrupt != nil && a == interrupt.Load() {
			interrupt.Store(-1)
			sig.Send(t, os.Interrupt)
			// Returned once the interrupt has reached the run: the
			// signal is handled on a goroutine of its own.
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second):
				t.Error("the interrupt never reached the call")
			}
		}
		return call(ctx, tc, args)
	}
	type failArgs struct {
		Why string `json:"why"`
	}
	err := registry.Add(r, "fail", "Fails, saying why.", func(_ context.Context, _ *registry.ToolContext, in failArgs) (any, error) {
		return nil, errors.New(in.Why)
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runIn runs kesoku run with args in dir, with reg and sig; it returns
// the exit code.
func runIn(t *testing.T, dir string, reg *registry.Registry, sig *apptest.Signals, args ...string) int {
	t.Helper()
	return runInput(t, dir, "", reg, sig, args...)
}

// runInput is runIn with stdin for standard input.
func runInput(t *testing.T, dir, stdin string, reg *registry.Registry, sig *apptest.Signals, args ...string) int {
	t.Helper()
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(stdin), Out: &out, Err: &errOut}, AWD: dir, Signals: sig.Source}
	c := newRunCmd(g, func(ctx context.Context, o *runOptions) error {
		o.Registry = reg
		return runRun(ctx, o)
	})
	c.SilenceUsage, c.SilenceErrors = true, true
	c.SetArgs(args)
	code, _ := exitCode(c.ExecuteContext(context.Background()))
	return code
}

// mergeIn runs kesoku merge in dir; it returns the exit code and stderr.
func mergeIn(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}}
	c := newMergeCmd(g, nil)
	c.SilenceUsage, c.SilenceErrors = true, true
	c.SetArgs(args)
	err := c.ExecuteContext(context.Background())
	code, silent := exitCode(err)
	if err != nil && !silent {
		errOut.WriteString(err.Error())
	}
	return code, errOut.String()
}

// shardRequests is a JSON Lines file of n requests: sums, failures, bad
// arguments, lines that are no request, and, with ids, ids of their own
// and duplicates.
func shardRequests(n int, ids bool) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		id := ""
		if ids && i%3 != 0 {
			id = fmt.Sprintf(`"id": "req-%d", `, i)
			if i%11 == 0 {
				id = fmt.Sprintf(`"id": "req-%d", `, i-1) // a duplicate
			}
		}
		switch {
		case i%13 == 0:
			b.WriteString("{not a request\n")
		case i%7 == 0:
			fmt.Fprintf(&b, `{%s"name": "fail", "args": {"why": "no %d"}}`+"\n", id, i)
		case i%5 == 0:
			fmt.Fprintf(&b, `{%s"name": "sum", "args": {"a": %d}}`+"\n", id, i)
		default:
			fmt.Fprintf(&b, `{%s"name": "sum", "args": {"a": %d, "b": 1}}`+"\n", id, i)
		}
	}
	return b.String()
}

// volatile are the fields of a record that differ from run to run.
var volatile = regexp.MustCompile(`"(id|created_at)":"[^"]*",|"duration_ms":[0-9]+`)

func stable(line string) string { return volatile.ReplaceAllString(line, "") }

// sameRecords compares two records files line by line, but for their
// volatile fields; it returns how many lines they have.
func sameRecords(t *testing.T, wantPath, gotPath string) int {
	t.Helper()
	want, err := os.Open(wantPath)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	got, err := os.Open(gotPath)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	ws, gs := bufio.NewScanner(want), bufio.NewScanner(got)
	ws.Buffer(nil, 1<<20)
	gs.Buffer(nil, 1<<20)
	n := 0
	for {
		wok, gok := ws.Scan(), gs.Scan()
		if !wok || !gok {
			if wok != gok {
				t.Fatalf("%s and %s differ in length after %d records", wantPath, gotPath, n)
			}
			return n
		}
		n++
		if w, g := stable(ws.Text()), stable(gs.Text()); w != g {
			t.Fatalf("record %d differs:\nwhole: %s\nmerged: %s", n, w, g)
		}
	}
}

// TestShardsAreTheWholeRun: the N shards of a run hold, between them, the
// whole run's records (but for ids and times), one per request: for
// several N, with and without ids, with errors, and with a shard
// interrupted and resumed.
func TestShardsAreTheWholeRun(t *testing.T) {
	t.Parallel()
	for _, ids := range []bool{false, true} {
		for _, interrupted := range []bool{false, true} {
			name := fmt.Sprintf("ids=%v,interrupted=%v", ids, interrupted)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				file := filepath.Join(dir, "requests.jsonl")
				if err := os.WriteFile(file, []byte(shardRequests(60, ids)), 0o644); err != nil {
					t.Fatal(err)
				}
				sig := &apptest.Signals{}
				reg := shardRegistry(t, sig, nil)
				whole := filepath.Join(dir, "whole.jsonl")
				if code := runIn(t, dir, reg, sig, file, "--session", "S", "-o", whole); code != ExitFailures {
					t.Fatalf("whole run: exit %d", code)
				}
				resumed := 0
				defer func() {
					if interrupted && resumed < 3 {
						t.Errorf("%d shards were interrupted and resumed, want several", resumed)
					}
				}()
				for _, n := range []int{1, 2, 3, 4, 7, 61} {
					var parts []string
					for k := 1; k <= n; k++ {
						part := filepath.Join(dir, fmt.Sprintf("n%d-part%d.jsonl", n, k))
						parts = append(parts, part)
						args := []string{file, "--session", "S", "--shard", fmt.Sprintf("%d/%d", k, n), "-o", part}
						var at atomic.Int64
						if interrupted && k == (n+1)/2 {
							// The third request of the shard interrupts it.
							at.Store(int64(k + 2*n))
						}
						code := runIn(t, dir, shardRegistry(t, sig, &at), sig, args...)
						if at.Load() == -1 {
							if code != ExitInterrupted {
								t.Fatalf("shard %d/%d interrupted: exit %d", k, n, code)
							}
							resumed++
							code = runIn(t, dir, reg, sig, append(args, "--resume")...)
						}
						if code != ExitOK && code != ExitFailures {
							t.Fatalf("shard %d/%d: exit %d", k, n, code)
						}
					}
					merged := filepath.Join(dir, fmt.Sprintf("n%d.jsonl", n))
					if code, stderr := mergeIn(t, append(parts, "-o", merged)...); code != ExitFailures {
						t.Fatalf("merge of %d shards: exit %d: %s", n, code, stderr)
					}
					if got := sameRecords(t, whole, merged); got != 60 {
						t.Errorf("%d shards: %d records, want 60", n, got)
					}
				}
			})
		}
	}
}

// TestShardsOf100000: a batch of 100,000 requests run as 4 shards gives
// the records of one run.
func TestShardsOf100000(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "requests.jsonl")
	if err := os.WriteFile(file, []byte(shardRequests(100_000, false)), 0o644); err != nil {
		t.Fatal(err)
	}
	sig := &apptest.Signals{}
	reg := shardRegistry(t, sig, nil)
	whole := filepath.Join(dir, "whole.jsonl")
	if code := runIn(t, dir, reg, sig, file, "--jobs", "8", "--session", "S", "-o", whole); code != ExitFailures {
		t.Fatalf("whole run: exit %d", code)
	}
	var parts []string
	for k := 1; k <= 4; k++ {
		part := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", k))
		parts = append(parts, part)
		if code := runIn(t, dir, reg, sig, file, "--jobs", "8", "--session", "S", "--shard", fmt.Sprintf("%d/4", k), "-o", part); code != ExitFailures {
			t.Fatalf("shard %d/4: exit %d", k, code)
		}
	}
	merged := filepath.Join(dir, "merged.jsonl")
	// In any order: the positional ids say which shard each part is.
	if code, stderr := mergeIn(t, parts[2], parts[0], parts[3], parts[1], "-o", merged); code != ExitFailures {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if got := sameRecords(t, whole, merged); got != 100_000 {
		t.Errorf("%d records, want 100000", got)
	}
}

func TestShardFlag(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"0/3", "4/3", "a/b", "1/0", "3", "-1/3", "1/2/3", ""} {
		code, _, stderr := runArgs("run", "x.jsonl", "--shard", bad)
		if code != ExitUsage || !strings.Contains(stderr, "--shard") {
			t.Errorf("--shard %q: exit %d, stderr %q; want bad usage", bad, code, stderr)
		}
		code, _, _ = runArgs("validate", "x.jsonl", "--shard", bad)
		if code != ExitUsage {
			t.Errorf("validate --shard %q: exit %d; want bad usage", bad, code)
		}
	}
}

// TestShardHelp: run's and validate's --help say what --shard takes, so
// that a refused 0/3 is no surprise.
func TestShardHelp(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"run", "validate"} {
		_, stdout, _ := runArgs(cmd, "--help")
		// The flag's help may be wrapped anywhere.
		if !strings.Contains(strings.Join(strings.Fields(stdout), " "), "K from 1 to N, N up to 1000000") {
			t.Errorf("%s --help does not say the bounds of --shard:\n%s", cmd, stdout)
		}
	}
}

// TestShardEmpty: a shard with nothing to do exits 0, with an empty -o.
func TestShardEmpty(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "requests.jsonl")
	os.WriteFile(file, []byte(shardRequests(2, false)), 0o644)
	sig := &apptest.Signals{}
	out := filepath.Join(dir, "part3.jsonl")
	if code := runIn(t, dir, shardRegistry(t, sig, nil), sig, file, "--shard", "3/4", "-o", out); code != ExitOK {
		t.Errorf("empty shard: exit %d, want 0", code)
	}
	// No record: only its end, which says it had nothing to do.
	recs, end := shardLines(t, out)
	if len(recs) != 0 || !strings.Contains(end, `"content":{"shard":3,"shards":4,"requests":2}`) {
		t.Errorf("empty shard's output: %q, end %q", recs, end)
	}
}

// TestValidateShard: validate --shard checks the shard's requests only,
// numbered as in the whole run.
func TestValidateShard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "requests.jsonl")
	os.WriteFile(file, []byte(shardRequests(15, true)), 0o644)
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}, AWD: dir}
	c := newValidateCmd(g, func(ctx context.Context, o *validateOptions) error {
		o.Registry = shardRegistry(t, &apptest.Signals{}, nil)
		return runValidate(ctx, o)
	})
	c.SilenceUsage, c.SilenceErrors = true, true
	c.SetArgs([]string{file, "--shard", "2/3", "--json"})
	c.ExecuteContext(context.Background())
	var rep validateReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	// Shard 2 of 3 holds requests 2, 5, 8, 11 and 14: 5 is sum without b,
	// 11 a duplicate of req-10 (in shard 1), 14 a failure, which is valid.
	var got []string
	for _, p := range rep.Problems {
		got = append(got, fmt.Sprintf("%d %s %s", p.Line, p.ID, p.Kind))
	}
	want := []string{"5 req-5 invalid_args", "11 req-10 invalid_request"}
	if rep.Requests != 5 || strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("validate --shard 2/3: %d requests, problems %q; want 5 and %q", rep.Requests, got, want)
	}
}

// TestShardFormats: YAML, JSON, JSON Lines and standard input shard
// alike: shard K holds the whole run's records at positions K, K+N, ….
func TestShardFormats(t *testing.T) {
	t.Parallel()
	var reqs []string
	for i := 1; i <= 10; i++ {
		switch {
		case i%4 == 0:
			reqs = append(reqs, fmt.Sprintf(`{"id": "x%d", "name": "fail", "args": {"why": "no %d"}}`, i, i))
		default:
			reqs = append(reqs, fmt.Sprintf(`{"name": "sum", "args": {"a": %d, "b": 1}}`, i))
		}
	}
	files := map[string]string{
		"requests.jsonl": strings.Join(reqs, "\n") + "\n",
		"requests.json":  "[\n" + strings.Join(reqs, ",\n") + "\n]\n",
		"requests.yaml":  "session_id: S\nrequests:\n  - " + strings.Join(reqs, "\n  - ") + "\n",
	}
	for name, content := range files {
		for _, stdin := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s,stdin=%v", name, stdin), func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				file := filepath.Join(dir, name)
				os.WriteFile(file, []byte(content), 0o644)
				sig := &apptest.Signals{}
				reg := shardRegistry(t, sig, nil)
				arg, input := file, ""
				if stdin {
					arg, input = "-", content
				}
				whole := filepath.Join(dir, "whole.jsonl")
				runInput(t, dir, input, reg, sig, arg, "--session", "S", "-o", whole)
				wholeRecs := readLines(t, whole)
				if len(wholeRecs) != 10 {
					t.Fatalf("whole run: %d records", len(wholeRecs))
				}
				for k := 1; k <= 3; k++ {
					part := filepath.Join(dir, fmt.Sprintf("part%d.jsonl", k))
					runInput(t, dir, input, reg, sig, arg, "--session", "S", "--shard", fmt.Sprintf("%d/3", k), "-o", part)
					got, end := shardLines(t, part)
					if !strings.Contains(end, fmt.Sprintf(`"content":{"shard":%d,"shards":3,"requests":10}`, k)) {
						t.Errorf("shard %d/3 ends with %q, not its shard_end line", k, end)
					}
					var want []string
					for p := k; p <= 10; p += 3 {
						want = append(want, stable(wholeRecs[p-1]))
					}
					for i := range got {
						got[i] = stable(got[i])
					}
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("shard %d/3:\n%s\nwant\n%s", k, strings.Join(got, "\n"), strings.Join(want, "\n"))
					}
				}
			})
		}
	}
}

// shardLines is the record lines of a shard's -o file, and its last line,
// which must be its shard_end line.
func shardLines(t *testing.T, path string) (recs []string, end string) {
	t.Helper()
	lines := readLines(t, path)
	end = lines[len(lines)-1]
	if !strings.Contains(end, `"type":"shard_end"`) {
		t.Fatalf("%s does not end with its shard_end line: %q", path, end)
	}
	recs = lines[:len(lines)-1]
	if len(recs) == 1 && recs[0] == "" {
		recs = nil
	}
	return recs, end
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

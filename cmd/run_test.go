package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app/apptest"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
	"github.com/kesoku/kesoku/registry"
)

// sumArgs are the arguments of the tests' sum tool.
type sumArgs struct {
	A int64 `json:"a"`
	B int64 `json:"b"`
}

// runTestRegistry holds a sum tool of the tests' own, so that these tests
// do not depend on the built-in ones.
func runTestRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	r := registry.New()
	err := registry.Add(r, "sum", "Adds two integers.", func(_ context.Context, _ *registry.ToolContext, in sumArgs) (int64, error) {
		return in.A + in.B, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runFlags are the flags of run.go, as TestRunFlags compares them; other
// files add their own (--model) and test them.
type runFlags struct {
	Files            []string
	Output, Session  string
	Format           string
	Jobs             int
	Timeout, Grace   time.Duration
	MaxOutput        sizeValue
	FailFast, Resume bool
}

func TestRunFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want runFlags
	}{
		{"defaults", []string{"a.yaml"}, runFlags{Files: []string{"a.yaml"}, Jobs: 1, Grace: 5 * time.Second, MaxOutput: 1 << 20}},
		{"everything", []string{"a.jsonl", "-", "-o", "out.jsonl", "--session", "s", "--format", "jsonl", "-j", "8", "--timeout", "300ms",
			"--grace", "1s", "--max-output", "64KiB", "--fail-fast", "--resume"},
			runFlags{Files: []string{"a.jsonl", "-"}, Output: "out.jsonl", Session: "s", Format: "jsonl", Jobs: 8, Timeout: 300 * time.Millisecond,
				Grace: time.Second, MaxOutput: 64 << 10, FailFast: true, Resume: true}},
		{"sizes in bytes and SI units", []string{"a.yaml", "--max-output", "1MB"}, runFlags{Files: []string{"a.yaml"}, Jobs: 1, Grace: 5 * time.Second, MaxOutput: 1e6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got *runOptions
			c := newRunCmd(&globals{}, func(_ context.Context, o *runOptions) error { got = o; return nil })
			c.SetArgs(tt.args)
			if err := c.Execute(); err != nil {
				t.Fatal(err)
			}
			mine := runFlags{Files: got.Files, Output: got.Output, Session: got.Session, Format: got.Format, Jobs: got.Jobs,
				Timeout: got.Timeout, Grace: got.Grace, MaxOutput: got.MaxOutput, FailFast: got.FailFast, Resume: got.Resume}
			if diff := cmp.Diff(tt.want, mine); diff != "" {
				t.Errorf("options mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// runKesoku runs `kesoku run` over the test registry with in-memory
// streams, in dir as the AWD.
func runKesoku(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(stdin), Out: &out, Err: &errOut}, AWD: dir}
	c := newRunCmd(g, func(ctx context.Context, o *runOptions) error {
		o.Registry = runTestRegistry(t)
		return runRun(ctx, o)
	})
	// As the root command does.
	c.SilenceUsage, c.SilenceErrors = true, true
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })
	c.SetArgs(args)
	c.SetOut(&errOut)
	c.SetErr(&errOut)
	err := c.Execute()
	code, silent := exitCode(err)
	if err != nil && !silent {
		errOut.WriteString("kesoku: " + err.Error() + "\n")
	}
	return out.String(), errOut.String(), code
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func decodeRecords(t *testing.T, data string) []*message.Record {
	t.Helper()
	var recs []*message.Record
	if err := records.Read(strings.NewReader(data), "out", func(r *message.Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestRunExitCodesAndRecords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		files   map[string]string
		args    []string
		stdin   string
		code    int
		results []string // parent_id=content or parent_id!kind
		stderr  string   // a regexp
	}{
		{"all succeed", map[string]string{"a.yaml": "- {id: x, name: sum, args: {a: 1, b: 2}}\n- {name: sum, args: {a: 2, b: 2}}\n"},
			[]string{"a.yaml"}, "", 0, []string{"x=3", "call_2=4"}, `2 records: 2 succeeded`},
		{"a failure", map[string]string{"a.json": `[{"name": "sum", "args": {"a": 1}}, {"name": "sun", "args": {"a": 1, "b": 1}}]`},
			[]string{"a.json"}, "", 1, []string{"call_1!invalid_args", "call_2!unknown_tool"}, `2 records: 0 succeeded, 2 failed \(1 invalid_args, 1 unknown_tool\)`},
		{"files in order, ids across them", map[string]string{"a.jsonl": `{"name": "sum", "args": {"a": 1, "b": 1}}` + "\n", "b.yaml": "name: sum\nargs: {a: 5, b: 5}\n"},
			[]string{"a.jsonl", "b.yaml"}, "", 0, []string{"call_1=2", "call_2=10"}, ``},
		{"stdin", nil, []string{"-"}, `{"name": "sum", "args": {"a": 1, "b": 1}}`, 0, []string{"call_1=2"}, ``},
		{"parse error: nothing runs", map[string]string{"a.yaml": "- {name: sum, args: {a: 1, b: 2}}\n", "b.yaml": "- name: sum\n  args: [1\n"},
			[]string{"a.yaml", "b.yaml"}, "", 2, nil, `(?s)b\.yaml:2:9: invalid YAML: .*\n 2 \|   args: \[1\n   \|         \^`},
		{"every unreadable file reported", nil, []string{"no.yaml", "nope.jsonl"}, "", 2, nil, `(?s)no\.yaml.*nope\.jsonl`},
		{"resume needs -o", map[string]string{"a.yaml": "name: sum\n"}, []string{"a.yaml", "--resume"}, "", 2, nil, `--resume needs -o FILE`},
		{"bad jobs", map[string]string{"a.yaml": "name: sum\n"}, []string{"a.yaml", "-j", "0"}, "", 2, nil, `invalid argument "0" for "-j, --jobs" flag: want a whole number from 1 to 10000`},
		{"bad size", map[string]string{"a.yaml": "name: sum\n"}, []string{"a.yaml", "--max-output", "lots"}, "", 2, nil, `invalid argument "lots" for "--max-output" flag: want a size`},
		{"stdin twice", nil, []string{"-", "-"}, "", 2, nil, `given 2 times`},
		{"fail-fast", map[string]string{"a.jsonl": `{"name": "sum", "args": {"a": 1, "b": 1}}` + "\n" + `{"name": "sum"}` + "\n" + `{"name": "sum", "args": {"a": 1, "b": 1}}` + "\n"},
			[]string{"a.jsonl", "--fail-fast"}, "", 1, []string{"call_1=2", "call_2!invalid_args", "call_3!aborted"}, `stopped by --fail-fast`},
		{"-o is a request file", map[string]string{"a.jsonl": `{"name": "sum", "args": {"a": 1, "b": 1}}` + "\n"},
			[]string{"a.jsonl", "-o", "a.jsonl"}, "", 2, nil, `-o .*a\.jsonl is also a request file`},
		{"-o is a request file, resumed", map[string]string{"a.yaml": "name: sum\nargs: {a: 1, b: 1}\n"},
			[]string{"a.yaml", "-o", "a.yaml", "--resume"}, "", 2, nil, `is also a request file`},
		{"duplicate ids", map[string]string{"a.jsonl": `{"id": "x", "name": "sum", "args": {"a": 1, "b": 1}}` + "\n" + `{"id": "x", "name": "sum", "args": {"a": 1, "b": 1}}` + "\n"},
			[]string{"a.jsonl"}, "", 1, []string{"x=2", "x!invalid_request"}, ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for name, content := range tt.files {
				writeFile(t, dir, name, content)
			}
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				if _, ok := tt.files[a]; ok || strings.HasPrefix(a, "no") {
					a = filepath.Join(dir, a)
				}
				args[i] = a
			}
			stdout, stderr, code := runKesoku(t, dir, tt.stdin, args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d; stderr:\n%s", code, tt.code, stderr)
			}
			for name, content := range tt.files {
				// A run never touches its request files.
				if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != content {
					t.Errorf("request file %s changed to %q (%v)", name, got, err)
				}
			}
			if !regexp.MustCompile(tt.stderr).MatchString(stderr) {
				t.Errorf("stderr %q does not match %q", stderr, tt.stderr)
			}
			var got []string
			for _, r := range decodeRecords(t, stdout) {
				if r.Error != nil {
					got = append(got, r.ParentID+"!"+string(r.Error.Kind))
				} else {
					got = append(got, r.ParentID+"="+string(r.Content))
				}
			}
			if diff := cmp.Diff(tt.results, got); diff != "" {
				t.Errorf("records mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunSessionIDs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", "session_id: from-file\nrequests:\n  - {name: sum, args: {a: 1, b: 1}}\n")
	b := writeFile(t, dir, "b.jsonl", `{"name": "sum", "args": {"a": 1, "b": 1}}`+"\n")
	sessions := func(args ...string) []string {
		stdout, stderr, code := runKesoku(t, dir, "", args...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var out []string
		for _, r := range decodeRecords(t, stdout) {
			out = append(out, r.SessionID)
		}
		return out
	}
	got := sessions(a, b)
	if got[0] != "from-file" || !regexp.MustCompile(`^[0-9a-f-]{36}$`).MatchString(got[1]) {
		t.Errorf("sessions = %q, want the file's, then a new id", got)
	}
	if diff := cmp.Diff([]string{"flag", "flag"}, sessions(a, b, "--session", "flag")); diff != "" {
		t.Errorf("--session mismatch (-want +got):\n%s", diff)
	}
}

// TestRunResumeSkipsFinishedAndCompacts: the finished request is
// skipped, the others run, and the file ends with one record per request
// in request order, the aborted one gone (the earlier run's records,
// written before records had positions, given theirs).
func TestRunResumeSkipsFinishedAndCompacts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeFile(t, dir, "a.jsonl", `{"id": "1", "name": "sum", "args": {"a": 1, "b": 1}}
{"id": "2", "name": "sum", "args": {"a": 2, "b": 2}}
{"id": "3", "name": "sum", "args": {"a": 3, "b": 3}}
`)
	out := filepath.Join(dir, "out.jsonl")
	// An earlier run finished 1, was interrupted before 2, and was killed
	// while writing 3's record.
	w, err := records.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&message.Record{ID: "r1", SessionID: "earlier", ParentID: "1", Type: message.TypeToolResult, Status: message.StatusResponded, Name: "sum", Content: json.RawMessage("2")})
	w.Write(&message.Record{ID: "r2", SessionID: "earlier", ParentID: "2", Type: message.TypeToolResult, Status: message.StatusAborted, Name: "sum", IsError: true,
		Error: &message.ErrorInfo{Kind: message.KindAborted, Message: "interrupted"}})
	w.Close()
	f, _ := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id": "r3", "parent_id": "3", "ty`)
	f.Close()

	_, stderr, code := runKesoku(t, dir, "", in, "-o", out, "--resume")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "1 skipped") {
		t.Errorf("stderr %q does not count the skipped request", stderr)
	}
	data, _ := os.ReadFile(out)
	var got []string
	for _, r := range decodeRecords(t, string(data)) {
		// The resumed run goes on in the earlier run's session.
		got = append(got, fmt.Sprintf("%s:%s:%s:%d", r.ParentID, r.Status, r.SessionID, r.Position))
	}
	want := []string{"1:responded:earlier:1", "2:responded:earlier:2", "3:responded:earlier:3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s", diff)
	}
}

// TestRunResumeInterruptedIsNotCompacted: a resumed run that an interrupt
// cuts short leaves the file as it appended to it — the records of what it
// did not read are the only ones there are — for the next --resume.
// interruptingRegistry is the test registry with interrupt, a tool that
// interrupts the run it is called by, as Ctrl-C would, and returns the
// interrupt's error once it has reached the call.
func interruptingRegistry(t *testing.T, sig *apptest.Signals) *registry.Registry {
	reg := runTestRegistry(t)
	reg.MustRegister(&registry.Spec{Name: "interrupt", Call: func(ctx context.Context, _ *registry.ToolContext, _ map[string]any) (any, error) {
		sig.Send(t, os.Interrupt)
		<-ctx.Done()
		return nil, ctx.Err()
	}})
	return reg
}

func TestRunResumeInterruptedIsNotCompacted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeFile(t, dir, "a.jsonl", `{"id": "1", "name": "interrupt", "args": {}}
{"id": "2", "name": "sum", "args": {"a": 2, "b": 2}}
`)
	out := writeFile(t, dir, "out.jsonl", `{"id":"old","session_id":"s","parent_id":"1","role":"tool","type":"tool_result","status":"aborted","name":"interrupt","is_error":true,"error":{"kind":"aborted","message":"interrupted"},"position":1,"created_at":"2026-11-30T00:00:00Z"}
`)
	sig := &apptest.Signals{}
	reg := interruptingRegistry(t, sig)
	var stdout, stderr bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &stdout, Err: &stderr}, AWD: dir, Signals: sig.Source}
	c := newRunCmd(g, func(ctx context.Context, o *runOptions) error {
		o.Registry = reg
		return runRun(ctx, o)
	})
	c.SetArgs([]string{in, "-o", out, "--resume"})
	c.SilenceUsage, c.SilenceErrors = true, true
	if code, _ := exitCode(c.Execute()); code != ExitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, ExitInterrupted, stderr.String())
	}
	data, _ := os.ReadFile(out)
	recs := decodeRecords(t, string(data))
	if len(recs) < 2 || recs[0].ID != "old" {
		t.Errorf("the file holds %d records, the first %+v; want the earlier run's aborted record kept, and the new ones after it", len(recs), recs[0])
	}
}

// TestRunBundledExample runs testdata/requests.yaml, the README's first
// command, with the built-in tools, from the repository's root.
func TestRunBundledExample(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}, AWD: root}
	c := newRunCmd(g, runRun)
	c.SetArgs([]string{filepath.Join(root, "testdata", "requests.yaml")})
	c.SilenceUsage, c.SilenceErrors = true, true
	if code, _ := exitCode(c.Execute()); code != ExitFailures {
		t.Errorf("exit code %d, want 1 (the example shows failures); stderr:\n%s", code, errOut.String())
	}
	var got []string
	for _, r := range decodeRecords(t, out.String()) {
		s := r.SessionID + " " + r.ParentID + " " + r.Name + " "
		if r.Error != nil {
			s += string(r.Error.Kind)
		} else {
			s += string(r.Content)
		}
		got = append(got, s)
	}
	hello, err := os.ReadFile(filepath.Join(root, "testdata", "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	content, _ := json.Marshal(string(hello))
	want := []string{
		"demo call_1 calculate_sum 80235",
		"demo call_2 calculate_sum invalid_args",
		"demo call_3 calculate_summ unknown_tool",
		`demo call_4 read_file {"path":"testdata/hello.txt","content":` + string(content) + `,"start_line":1,"end_line":2,"total_lines":2}`,
		"demo call_5 calculate_sum 3",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records mismatch (-want +got):\n%s", diff)
	}
}

// TestRunInterruptedWhileReading interrupts a run while a JSON file on
// standard input is still arriving: the input is cut short by the
// interrupt, which is what the exit status and the message say, not a
// parse error.
func TestRunInterruptedWhileReading(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte("[\n  {\"name\": \"sum\", \"args\": {\"a\": 1, \"b\": 2}},\n"))
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: pr, Out: &out, Err: &errOut}, AWD: t.TempDir()}
	c := newRunCmd(g, func(ctx context.Context, o *runOptions) error {
		o.Registry = runTestRegistry(t)
		return runRun(ctx, o)
	})
	c.SilenceUsage, c.SilenceErrors = true, true
	c.SetArgs([]string{"-", "--format", "json"})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := c.ExecuteContext(ctx)
	if code, _ := exitCode(err); code != ExitInterrupted {
		t.Errorf("exit code %d (%v), want 130", code, err)
	}
	if err == nil || !strings.Contains(err.Error(), "interrupted while reading the requests") {
		t.Errorf("error = %v, want one saying the input was cut short", err)
	}
	if out.Len() != 0 {
		t.Errorf("records written: %q", out.String())
	}
}

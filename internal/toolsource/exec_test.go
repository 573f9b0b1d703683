package toolsource

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/registry"
)

// parseTestTool reads the one command tool a config file's text declares.
func parseTestTool(tb testing.TB, yaml string) (*commandTool, error) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "kesoku.yaml")
	f, err := config.Parse(path, []byte(yaml), nil)
	if err != nil {
		return nil, err
	}
	tools, err := declaredTools(Options{Config: &config.Config{Files: []*config.File{f}}})
	if err != nil {
		return nil, err
	}
	if len(tools) != 1 {
		tb.Fatalf("%d tools declared, want 1", len(tools))
	}
	return tools[0], nil
}

func TestSplitPlaceholders(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []segment
	}{
		{"plain", []segment{{text: "plain"}}},
		{"", []segment{{}}},
		{"--lang={{lang}}", []segment{{text: "--lang="}, {text: "lang", param: true}}},
		{"{{ a }}-{{b}}", []segment{{text: "a", param: true}, {text: "-"}, {text: "b", param: true}}},
		{"--format={{.State.Status}}", []segment{{text: "--format={{.State.Status}}"}}},
		{"{{json .}} {{x}}", []segment{{text: "{{json .}} "}, {text: "x", param: true}}},
		{"open {{ never closed", []segment{{text: "open {{ never closed"}}},
	}
	for _, tt := range tests {
		got, err := splitPlaceholders(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(segment{})); diff != "" {
			t.Errorf("%q mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
	segs, _ := splitPlaceholders("--n={{n}},{{s}},{{list}},{{missing}}")
	got := fill(segs, map[string]any{"n": 3.0, "s": "a b", "list": []any{1.0, "x"}})
	if want := `--n=3,a b,[1,"x"],`; got != want {
		t.Errorf("fill = %q, want %q", got, want)
	}
}

func TestResult(t *testing.T) {
	t.Parallel()
	tests := []struct {
		out  string
		want any
	}{
		{"{\n  \"a\": [1, 2]\n}\n", json.RawMessage(`{"a":[1,2]}`)},
		{"42\n", json.RawMessage(`42`)},
		{"hello\n\n", "hello"},
		{"  spaced  \n", "  spaced  "},
		{"", ""},
		{"bad \xff byte", "bad \uFFFD byte"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, result([]byte(tt.out))); diff != "" {
			t.Errorf("result(%q) mismatch (-want +got):\n%s", tt.out, diff)
		}
	}
}

func TestArgEnv(t *testing.T) {
	t.Parallel()
	env := argEnv([]string{"PATH=/bin", "KESOKU_ARG_OLD=stale"}, map[string]any{
		"name": "x", "n": 2.0, "ok": true, "file-path": "p", "list": []any{1.0}, "obj": map[string]any{}, "none": nil,
		"huge": strings.Repeat("a", maxEnvValue+1),
	})
	slices.Sort(env)
	want := []string{"KESOKU_ARG_FILE_PATH=p", "KESOKU_ARG_N=2", "KESOKU_ARG_NAME=x", "KESOKU_ARG_OK=true", "PATH=/bin"}
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

// TestCommandCallFails: a non-zero exit says the status and the end of
// standard error; a program that cannot start says so.
func TestCommandCallFails(t *testing.T) {
	t.Parallel()
	r := &commandRunner{procs: &processes{grace: time.Second}, awd: t.TempDir(), capture: 16}
	for _, tt := range []struct{ yaml, want string }{
		{"tools:\n  t:\n    command: [sh, -c, 'echo oops >&2; exit 4']\n", "sh exited with status 4; standard error: oops"},
		{"tools:\n  t:\n    command: [sh, -c, 'kill -9 $$']\n", "sh was killed by signal killed"},
		{"tools:\n  t:\n    command: [no-such-program-kesoku]\n", `start no-such-program-kesoku: exec: "no-such-program-kesoku": executable file not found`},
		{"tools:\n  t:\n    command: [sh, -c, 'echo 0123456789abcdefghij']\n", "sh printed more than 16 bytes on standard output: stopped"},
	} {
		tool, err := parseTestTool(t, tt.yaml)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tool.spec(r.run).Call(context.Background(), &registry.ToolContext{}, map[string]any{})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.yaml, err, tt.want)
		}
	}
}

// BenchmarkCommandCall is one call of a trivial command tool: the
// arguments on standard input and in the environment, a process group
// started and reaped, standard output read back.
func BenchmarkCommandCall(b *testing.B) {
	tool, err := parseTestTool(b, "tools:\n  echo:\n    command: [/bin/echo, \"{{n}}\"]\n    parameters: {type: object, properties: {n: {type: integer}}}\n")
	if err != nil {
		b.Fatal(err)
	}
	r := &commandRunner{procs: &processes{grace: time.Second}, awd: b.TempDir(), capture: noLimitCapture}
	spec := tool.spec(r.run)
	args := map[string]any{"n": 7.0}
	for b.Loop() {
		if _, err := spec.Call(context.Background(), &registry.ToolContext{}, args); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParamNamesCollide: parameters whose KESOKU_ARG_ variables are one
// (a-b, a_b, A_B) are a bad declaration, at the line of the second.
func TestParamNamesCollide(t *testing.T) {
	t.Parallel()
	_, err := parseTestTool(t, "tools:\n  t:\n    command: [cat]\n    parameters:\n      type: object\n      properties:\n        a_b: {type: string}\n        a-b: {type: string}\n")
	want := `kesoku.yaml:8:14: tools.t.parameters: "a_b" and "a-b" are both KESOKU_ARG_A_B in the program's environment`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("colliding names: %v, want %q", err, want)
	}
	if _, err := parseTestTool(t, "tools:\n  t:\n    command: [cat]\n    parameters: {type: object, properties: {a_b: {type: string}, ab: {type: string}}}\n"); err != nil {
		t.Errorf("names that differ: %v", err)
	}
}

// TestNULArgument: a string with a NUL byte reaches the program on
// standard input whole, and is left out of the environment (which cannot
// hold it); the call does not fail for it. In the command line, where no
// argument can hold a NUL, it is a bad argument.
func TestNULArgument(t *testing.T) {
	t.Parallel()
	r := &commandRunner{procs: &processes{grace: time.Second}, awd: t.TempDir(), capture: noLimitCapture}
	tool, err := parseTestTool(t, "tools:\n  t:\n    command: [sh, -c, 'cat; echo; echo \"${KESOKU_ARG_TEXT-unset} $KESOKU_ARG_N\"']\n    parameters: {type: object, properties: {text: {type: string}, n: {type: integer}}}\n")
	if err != nil {
		t.Fatal(err)
	}
	v, err := tool.spec(r.run).Call(context.Background(), &registry.ToolContext{}, map[string]any{"text": "a\x00b", "n": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"n\":2,\"text\":\"a\\u0000b\"}\nunset 2"; v != want {
		t.Errorf("the program saw %q, want %q", v, want)
	}
	tool, err = parseTestTool(t, "tools:\n  t:\n    command: [echo, \"{{text}}\"]\n    parameters: {type: object, properties: {text: {type: string}}}\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tool.spec(r.run).Call(context.Background(), &registry.ToolContext{}, map[string]any{"text": "a\x00b"})
	if !registry.IsInvalidArgs(err) || !strings.Contains(err.Error(), "args.text: holds a NUL byte") {
		t.Errorf("a NUL in a placeholder: %v, want an invalid argument", err)
	}
}

// TestOutputSink: output within the limit is the result as ever; past it,
// the whole of it is in the file, written as it came, whatever the sizes
// of the writes, and the head and tail are kept, cut on a character's
// boundary.
func TestOutputSink(t *testing.T) {
	t.Parallel()
	small := &outputSink{limit: 64, dir: t.TempDir()}
	small.Write([]byte("{\"a\": 1}\n"))
	if diff := cmp.Diff(json.RawMessage(`{"a":1}`), small.result()); diff != "" {
		t.Errorf("within the limit mismatch (-want +got):\n%s", diff)
	}
	whole := strings.Repeat("é0123456789", 100) + "end\n" // 1,204 bytes
	for _, size := range []int{1, 7, 64, 65, 5000} {
		dir := t.TempDir()
		o := &outputSink{limit: 64, dir: dir}
		for rest := []byte(whole); len(rest) > 0; {
			n := min(size, len(rest))
			o.Write(rest[:n])
			rest = rest[n:]
		}
		c, ok := o.result().(*registry.CutOutput)
		if !ok {
			t.Fatalf("writes of %d: %T, want a CutOutput", size, o.result())
		}
		if c.Bytes != int64(len(whole)) || c.SaveErr != nil {
			t.Errorf("writes of %d: %d bytes, error %v", size, c.Bytes, c.SaveErr)
		}
		if !strings.HasPrefix(whole, c.Head) || len(c.Head) < 32 || !strings.HasSuffix(whole, c.Tail+"\n") || len(c.Tail) < 31 {
			t.Errorf("writes of %d: head %q, tail %q", size, c.Head, c.Tail)
		}
		if !utf8.ValidString(c.Head) || !utf8.ValidString(c.Tail) {
			t.Errorf("writes of %d: a character cut: %q, %q", size, c.Head, c.Tail)
		}
		saved, err := os.ReadFile(c.SavedTo)
		if err != nil || string(saved) != whole || filepath.Dir(c.SavedTo) != dir {
			t.Errorf("writes of %d: saved %d bytes in %s (%v)", size, len(saved), c.SavedTo, err)
		}
	}
}

// TestCommandOutputStreams: 16 programs printing 8 MB each at once, with
// a limit of 64 KiB, cost kesoku a few MiB, not the 128 MB they print:
// the output goes to the saved files as it comes, each whole. Not
// parallel: it measures what the process allocates.
func TestCommandOutputStreams(t *testing.T) {
	const each, programs = 8_000_000, 16
	dir := t.TempDir()
	r := &commandRunner{procs: &processes{grace: time.Second}, awd: dir, limit: 64 << 10, outputDir: filepath.Join(dir, "outputs")}
	tool, err := parseTestTool(t, fmt.Sprintf("tools:\n  t:\n    command: [sh, -c, 'yes 0123456789abcdef | head -c %d']\n", each))
	if err != nil {
		t.Fatal(err)
	}
	spec := tool.spec(r.run)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	results := make([]any, programs)
	errs := make([]error, programs)
	var wg sync.WaitGroup
	for i := range programs {
		wg.Go(func() {
			results[i], errs[i] = spec.Call(context.Background(), &registry.ToolContext{}, map[string]any{})
		})
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	for i := range programs {
		c, ok := results[i].(*registry.CutOutput)
		if errs[i] != nil || !ok {
			t.Fatalf("call %d: %v, %T", i, errs[i], results[i])
		}
		if st, err := os.Stat(c.SavedTo); err != nil || st.Size() != each || c.Bytes != each {
			t.Errorf("call %d: %d bytes, saved %v (%v)", i, c.Bytes, st, err)
		}
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	if alloc > 32<<20 {
		t.Errorf("16 programs printing 8 MB each took %d MiB, want less than 32", alloc>>20)
	}
	t.Logf("%d programs printing %d bytes each, --max-output 64 KiB: %d KiB allocated", programs, each, alloc>>10)
}

// BenchmarkCommandOutput is 16 programs printing 60 MB each at once
// (--jobs 16), with the default --max-output of 1 MiB: what kesoku holds
// of them is reported as MiB-allocated/op, which bounds what it holds at
// any moment.
func BenchmarkCommandOutput(b *testing.B) {
	const each, programs = 60_000_000, 16
	dir := b.TempDir()
	r := &commandRunner{procs: &processes{grace: time.Second}, awd: dir, limit: 1 << 20, outputDir: filepath.Join(dir, "outputs")}
	tool, err := parseTestTool(b, fmt.Sprintf("tools:\n  t:\n    command: [sh, -c, 'head -c %d /dev/zero']\n", each))
	if err != nil {
		b.Fatal(err)
	}
	spec := tool.spec(r.run)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		var wg sync.WaitGroup
		for range programs {
			wg.Go(func() {
				if v, err := spec.Call(context.Background(), &registry.ToolContext{}, map[string]any{}); err != nil {
					b.Error(err)
				} else {
					os.Remove(v.(*registry.CutOutput).SavedTo)
				}
			})
		}
		wg.Wait()
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MiB-allocated/op")
}

// TestOutsideTextEscaped: what a program or a server writes reaches the
// terminal escaped: the tail of standard error in a failure's message, a
// server's standard error under -v. An ESC sequence could hide a line.
func TestOutsideTextEscaped(t *testing.T) {
	t.Parallel()
	r := &commandRunner{procs: &processes{grace: time.Second}, awd: t.TempDir(), capture: noLimitCapture}
	tool, err := parseTestTool(t, "tools:\n  t:\n    command: [sh, -c, 'printf \"bad\\033[2K\\rgood\\nline two\\n\" >&2; exit 1']\n")
	if err != nil {
		t.Fatal(err)
	}
	_, err = tool.spec(r.run).Call(context.Background(), &registry.ToolContext{}, map[string]any{})
	if want := "sh exited with status 1; standard error: bad\\x1b[2K\\rgood\nline two"; err == nil || err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	var lines []string
	w := &lineWriter{prefix: "mcp server s: ", emit: func(l string) { lines = append(lines, l) }}
	w.Write([]byte("ok\n\x1b]0;title\x07hidden\r\n"))
	if diff := cmp.Diff([]string{"mcp server s: ok", `mcp server s: \x1b]0;title\x07hidden`}, lines); diff != "" {
		t.Errorf("lines mismatch (-want +got):\n%s", diff)
	}
}

// TestSavedOutputHidesSecrets: the whole output of a command tool, saved
// when it is past --max-output, holds no secret kesoku knows (here an MCP
// server's header value), not even one cut across the program's writes
// or where the head and tail are cut.
func TestSavedOutputHidesSecrets(t *testing.T) {
	t.Parallel()
	const token = "s3cret-header-value-91d2"
	dir := t.TempDir()
	set := setOf(t, context.Background(), Options{MaxOutput: 64, OutputDir: dir},
		"mcpServers:\n  web:\n    type: http\n    url: http://127.0.0.1:1/mcp\n    headers: {X-Api-Key: "+token+"}\n"+
			"tools:\n  leak:\n    description: Prints a secret.\n    command: [sh, -c, 'for i in 1 2 3 4 5 6 7 8 9 10; do printf \"line $i s3cret-header-\"; printf \"value-91d2 \\n\"; done']\n")
	v, err := call(t, set, "leak", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	c, ok := v.(*registry.CutOutput)
	if !ok || c.SavedTo == "" {
		t.Fatalf("got %#v, want an output cut and saved", v)
	}
	saved, err := os.ReadFile(c.SavedTo)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(saved), "value-91d2") || !strings.Contains(string(saved), "line 10 [redacted]") {
		t.Errorf("the saved output:\n%s", saved)
	}
	if strings.Contains(c.Head+c.Tail, "91d2") {
		t.Errorf("head %q, tail %q", c.Head, c.Tail)
	}
}

package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/app/apptest"
	"github.com/kesoku/kesoku/internal/junit/junittest"
)

// readReport reads a JUnit report and checks it against the JUnit XSD;
// it returns the testsuite.
func readReport(t *testing.T, path string) *junittest.Node {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := junittest.Check(b)
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	if doc.Name != "testsuites" || len(doc.Children) != 1 {
		t.Fatalf("%s: want one testsuite under testsuites:\n%s", path, b)
	}
	return doc.Children[0]
}

func wantAttrs(t *testing.T, n *junittest.Node, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got, _ := n.Attr(k); got != v {
			t.Errorf("%s %s = %q, want %q", n.Name, k, got, v)
		}
	}
}

// A run's report: a testcase per record, named by id and tool, its
// request file as classname, failures typed by error kind.
func TestRunJUnit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl", `{"id": "one", "name": "sum", "args": {"a": 1, "b": 2}}
{"id": "two", "name": "fail", "args": {"why": "it <broke>\nbadly"}}
`)
	b := writeFile(t, dir, "b.yaml", "- {name: sum, args: {a: 1}}\n- {name: nosuch}\n")
	report := filepath.Join(dir, "report.xml")
	sig := &apptest.Signals{}
	if code := runIn(t, dir, shardRegistry(t, sig, nil), sig, a, b, "-o", filepath.Join(dir, "out.jsonl"), "--junit", report); code != ExitFailures {
		t.Fatalf("exit %d, want %d", code, ExitFailures)
	}
	suite := readReport(t, report)
	wantAttrs(t, suite, map[string]string{"tests": "4", "failures": "3", "errors": "0", "skipped": "0"})
	cases := suite.Children
	if len(cases) != 4 {
		t.Fatalf("%d testcases, want 4", len(cases))
	}
	for i, want := range []struct{ name, class, failure string }{
		{"one (sum)", a, ""},
		{"two (fail)", a, "tool_error"},
		{"call_3 (sum)", b, "invalid_args"},
		{"call_4 (nosuch)", b, "unknown_tool"},
	} {
		wantAttrs(t, cases[i], map[string]string{"name": want.name, "classname": want.class})
		if want.failure == "" {
			if len(cases[i].Children) != 0 {
				t.Errorf("%s: a success with %d children", want.name, len(cases[i].Children))
			}
			continue
		}
		if len(cases[i].Children) != 1 || cases[i].Children[0].Name != "failure" {
			t.Fatalf("%s: want one failure", want.name)
		}
		wantAttrs(t, cases[i].Children[0], map[string]string{"type": want.failure})
	}
	if body := cases[1].Children[0].Text.String(); body != "it <broke>\nbadly" {
		t.Errorf("the failure's body %q, want the whole message", body)
	}
}

// An interrupted run still writes a valid report: what it recorded, the
// aborted requests skipped.
func TestRunJUnitInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeFile(t, dir, "in.yaml", `- {name: sum, args: {a: 1, b: 1}}
- {name: interrupt}
- {name: sum, args: {a: 1, b: 2}}
`)
	report := filepath.Join(dir, "report.xml")
	sig := &apptest.Signals{}
	reg := interruptingRegistry(t, sig)
	out := filepath.Join(dir, "out.jsonl")
	if code := runIn(t, dir, reg, sig, in, "-o", out, "--junit", report); code != ExitInterrupted {
		t.Fatalf("exit %d, want %d", code, ExitInterrupted)
	}
	data, _ := os.ReadFile(out)
	recs := decodeRecords(t, string(data))
	aborted := 0
	for _, r := range recs {
		if r.Status == "aborted" {
			aborted++
		}
	}
	suite := readReport(t, report)
	if aborted == 0 {
		t.Fatal("no aborted record: the interrupt came too late for this test")
	}
	wantAttrs(t, suite, map[string]string{"tests": itoa(len(recs)), "skipped": itoa(aborted)})
	skipped := 0
	for _, c := range suite.Children {
		if len(c.Children) > 0 && c.Children[0].Name == "skipped" {
			skipped++
		}
	}
	if skipped != aborted {
		t.Errorf("%d testcases skipped, want %d (the aborted records)", skipped, aborted)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// diff's report: a passing testcase for a request the same in both, a
// failure for each difference.
func TestDiffJUnit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := func(id, content string) string {
		return `{"id":"x","session_id":"s","parent_id":"` + id + `","role":"tool","type":"tool_result","status":"responded","name":"sum","content":` + content + `,"created_at":"2026-12-01T00:00:00Z"}` + "\n"
	}
	old := writeFile(t, dir, "golden.jsonl", rec("a", `{"sum":1}`)+rec("b", `{"sum":2}`)+rec("c", `{"sum":3}`))
	new := writeFile(t, dir, "new.jsonl", rec("a", `{"sum":1}`)+rec("b", `{"sum":5}`))
	report := filepath.Join(dir, "report.xml")
	for _, mode := range [][]string{nil, {"--json"}} {
		_, stderr, code := execKesoku(t, "", append([]string{"diff", old, new, "--junit", report}, mode...)...)
		if code != ExitFailures {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		suite := readReport(t, report)
		wantAttrs(t, suite, map[string]string{"tests": "3", "failures": "2", "skipped": "0"})
		cases := suite.Children
		wantAttrs(t, cases[0], map[string]string{"name": "a (sum)", "classname": old + " " + new})
		if len(cases[0].Children) != 0 {
			t.Errorf("the same request has a failure")
		}
		wantAttrs(t, cases[1].Children[0], map[string]string{"type": "changed", "message": ".content.sum: 2 -> 5"})
		wantAttrs(t, cases[2].Children[0], map[string]string{"type": "only_old"})
	}
}

// merge's report is that of the merged records.
func TestMergeJUnit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeFile(t, dir, "in.jsonl", shardRequests(10, true))
	sig := &apptest.Signals{}
	reg := shardRegistry(t, sig, nil)
	var parts []string
	for _, k := range []string{"1/2", "2/2"} {
		p := filepath.Join(dir, "part-"+k[:1]+".jsonl")
		runIn(t, dir, reg, sig, in, "--shard", k, "-o", p)
		parts = append(parts, p)
	}
	report := filepath.Join(dir, "report.xml")
	all := filepath.Join(dir, "all.jsonl")
	code, stderr := mergeIn(t, append(parts, "-o", all, "--junit", report, "--summary", "json")...)
	if code != ExitFailures {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var sum struct{ Total, Failed int }
	if err := json.Unmarshal([]byte(stderr), &sum); err != nil {
		t.Fatalf("--summary json: %v: %q", err, stderr)
	}
	suite := readReport(t, report)
	wantAttrs(t, suite, map[string]string{"tests": itoa(sum.Total), "failures": itoa(sum.Failed)})
	data, _ := os.ReadFile(all)
	recs := decodeRecords(t, string(data))
	for i, c := range suite.Children {
		wantAttrs(t, c, map[string]string{"name": recs[i].ParentID + " (" + recs[i].Name + ")", "classname": all})
	}

	// Parts that are refused write no report.
	os.Remove(report)
	if code, _ := mergeIn(t, parts[0], "--junit", report); code != ExitUsage {
		t.Fatalf("one part of two: exit %d", code)
	}
	if _, err := os.Stat(report); !os.IsNotExist(err) {
		t.Errorf("a refused merge wrote a report: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".report*")); len(left) > 0 {
		t.Errorf("left beside the report: %v", left)
	}
}

// --summary json: one JSON object on standard error, -q or not, and the
// exit status of the text form.
func TestSummaryJSONFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeFile(t, dir, "in.yaml", "- {name: sum, args: {a: 1, b: 2}}\n- {name: sum, args: {a: 1}}\n")
	{
		_, stderr, code := runKesoku(t, dir, "", in, "--summary", "json")
		if code != ExitFailures {
			t.Errorf("exit %d, want %d", code, ExitFailures)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(stderr), &got); err != nil {
			t.Fatalf("stderr is no JSON object: %v: %q", err, stderr)
		}
		if got["total"] != 2.0 || got["succeeded"] != 1.0 || got["failed"] != 1.0 || got["skipped"] != 0.0 {
			t.Errorf("summary %v", got)
		}
		if kinds, _ := got["errors"].(map[string]any); kinds["invalid_args"] != 1.0 {
			t.Errorf("errors by kind %v", got["errors"])
		}
	}
	in = writeFile(t, dir, "builtin.yaml", "- {name: calculate_sum, args: {a: 1, b: 2}}\n- {name: calculate_sum, args: {a: 1}}\n")
	for _, args := range [][]string{
		{"-q", "run", in, "--summary", "json"},
		{"validate", in, "--summary", "json"},
		{"validate", in, "--summary", "json", "--json"},
	} {
		stdout, stderr, code := execKesoku(t, "", args...)
		if code != ExitFailures {
			t.Errorf("%v: exit %d, want %d", args, code, ExitFailures)
		}
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		var got map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
			t.Fatalf("%v: stderr ends with no JSON object: %v: %q", args, err, stderr)
		}
		if got["total"] != 2.0 || got["failed"] != 1.0 {
			t.Errorf("%v: summary %v", args, got)
		}
		if args[0] == "validate" && len(args) == 5 && !json.Valid([]byte(stdout)) {
			t.Errorf("validate --json: standard output %q", stdout)
		}
	}
	if _, stderr, code := execKesoku(t, "", "run", in, "--summary", "yaml"); code != ExitUsage || !strings.Contains(stderr, "want text or json") {
		t.Errorf("--summary yaml: exit %d: %s", code, stderr)
	}
}

// A report that would replace a file the command reads or writes is bad
// usage, before anything runs or is written.
func TestJUnitPathRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeFile(t, dir, "in.yaml", "- {name: calculate_sum, args: {a: 1, b: 2}}\n")
	out := filepath.Join(dir, "out.jsonl")
	for _, args := range [][]string{
		{"run", in, "-o", out, "--junit", out},
		{"run", in, "--junit", in},
		{"run", in, "--junit", dir},
		{"diff", in, in, "--junit", in},
		{"merge", in, "--junit", in},
	} {
		_, stderr, code := execKesoku(t, "", args...)
		if code != ExitUsage || !strings.Contains(stderr, "--junit") {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: wrote %s", args, out)
		}
	}
	if b, _ := os.ReadFile(in); string(b) != "- {name: calculate_sum, args: {a: 1, b: 2}}\n" {
		t.Errorf("the request file became %q", b)
	}
}

// A resumed run's report holds every request of the file, those the
// earlier run finished too.
func TestRunJUnitResumed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := writeFile(t, dir, "in.yaml", "- {id: a, name: sum, args: {a: 1, b: 2}}\n- {id: b, name: sum, args: {a: 1}}\n- {id: c, name: sum, args: {a: 2, b: 2}}\n")
	out := filepath.Join(dir, "out.jsonl")
	sig := &apptest.Signals{}
	reg := runTestRegistry(t)
	if code := runIn(t, dir, reg, sig, in, "-o", out); code != ExitFailures {
		t.Fatalf("exit %d", code)
	}
	// The last record lost: the resumed run runs c alone.
	data, _ := os.ReadFile(out)
	lines := strings.SplitAfter(string(data), "\n")
	if err := os.WriteFile(out, []byte(strings.Join(lines[:2], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.xml")
	if code := runIn(t, dir, reg, sig, in, "-o", out, "--resume", "--junit", report); code != ExitFailures {
		t.Fatalf("resumed: exit %d", code)
	}
	suite := readReport(t, report)
	wantAttrs(t, suite, map[string]string{"tests": "3", "failures": "1"})
	for i, name := range []string{"a (sum)", "b (sum)", "c (sum)"} {
		wantAttrs(t, suite.Children[i], map[string]string{"name": name, "classname": in})
	}
}

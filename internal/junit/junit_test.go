package junit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kesoku/kesoku/internal/junit/junittest"
	"github.com/kesoku/kesoku/message"
)

// checkReport fails t unless report is valid against the JUnit XSD, and
// returns its tree.
func checkReport(t *testing.T, report []byte) *junittest.Node {
	t.Helper()
	doc, err := junittest.Check(report)
	if err != nil {
		t.Fatalf("%v\n%s", err, report)
	}
	return doc
}

func ms(n int64) *int64 { return &n }

func TestReportOfRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.xml")
	r, err := Create(path, "kesoku run")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the report exists before Close: %v", err)
	}
	for _, rec := range []*message.Record{
		{ParentID: "call_1", Name: "calculate_sum", Status: message.StatusResponded, Content: json.RawMessage(`{"sum":3}`), DurationMS: ms(1500)},
		{ParentID: "call_2", Name: "read_file", Status: message.StatusResponded, IsError: true,
			Error: &message.ErrorInfo{Kind: message.KindInvalidArgs, Message: "argument \"path\": required\n  (did you mean \"pth\"?) <&\x01>"}},
		{ParentID: "call_3", Name: "sleep", Status: message.StatusAborted, IsError: true,
			Error: &message.ErrorInfo{Kind: message.KindAborted, Message: "interrupted before it started"}},
		{ParentID: `a "quoted" id`, Name: "echo", Status: message.StatusResponded, IsError: true, Content: json.RawMessage(`"it broke"`)},
	} {
		if err := r.Add(RecordCase(rec, "tests.yaml")); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := checkReport(t, b)
	suite := doc.Children[0]
	for attr, want := range map[string]string{"tests": "4", "failures": "2", "errors": "0", "skipped": "1", "name": "kesoku run"} {
		if got, _ := suite.Attr(attr); got != want {
			t.Errorf("testsuite %s = %q, want %q", attr, got, want)
		}
	}
	if got, _ := doc.Attr("tests"); got != "4" {
		t.Errorf("testsuites tests = %q, want 4", got)
	}
	cases := suite.Children
	if len(cases) != 4 {
		t.Fatalf("%d testcases, want 4", len(cases))
	}
	if name, _ := cases[0].Attr("name"); name != "call_1 (calculate_sum)" {
		t.Errorf("name %q", name)
	}
	if cl, _ := cases[0].Attr("classname"); cl != "tests.yaml" {
		t.Errorf("classname %q", cl)
	}
	if tm, _ := cases[0].Attr("time"); tm != "1.500" {
		t.Errorf("time %q", tm)
	}
	f := cases[1].Children[0]
	if f.Name != "failure" {
		t.Fatalf("call_2 has %s, want a failure", f.Name)
	}
	if typ, _ := f.Attr("type"); typ != "invalid_args" {
		t.Errorf("failure type %q", typ)
	}
	if msg, _ := f.Attr("message"); msg != `argument "path": required ...` {
		t.Errorf("failure message %q", msg)
	}
	if body := f.Text.String(); !strings.Contains(body, "required\n  (did you mean \"pth\"?) <&\uFFFD>") {
		t.Errorf("failure body %q lacks the whole message", body)
	}
	if cases[2].Children[0].Name != "skipped" {
		t.Errorf("an aborted record is %s, want skipped", cases[2].Children[0].Name)
	}
	if msg, _ := cases[3].Children[0].Attr("message"); msg != "it broke" {
		t.Errorf("a tool's own error: message %q", msg)
	}
}

func TestEmptyReportIsValid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.xml")
	r, err := Create(path, "kesoku diff")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	checkReport(t, b)
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if len(left) > 0 {
		t.Errorf("left beside the report: %v", left)
	}
}

func TestReportOfDifferences(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.xml")
	r, err := Create(path, "kesoku diff")
	if err != nil {
		t.Fatal(err)
	}
	long := json.RawMessage(`"` + strings.Repeat("é", 5000) + `"`)
	cl := "golden.jsonl new.jsonl"
	r.Add(&Case{Name: CaseName("call_1", "calc"), Classname: cl})
	r.Add(&Case{Name: CaseName("call_2", "read_file"), Classname: cl, Failures: []Failure{
		DiffFailure("changed", "call_2", Change{Path: ".content.lines[3]", Old: json.RawMessage(`"foo"`), New: json.RawMessage(`"bar"`)}),
		DiffFailure("changed", "call_2", Change{Path: ".content.x", Old: long}),
	}, More: 3})
	r.Add(&Case{Name: CaseName("call_5", "sleep"), Classname: cl, Failures: []Failure{OnlyFailure("only_old", "call_5", "golden.jsonl")}})
	r.now = func() time.Time { return r.start.Add(2 * time.Second) }
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	doc := checkReport(t, b)
	suite := doc.Children[0]
	if got, _ := suite.Attr("failures"); got != "2" {
		t.Errorf("failures = %q, want 2 (requests, not changes)", got)
	}
	if got, _ := suite.Attr("time"); got != "2.000" {
		t.Errorf("time = %q", got)
	}
	f := suite.Children[1].Children[0]
	if msg, _ := f.Attr("message"); msg != `.content.lines[3]: "foo" -> "bar"` {
		t.Errorf("message %q", msg)
	}
	if body := f.Text.String(); !strings.Contains(body, "request: call_2\n") || !strings.Contains(body, `old: "foo"`) {
		t.Errorf("body %q", body)
	}
	f2 := suite.Children[1].Children[1]
	if msg, _ := f2.Attr("message"); len(msg) > maxMessage {
		t.Errorf("a long value's message is %d bytes", len(msg))
	}
	if !strings.Contains(f2.Text.String(), "new: (absent)") {
		t.Errorf("body %q", f2.Text.String())
	}
	if out := suite.Children[1].Children[2]; out.Name != "system-out" || !strings.Contains(out.Text.String(), "3 more") {
		t.Errorf("more: %s %q", out.Name, out.Text.String())
	}
}

func TestCreateRefusesADirectory(t *testing.T) {
	if _, err := Create(t.TempDir(), "kesoku run"); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("Create(dir) = %v, want a refusal", err)
	}
	if _, err := Create(filepath.Join(t.TempDir(), "no", "such", "r.xml"), "kesoku run"); err == nil {
		t.Error("Create in a directory that does not exist succeeded")
	}
}

package diff

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/junit"
	"github.com/kesoku/kesoku/internal/junit/junittest"
	"github.com/kesoku/kesoku/internal/records"
)

// A request whose changes Compare hands on in several Differences (many
// changes, none kept back) is still one testcase, with the first of them
// and the rest counted.
func TestReportOneCasePerRequest(t *testing.T) {
	t.Parallel()
	var oldC, newC strings.Builder
	for i := range 600 {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&oldC, `%s"k%d":%d`, sep, i, i)
		fmt.Fprintf(&newC, `%s"k%d":%d`, sep, i, i+1)
	}
	line := func(id, content string) string {
		return `{"id":"x","session_id":"s","parent_id":"` + id + `","role":"tool","type":"tool_result","status":"responded","name":"t","content":` + content + `,"created_at":"2026-12-01T00:00:00Z"}` + "\n"
	}
	old := line("big", "{"+oldC.String()+"}") + line("same", "1")
	new := line("big", "{"+newC.String()+"}") + line("same", "1")
	path := filepath.Join(t.TempDir(), "report.xml")
	jr, err := junit.Create(path, "kesoku diff")
	if err != nil {
		t.Fatal(err)
	}
	rep := NewReport(jr, "old.jsonl", "new.jsonl")
	emits := 0
	_, err = Compare(context.Background(),
		File{Name: "old.jsonl", Records: records.NewReader(strings.NewReader(old), "old.jsonl")},
		File{Name: "new.jsonl", Records: records.NewReader(strings.NewReader(new), "new.jsonl")},
		Options{Same: rep.Same}, func(d *Difference) error { emits++; return rep.Difference(d) })
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Close(); err != nil {
		t.Fatal(err)
	}
	if emits < 2 {
		t.Fatalf("Compare handed on %d Differences: the test needs several", emits)
	}
	b, _ := os.ReadFile(path)
	doc, err := junittest.Check(b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	suite := doc.Children[0]
	if n := len(suite.Children); n != 2 {
		t.Fatalf("%d testcases, want 2", n)
	}
	big := suite.Children[0]
	failures, more := 0, ""
	for _, c := range big.Children {
		switch c.Name {
		case "failure":
			failures++
		case "system-out":
			more = c.Text.String()
		}
	}
	if failures != maxReported || !strings.Contains(more, fmt.Sprint(600-maxReported)+" more") {
		t.Errorf("%d failures and %q, want %d and %d more", failures, more, maxReported, 600-maxReported)
	}
	if name, _ := suite.Children[1].Attr("name"); name != "same (t)" || len(suite.Children[1].Children) != 0 {
		t.Errorf("the second case %q, %d children: want same (t), passing", name, len(suite.Children[1].Children))
	}
}

package records

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/message"
)

// block is the lines of one run of case id at position pos of an eval:
// its transcript (a prompt and an answer, tagged with what) and its
// verdict, passed or not.
func block(id string, pos int, what string, passed bool) []string {
	return []string{
		fmt.Sprintf(`{"id":"u-%s-%s","session_id":"S%d","role":"user","type":"text","status":"responded","content":"prompt %s"}`, id, what, pos, id),
		fmt.Sprintf(`{"id":"m-%s-%s","session_id":"S%d","role":"assistant","type":"text","status":"responded","content":"answer %s"}`, id, what, pos, what),
		verdictLine(id, pos, what, passed),
	}
}

func verdictLine(id string, pos int, what string, passed bool) string {
	isErr := ""
	if !passed {
		isErr = `,"is_error":true`
	}
	return fmt.Sprintf(`{"id":"v-%s-%s","session_id":"S%d","parent_id":%q,"role":"eval","type":"verdict","status":"responded","position":%d,"repeat":1%s,"content":{"passed":%t,"checks":[]}}`,
		id, what, pos, id, pos, isErr, passed)
}

// budgetLine is the verdict of a run the budget cut: its block alone.
func budgetLine(id string, pos int) string {
	return fmt.Sprintf(`{"id":"b-%s","session_id":"S%d","parent_id":%q,"role":"eval","type":"verdict","status":"responded","position":%d,"repeat":1,"is_error":true,"error":{"kind":"budget","message":"spent"},"content":{"passed":false,"checks":[]}}`,
		id, pos, id, pos)
}

func concat(blocks ...[]string) []string {
	var out []string
	for _, b := range blocks {
		out = append(out, b...)
	}
	return out
}

func TestResumeEvalSkipsFinalVerdicts(t *testing.T) {
	dir := t.TempDir()
	path := write(t, dir, "out.jsonl", concat(
		block("a", 1, "old", true),
		[]string{budgetLine("b", 2)},
		block("c", 3, "old", false),
		// A run killed mid-write: its transcript began, no verdict.
		block("d", 4, "cut", true)[:1],
	)...)
	r, err := ResumeEval(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, tc := range []struct {
		pos        int64
		id         string
		repeat     int
		failed, ok bool
		why        string
	}{
		{1, "a", 1, false, true, "a final verdict that passed"},
		{2, "b", 1, false, false, "a budget verdict is not final"},
		{3, "c", 1, true, true, "a final verdict that failed"},
		{4, "d", 1, false, false, "a run without its verdict"},
		{1, "x", 1, false, false, "another case at the position: the eval files changed"},
		{1, "a", 2, false, false, "another run of the case at the position: --repeat changed"},
	} {
		failed, ok := r.Verdicts.Skip(tc.pos, tc.id, tc.repeat)
		if failed != tc.failed || ok != tc.ok {
			t.Errorf("%s: Skip(%d, %q, %d) = %t, %t, want %t, %t", tc.why, tc.pos, tc.id, tc.repeat, failed, ok, tc.failed, tc.ok)
		}
	}
}

func TestCompactBlocks(t *testing.T) {
	dir := t.TempDir()
	// The earlier eval: run 1 finished, run 2 cut by the budget, run 3
	// finished, run 4 killed mid-write, a torn line last.
	old := concat(block("a", 1, "old", true), []string{budgetLine("b", 2)}, block("c", 3, "old", false), block("d", 4, "cut", true)[:2])
	path := write(t, dir, "out.jsonl", old...)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"torn`)
	f.Close()

	r, err := ResumeEval(path)
	if err != nil {
		t.Fatal(err)
	}
	// The resumed eval comes to runs 1 to 4, skips 1 and 3, runs 2 and 4
	// (4 first: jobs finish in any order, blocks are written in order of
	// position, but a file may hold them in any).
	for _, p := range []struct {
		pos int64
		id  string
	}{{1, "a"}, {2, "b"}, {3, "c"}, {4, "d"}} {
		r.Verdicts.Skip(p.pos, p.id, 1)
	}
	for _, l := range concat(block("b", 2, "new", true), block("d", 4, "new", true)) {
		if err := r.Write(parse(t, l)); err != nil {
			t.Fatal(err)
		}
	}
	c, err := r.Compact(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Rewritten {
		t.Errorf("not rewritten: %+v", c)
	}
	got := ids(t, path)
	want := "u-a-old m-a-old v-a-old u-b-new m-b-new v-b-new u-c-old m-c-old v-c-old u-d-new m-d-new v-d-new"
	if got != want {
		t.Errorf("compacted:\n got %s\nwant %s", got, want)
	}

	// Resumed again with nothing to run: the file is left as it is, a
	// shard's end after it.
	before, _ := os.ReadFile(path)
	r, err = ResumeEval(path)
	if err != nil {
		t.Fatal(err)
	}
	for p, id := range []string{"a", "b", "c", "d"} {
		if _, ok := r.Verdicts.Skip(int64(p+1), id, 1); !ok {
			t.Errorf("run %d not finished after compaction", p+1)
		}
	}
	end := ShardEndRecord("", ShardEnd{Shard: 1, Shards: 1, Requests: 4})
	if c, err = r.Compact(end); err != nil || c.Rewritten {
		t.Fatalf("compact of a compact file: %+v, %v", c, err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.HasPrefix(after, before) || !strings.Contains(string(after[len(before):]), `"type":"shard_end"`) {
		t.Errorf("a compact file changed:\n%s", after)
	}
}

// ids are the ids of the records of the file at path, in order.
func ids(t *testing.T, path string) string {
	t.Helper()
	var out []string
	err := ReadFile(path, func(rec *message.Record) error {
		if rec.Type != TypeShardEnd {
			out = append(out, rec.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func TestMergeEvalParts(t *testing.T) {
	dir := t.TempDir()
	a, b, c := block("a", 1, "x", true), block("b", 2, "x", false), block("c", 3, "x", true)
	p1 := write(t, dir, "p1.jsonl", concat(a, c, []string{end(1, 2, 3)})...)
	// Shard 2 resumed: its budget verdict, then the run again.
	p2 := write(t, dir, "p2.jsonl", concat([]string{budgetLine("b", 2)}, b, []string{end(2, 2, 3)})...)
	var out bytes.Buffer
	sum, err := Merge([]string{p2, p1}, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(concat(a, b, c), "\n") + "\n"
	if out.String() != want {
		t.Errorf("merged:\n%s\nwant:\n%s", out.String(), want)
	}
	if sum.Total != 3 || sum.Replaced != 1 {
		t.Errorf("summary %+v, want 3 runs, 1 replaced", sum)
	}
	if got, want := sum.String(), "kesoku: 3 runs from 2 shards: 2 passed, 1 failed; 1 budget verdict replaced by a resumed eval's"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}

	refused := []struct {
		name  string
		parts [][]string
		want  string
	}{
		{"a part that lost its last block", [][]string{concat(a, []string{end(1, 2, 3)}), concat(b, []string{end(2, 2, 3)})},
			`p1\.jsonl \(shard 1 of 2\) holds 1 of its 2 requests`},
		{"a part that lost every block", [][]string{{end(1, 2, 3)}, concat(b, []string{end(2, 2, 3)})},
			`holds 0 of its 2 requests`},
		{"a part without its end", [][]string{concat(a, c), concat(b, []string{end(2, 2, 3)})},
			`its last record is not its shard's end`},
		{"a part whose last run has no verdict", [][]string{concat(a, c, []string{end(1, 2, 3)}, b[:1]), concat(b, []string{end(2, 2, 3)})},
			`its last record is not its shard's end`},
		{"a part given twice", [][]string{concat(a, c, []string{end(1, 2, 3)}), concat(a, c, []string{end(1, 2, 3)})},
			`both hold shard 1 of 2`},
		{"a run finished twice", [][]string{concat(a, a, c, []string{end(1, 2, 3)}), concat(b, []string{end(2, 2, 3)})},
			`p1\.jsonl:6: a second verdict of run 1 \(case "a"\), which line 3 ended with a final verdict`},
		{"an eval's part and a run's", [][]string{concat(a, c, []string{end(1, 2, 3)}), {rec("b", "x", 2), end(2, 2, 3)}},
			`not shards of one command's output`},
	}
	for i, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			for k, lines := range tc.parts {
				sub := filepath.Join(dir, fmt.Sprint(i))
				os.MkdirAll(sub, 0o755)
				paths = append(paths, write(t, sub, fmt.Sprintf("p%d.jsonl", k+1), lines...))
			}
			var out bytes.Buffer
			if _, err := Merge(paths, &out); err == nil {
				t.Fatalf("merged:\n%s", out.String())
			} else if ok, _ := regexp.MatchString(tc.want, err.Error()); !ok {
				t.Errorf("error %q does not match %q", err, tc.want)
			}
		})
	}
}

// A run's records file is no eval's: resuming an eval in it would drop
// its records as those of no run.
func TestResumeEvalRefusesARunsFile(t *testing.T) {
	path := write(t, t.TempDir(), "run.jsonl", rec("a", "x", 1), rec("b", "x", 2))
	before, _ := os.ReadFile(path)
	_, err := ResumeEval(path)
	if _, ok := err.(*ReadError); !ok || !strings.Contains(err.Error(), "run.jsonl:1: a record of kesoku run, not of kesoku eval") {
		t.Fatalf("error %v, want a ReadError naming line 1", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Errorf("the file changed")
	}
}

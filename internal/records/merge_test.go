package records

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/message"
)

// rec is the record line of request id at position pos, with what in its
// content.
func rec(id, what string, pos int) string {
	return fmt.Sprintf(`{"id":"r-%s-%s","session_id":"S","parent_id":%q,"role":"tool","type":"tool_result","status":"responded","name":"t","content":%q,"position":%d}`, id, what, id, what, pos)
}

func aborted(id string, pos int) string {
	return fmt.Sprintf(`{"id":"a-%s","session_id":"S","parent_id":%q,"role":"tool","type":"tool_result","status":"aborted","name":"t","is_error":true,"error":{"kind":"aborted","message":"interrupted"},"position":%d}`, id, id, pos)
}

func failed(id string, pos int) string {
	return fmt.Sprintf(`{"id":"f-%s","session_id":"S","parent_id":%q,"role":"tool","type":"tool_result","status":"responded","name":"t","is_error":true,"error":{"kind":"tool_error","message":"no"},"position":%d}`, id, id, pos)
}

// end is the shard_end line of shard k of n, of a run of requests.
func end(k, n, requests int) string {
	return fmt.Sprintf(`{"id":"e-%d","session_id":"S","role":"tool","type":"shard_end","status":"responded","content":{"shard":%d,"shards":%d,"requests":%d},"created_at":"2026-12-07T00:00:00Z"}`, k, k, n, requests)
}

var positionRE = regexp.MustCompile(`"position":(\d+)`)

// ended is parts, the shards of one run, each ended by its shard_end
// line as a shard's run that finished writes it: the run's requests are
// as many as the last position of any part.
func ended(parts [][]string) [][]string {
	last := 0
	for _, lines := range parts {
		for _, l := range lines {
			if m := positionRE.FindStringSubmatch(l); m != nil {
				var p int
				fmt.Sscan(m[1], &p)
				last = max(last, p)
			}
		}
	}
	// Each part is the shard of its first position; one with none is a
	// shard with nothing to do, of those left.
	n := len(parts)
	shards := make([]int, n)
	taken := map[int]bool{}
	for k, lines := range parts {
		if len(lines) > 0 {
			if m := positionRE.FindStringSubmatch(lines[0]); m != nil {
				var p int
				fmt.Sscan(m[1], &p)
				shards[k] = (p-1)%n + 1
				taken[shards[k]] = true
			}
		}
	}
	next := 1
	for k := range shards {
		for shards[k] == 0 {
			if !taken[next] {
				shards[k], taken[next] = next, true
			}
			next++
		}
	}
	out := make([][]string, n)
	for k, lines := range parts {
		out[k] = append(slices.Clip(lines), end(shards[k], n, last))
	}
	return out
}

func write(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	content := strings.Join(lines, "\n")
	if len(lines) > 0 {
		content += "\n"
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// contents are the contents (or error kinds) of the merged records, in
// order.
func contents(out string) []string {
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		switch {
		case strings.Contains(l, `"kind":"aborted"`):
			got = append(got, "ABORTED")
		case strings.Contains(l, `"kind":"tool_error"`):
			got = append(got, "FAILED")
		default:
			_, c, _ := strings.Cut(l, `"content":"`)
			c, _, _ = strings.Cut(c, `"`)
			got = append(got, c)
		}
	}
	return got
}

func TestMerge(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		parts [][]string
		want  []string
		sum   MergeReport
	}{
		{
			name: "ids of their own, in turn",
			parts: [][]string{
				{rec("a", "1", 1), rec("d", "4", 4), rec("g", "7", 7)},
				{rec("b", "2", 2), rec("e", "5", 5)},
				{rec("c", "3", 3), failed("f", 6)},
			},
			want: []string{"1", "2", "3", "4", "5", "FAILED", "7"},
			sum:  MergeReport{Count: Count{Total: 7, Records: 7, Succeeded: 6, Failed: 1, Kinds: map[message.ErrorKind]int{message.KindToolError: 1}}},
		},
		{
			// A user's ids that look positional, but are not: the place
			// is the position the shard wrote.
			name: "ids that read as positions of others",
			parts: [][]string{
				{rec("call_2", "1", 1), rec("call_1", "3", 3)},
				{rec("call_4", "2", 2), rec("call_3", "4", 4)},
			},
			want: []string{"1", "2", "3", "4"},
			sum:  MergeReport{Count: Count{Total: 4, Records: 4, Succeeded: 4}},
		},
		{
			name: "a resumed shard",
			parts: [][]string{
				{rec("call_1", "1", 1), aborted("call_3", 3), aborted("call_5", 5), rec("call_3", "3", 3), rec("call_5", "5", 5), rec("call_7", "7", 7)},
				{rec("call_2", "2", 2), rec("call_4", "4", 4), rec("call_6", "6", 6)},
			},
			want: []string{"1", "2", "3", "4", "5", "6", "7"},
			sum:  MergeReport{Count: Count{Total: 7, Records: 7, Succeeded: 7}, Replaced: 2},
		},
		{
			name: "aborted again, and a resumed run's requests never read before",
			parts: [][]string{
				{rec("call_1", "1", 1), aborted("call_3", 3), aborted("call_3", 3), rec("call_3", "3", 3), rec("call_5", "5", 5)},
				{rec("call_2", "2", 2), aborted("call_4", 4)},
			},
			want: []string{"1", "2", "3", "ABORTED", "5"},
			sum:  MergeReport{Count: Count{Total: 5, Records: 5, Succeeded: 4, Failed: 1, Aborted: 1, Kinds: map[message.ErrorKind]int{message.KindAborted: 1}}, Replaced: 2},
		},
		{
			name: "a failed record run again by a resumed run",
			parts: [][]string{
				{rec("a", "1", 1), failed("c", 3), aborted("e", 5), rec("c", "3", 3), rec("e", "5", 5)},
				{rec("b", "2", 2), rec("d", "4", 4)},
			},
			want: []string{"1", "2", "3", "4", "5"},
			sum:  MergeReport{Count: Count{Total: 5, Records: 5, Succeeded: 5}, Replaced: 2, ReplacedFailed: 1},
		},
		{
			name: "a duplicate id is another request",
			parts: [][]string{
				{rec("x", "1", 1), failed("x", 3)},
				{rec("y", "2", 2)},
			},
			want: []string{"1", "2", "FAILED"},
			sum:  MergeReport{Count: Count{Total: 3, Records: 3, Succeeded: 2, Failed: 1, Kinds: map[message.ErrorKind]int{message.KindToolError: 1}}},
		},
		{
			name: "parts in any order",
			parts: [][]string{
				{rec("c", "3", 3)},
				{rec("a", "1", 1), rec("d", "4", 4)},
				{rec("b", "2", 2)},
			},
			want: []string{"1", "2", "3", "4"},
			sum:  MergeReport{Count: Count{Total: 4, Records: 4, Succeeded: 4}},
		},
		{
			name:  "shards with nothing to do",
			parts: [][]string{{rec("a", "1", 1)}, {}, {}},
			want:  []string{"1"},
			sum:   MergeReport{Count: Count{Total: 1, Records: 1, Succeeded: 1}},
		},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			for k, lines := range ended(tc.parts) {
				paths = append(paths, write(t, dir, fmt.Sprintf("t%d-part%d.jsonl", i, k+1), lines...))
			}
			var out bytes.Buffer
			sum, err := Merge(paths, &out)
			if err != nil {
				t.Fatal(err)
			}
			if got := contents(out.String()); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("merged %v, want %v", got, tc.want)
			}
			tc.sum.Parts = len(tc.parts)
			if diff := cmp.Diff(tc.sum, sum); diff != "" {
				t.Errorf("summary (-want +got):\n%s", diff)
			}
			if !strings.HasSuffix(out.String(), "}\n") {
				t.Errorf("output does not end in a whole line: %q", out.String())
			}
		})
	}
}

func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		parts [][]string
		want  string
	}{
		{"an unfinished shard", [][]string{{rec("a", "1", 1), rec("c", "3", 3), rec("e", "5", 5), end(1, 2, 5)}, {rec("b", "2", 2)}},
			`part2.jsonl: its last record is not its shard's end \(a shard_end line\): the shard's run did not finish, or the file lost its last lines; resume its run$`},
		{"a part that lost its last record", [][]string{{rec("a", "1", 1), rec("c", "3", 3), rec("e", "5", 5), end(1, 2, 6)}, {rec("b", "2", 2), rec("d", "4", 4), end(2, 2, 6)}},
			`part2.jsonl \(shard 2 of 2\) holds 2 of its 3 requests \(of the run's 6\): it has no record of request 6, yet it ends as finished: it lost records; resume its run$`},
		{"a part that lost every record", [][]string{{rec("a", "1", 1), rec("c", "3", 3), end(1, 2, 4)}, {end(2, 2, 4)}},
			`part2.jsonl \(shard 2 of 2\) holds 0 of its 2 requests \(of the run's 4\): it has no record of request 2`},
		{"a record missing inside a shard", [][]string{{rec("a", "1", 1), rec("e", "5", 5), end(1, 2, 6)}, {rec("b", "2", 2), rec("d", "4", 4), rec("f", "6", 6), end(2, 2, 6)}},
			`part1.jsonl \(shard 1 of 2\) has no record of request 3: it holds 2 of its 3 requests`},
		{"a record of another shard", [][]string{{rec("a", "1", 1), rec("b", "2", 2), end(1, 2, 2)}, {end(2, 2, 2)}},
			`part1.jsonl \(shard 1 of 2\) holds a record of request 2, which is not its shard's`},
		{"a record past the run's end", [][]string{{rec("a", "1", 1), rec("c", "3", 3), end(1, 2, 2)}, {rec("b", "2", 2), end(2, 2, 2)}},
			`part1.jsonl \(shard 1 of 2\) holds a record of request 3, past the run's 2 requests its end says`},
		{"two parts of one shard", [][]string{{rec("a", "1", 1), rec("c", "3", 3), end(1, 2, 4)}, {rec("a", "1", 1), rec("c", "3", 3), end(1, 2, 4)}},
			"part1.jsonl and .*part2.jsonl both hold shard 1 of 2"},
		{"a part missing", [][]string{
			{rec("a", "1", 1), rec("e", "5", 5), end(1, 4, 8)}, {rec("b", "2", 2), rec("f", "6", 6), end(2, 4, 8)}, {rec("d", "4", 4), rec("h", "8", 8), end(4, 4, 8)}},
			`a part is missing: the parts are shards of 4 \(.*part1.jsonl says\), and 3 are given; shard 3 of 4 is not among them`},
		{"parts of two runs", [][]string{{rec("a", "1", 1), rec("c", "3", 3), end(1, 2, 4)}, {rec("b", "2", 2), end(2, 2, 3)}},
			`part1.jsonl and .*part2.jsonl are not shards of one run: one is of 2 shards of 4 requests, the other of 2 shards of 3 requests`},
		{"no part of a shard with requests", [][]string{{rec("a", "1", 1), rec("c", "3", 3), end(1, 2, 4)}, {}},
			`part2.jsonl: it holds no record, nor its shard's end`},
		{"records after the end", [][]string{{rec("a", "1", 1), end(1, 1, 1), rec("b", "2", 2)}},
			`part1.jsonl: its last record is not its shard's end`},
		{"a torn last record", [][]string{{rec("a", "1", 1), rec("c", "3", 3)}, {rec("b", "2", 2), `{"id":"torn","session_id":"S","par`}},
			`part2.jsonl:2: its last record is cut short`},
		{"a record without a position", [][]string{{`{"id":"1","session_id":"S","parent_id":"call_1","role":"tool","type":"tool_result","status":"responded","content":1}`}},
			`:1: a record without its position in the run`},
		{"a line that is no record", [][]string{{rec("a", "1", 1), "{nope", rec("c", "3", 3)}},
			`:2: not a record`},
		{"a record that succeeded, given again", [][]string{{rec("a", "1", 1), rec("c", "3", 3), rec("c", "3", 3)}, {rec("b", "2", 2)}},
			`part1.jsonl:3: a second record of request 3 \(id "c"\), which line 2 answered with success: a resumed run never runs a request that succeeded again`},
		{"a record that succeeded, replaced by one that failed", [][]string{{rec("a", "1", 1), failed("a", 1)}},
			`part1.jsonl:2: a second record of request 1 \(id "a"\), which line 1 answered with success`},
		{"a record that is no run's", [][]string{{`{"id":"1","session_id":"S","role":"assistant","type":"text","status":"responded","content":"hi"}`}},
			":1: not a record of kesoku run"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			for k, lines := range tc.parts {
				paths = append(paths, write(t, dir, fmt.Sprintf("r%d-part%d.jsonl", i, k+1), lines...))
			}
			if strings.HasPrefix(tc.name, "a torn") {
				// No line break after the torn line.
				last := paths[len(paths)-1]
				data, _ := os.ReadFile(last)
				os.WriteFile(last, bytes.TrimSuffix(data, []byte("\n")), 0o644)
			}
			var out bytes.Buffer
			_, err := Merge(paths, &out)
			if err == nil {
				t.Fatalf("merged:\n%s", out.String())
			}
			if ok, _ := regexp.MatchString(tc.want, err.Error()); !ok {
				t.Errorf("error %q does not match %q", err, tc.want)
			}
			if out.Len() > 0 {
				t.Errorf("refused, but wrote %q", out.String())
			}
		})
	}
	// A part that cannot be read is named once, with what went wrong.
	missing := filepath.Join(dir, "missing.jsonl")
	if _, err := Merge([]string{missing}, &bytes.Buffer{}); err == nil || err.Error() != "open "+missing+": no such file or directory" {
		t.Errorf("a missing part: error %v", err)
	}
	if _, err := Merge([]string{dir}, &bytes.Buffer{}); err == nil || err.Error() != dir+": is a directory" {
		t.Errorf("a directory as a part: error %v, want it named once", err)
	}
}

// FuzzMerge: whatever a part holds, merge refuses it or merges it whole
// lines, without panicking.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(rec("call_1", "1", 1)+"\n"+aborted("call_3", 3)+"\n"+rec("call_3", "3", 3)+"\n"), []byte(rec("call_2", "2", 2)+"\n"))
	f.Add([]byte(rec("a", "1", 1)+"\n"), []byte(""))
	f.Add([]byte("\uFEFF"+rec("call_1", "1", 1)+"\r\n\n"), []byte(`{"parent_id":"call_2","type":"tool_result","position":2`))
	f.Add([]byte(rec("a", "1", 9223372036854775807)+"\n"), []byte(rec("b", "2", 4611686018427387904)+"\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		dir := t.TempDir()
		pa, pb := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
		os.WriteFile(pa, a, 0o644)
		os.WriteFile(pb, b, 0o644)
		var out bytes.Buffer
		sum, err := Merge([]string{pa, pb}, &out)
		if err != nil {
			return
		}
		if n := strings.Count(out.String(), "\n"); n != sum.Records {
			t.Errorf("%d lines for %d records", n, sum.Records)
		}
	})
}

package merge

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// rec is a record line of request id, with what in its content.
func rec(id, what string) string {
	return fmt.Sprintf(`{"id":"r-%s-%s","session_id":"S","parent_id":%q,"role":"tool","type":"tool_result","status":"responded","name":"t","content":%q}`, id, what, id, what)
}

func aborted(id string) string {
	return fmt.Sprintf(`{"id":"a-%s","session_id":"S","parent_id":%q,"role":"tool","type":"tool_result","status":"aborted","name":"t","is_error":true,"error":{"kind":"aborted","message":"interrupted"}}`, id, id)
}

func failed(id string) string {
	return fmt.Sprintf(`{"id":"f-%s","session_id":"S","parent_id":%q,"role":"tool","type":"tool_result","status":"responded","name":"t","is_error":true,"error":{"kind":"tool_error","message":"no"}}`, id, id)
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
			got = append(got, strings.TrimSuffix(c, `"}`))
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
		sum   Summary
	}{
		{
			name: "ids of their own, in turn",
			parts: [][]string{
				{rec("a", "1"), rec("d", "4"), rec("g", "7")},
				{rec("b", "2"), rec("e", "5")},
				{rec("c", "3"), failed("f")},
			},
			want: []string{"1", "2", "3", "4", "5", "FAILED", "7"},
			sum:  Summary{Records: 7, Failed: 1},
		},
		{
			name: "a resumed shard",
			parts: [][]string{
				{rec("call_1", "1"), aborted("call_3"), aborted("call_5"), rec("call_3", "3"), rec("call_5", "5"), rec("call_7", "7")},
				{rec("call_2", "2"), rec("call_4", "4"), rec("call_6", "6")},
			},
			want: []string{"1", "2", "3", "4", "5", "6", "7"},
			sum:  Summary{Records: 7, Replaced: 2},
		},
		{
			name: "aborted again, and a resumed run's requests never read before",
			parts: [][]string{
				{rec("call_1", "1"), aborted("call_3"), aborted("call_3"), rec("call_3", "3"), rec("call_5", "5")},
				{rec("call_2", "2"), aborted("call_4")},
			},
			want: []string{"1", "2", "3", "ABORTED", "5"},
			sum:  Summary{Records: 5, Failed: 1, Aborted: 1, Replaced: 2},
		},
		{
			name: "a duplicate id is another request",
			parts: [][]string{
				{rec("x", "1"), failed("x")},
				{rec("y", "2")},
			},
			want: []string{"1", "2", "FAILED"},
			sum:  Summary{Records: 3, Failed: 1},
		},
		{
			name: "positional ids put the parts in order",
			parts: [][]string{
				{rec("call_3", "3")},
				{rec("call_1", "1"), rec("call_4", "4")},
				{rec("call_2", "2")},
			},
			want: []string{"1", "2", "3", "4"},
			sum:  Summary{Records: 4},
		},
		{
			name: "empty shards",
			parts: [][]string{
				{rec("call_1", "1")},
				{},
				{},
			},
			want: []string{"1"},
			sum:  Summary{Records: 1},
		},
		{
			name: "a torn last line is left out",
			parts: [][]string{
				{rec("call_1", "1"), `{"id":"torn","session_id":"S","par`},
			},
			want: []string{"1"},
			sum:  Summary{Records: 1},
		},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			for k, lines := range tc.parts {
				paths = append(paths, write(t, dir, fmt.Sprintf("t%d-part%d.jsonl", i, k+1), lines...))
			}
			if strings.HasPrefix(tc.name, "a torn") {
				// No line break after the torn line.
				data, _ := os.ReadFile(paths[0])
				os.WriteFile(paths[0], bytes.TrimSuffix(data, []byte("\n")), 0o644)
			}
			var out bytes.Buffer
			sum, err := Merge(paths, &out)
			if err != nil {
				t.Fatal(err)
			}
			if got := contents(out.String()); strings.Join(got, " ") != strings.Join(tc.want, " ") {
				t.Errorf("merged %v, want %v", got, tc.want)
			}
			if sum != tc.sum {
				t.Errorf("summary %+v, want %+v", sum, tc.sum)
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
		{"an unfinished shard", [][]string{{rec("a", "1"), rec("c", "3"), rec("e", "5")}, {rec("b", "2")}},
			"holds 3 requests and .* 1: the parts are not the 2 shards of one run"},
		{"two parts of one shard", [][]string{{rec("call_1", "1")}, {rec("call_1", "1")}},
			"both hold shard 1 of 2"},
		{"a part of another run", [][]string{{rec("call_1", "1"), rec("call_4", "4")}, {rec("call_2", "2"), rec("call_5", "5")}},
			"its record 2 answers call_4, but shard 1 of 2 holds request 3 there"},
		{"a line that is no record", [][]string{{rec("a", "1"), "{nope", rec("c", "3")}},
			`:2: not a record`},
		{"a record that is no run's", [][]string{{`{"id":"1","session_id":"S","role":"assistant","type":"text","status":"responded","content":"hi"}`}},
			":1: not a record of kesoku run"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			for k, lines := range tc.parts {
				paths = append(paths, write(t, dir, fmt.Sprintf("r%d-part%d.jsonl", i, k+1), lines...))
			}
			var out bytes.Buffer
			_, err := Merge(paths, &out)
			if err == nil {
				t.Fatalf("merged:\n%s", out.String())
			}
			if ok, _ := regexpMatch(tc.want, err.Error()); !ok {
				t.Errorf("error %q does not match %q", err, tc.want)
			}
		})
	}
	// A part that cannot be read is named once, with what went wrong.
	missing := filepath.Join(dir, "missing.jsonl")
	if _, err := Merge([]string{missing}, &bytes.Buffer{}); err == nil || err.Error() != "open "+missing+": no such file or directory" {
		t.Errorf("a missing part: error %v", err)
	}
	if _, err := Merge([]string{dir}, &bytes.Buffer{}); err == nil || err.Error() != "read "+dir+": is a directory" {
		t.Errorf("a directory as a part: error %v, want it named once", err)
	}
}

func regexpMatch(pattern, s string) (bool, error) { return regexp.MatchString(pattern, s) }

// FuzzMerge: whatever a part holds, merge refuses it or merges it whole
// lines, without panicking.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(rec("call_1", "1")+"\n"+aborted("call_3")+"\n"+rec("call_3", "3")+"\n"), []byte(rec("call_2", "2")+"\n"))
	f.Add([]byte(rec("a", "1")+"\n"), []byte(""))
	f.Add([]byte("\uFEFF"+rec("call_1", "1")+"\r\n\n"), []byte(`{"parent_id":"call_2","type":"tool_result"`))
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

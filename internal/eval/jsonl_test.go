package eval

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/yamlpos"
)

// fastLines are lines of JSON Lines evals, as people write them and as
// they may be written oddly.
var fastLines = []string{
	`{"prompt": "a"}`,
	`{"id": "c1", "prompt": "say hi, 1", "tools": "", "expect": {"answer": {"contains": "Hi"}}}`,
	`{ "id":"x","prompt":"p","system":"s","tools":"read_file, glob ,","max_turns":3,"repeat":2}`,
	`{"prompt": "p", "tools": ["a", "b"], "expect": {"tools_called": ["a"], "tools_not_called": [], "max_turns": 2, "max_tokens": 100}}`,
	`{"prompt": "p", "tools": []}`,
	`{"prompt": "p", "expect": {"tool_sequence": ["a", "b"]}}`,
	`{"prompt": "p", "expect": {"tool_sequence": {"mode": "any_order", "calls": ["a", {"name": "b", "args": {"x": 1, "y": [1.5, -2, 0, 0.25, true, false, null, "<&>"], "z": {}, "w": {"k": "\u00e9\ud83d\ude00"}}}]}}}`,
	`{"prompt": "p", "expect": {"tool_sequence": {"calls": []}}}`,
	`{"prompt": "p", "expect": {"tool_sequence": {"calls": [{"name": "b", "args": {"x": 1.0, "y": -2.50, "z": 100.000}}]}}}`,
	`{"prompt": "p", "expect": {"answer": {"regex": "^h(i|ello)$"}}}`,
	`{"prompt": "p", "expect": {"answer": {"equals": ""}}}`,
	`{"prompt": "p", "expect": {"answer": {"contains": ""}}}`,
	`{"prompt": "p", "expect": {"answer": {"json_schema": {"type": "object", "required": ["a"], "properties": {"a": {"type": "number", "minimum": 0.5, "maximum": 10}}}}}}`,
	`{"prompt": "p", "expect": {"answer": {"json_schema": true}}}`,
	`{"prompt": "line\nbreak\t\"quoted\" \\ back \/ slash"}`,
	`{"id": "5", "prompt": "numbers as text"}`,
	// Left to the YAML reader: mistakes, and values fast does not take.
	`{"id": 5, "prompt": "a number"}`,
	`{"prompt": "p", "max_turns": "3"}`,
	`{"prompt": "p", "max_turns": 3.0}`,
	`{"prompt": "p", "max_turns": 0}`,
	`{"prompt": "p", "system": null}`,
	`{"prompt": "p", "expect": {"tool_sequence": {"calls": [{"name": "b", "args": {"x": 1e3, "y": -0, "z": 12345678901234567890}}]}}}`,
	`{"prompt": "p", "expect": {"answer": {"regex": "("}}}`,
	`{"prompt": "p", "expect": {"answer": {"contains": "a", "equals": "b"}}}`,
	`{"prompt": "p", "expct": {}}`,
	`{"prompt": "  "}`,
	`{"prompt": "a", "prompt": "b"}`,
	`{"prompt": "a"} {"prompt": "b"}`,
	`{"prompt": "a"`,
	`{	"prompt": "tab"}`,
	`{}`,
}

func TestFastReadsAsYAML(t *testing.T) {
	t.Parallel()
	took := 0
	for _, line := range fastLines {
		if sameAsYAML(t, line) {
			took++
		}
	}
	if took < 16 {
		t.Errorf("fast took %d lines, want the 16 it is for", took)
	}
}

// sameAsYAML checks that what fast takes of line, the YAML reader reads
// as the same case at the same place; it says whether fast took it.
func sameAsYAML(t *testing.T, line string) bool {
	t.Helper()
	r := reader{file: "e.jsonl", line: 7}
	c, ok := r.fast([]byte(line))
	if !ok {
		return false
	}
	var yc *Case
	y := reader{file: "e.jsonl", line: 7, ids: exactIDs{}, emit: func(c *Case) error { yc = c; return nil }}
	docs, err := y.parse([]byte(line))
	if err == nil && len(docs) != 1 {
		t.Fatalf("%s: fast took it, the YAML parser read %d documents", line, len(docs))
	}
	if err == nil {
		err = y.oneCase(docs[0].Body)
	}
	if err != nil {
		t.Fatalf("%s: fast took it, the YAML reader says %v", line, err)
	}
	if c.ID == "" {
		c.ID, c.unnamed = "case_1", true
	}
	got, _ := json.Marshal(spool(c, 0, 0))
	want, _ := json.Marshal(spool(yc, 0, 0))
	if diff := cmp.Diff(string(want), string(got)); diff != "" || c.Pos != yc.Pos || c.unnamed != yc.unnamed {
		t.Errorf("%s: fast read it otherwise (-yaml +fast):\n%s\npos %v, yaml's %v", line, diff, c.Pos, yc.Pos)
	}
	return true
}

// TestSpoolReadsBack: a case read back from the spool is the case
// written to it.
func TestSpoolReadsBack(t *testing.T) {
	t.Parallel()
	n := 0
	for i, line := range append(fastLines, `{"id": "x", "prompt": "p", "tools": "", "expect": {"tools_called": [], "answer": {"json_schema": {"maximum": 1e21, "minimum": -0}}}}`) {
		var c *Case
		y := reader{file: "e.jsonl", line: 1, ids: exactIDs{}, emit: func(got *Case) error { c = got; return nil }}
		docs, err := y.parse([]byte(line))
		if err == nil && len(docs) == 1 {
			err = y.oneCase(docs[0].Body)
		}
		if err != nil || c == nil {
			continue
		}
		n++
		want, _ := json.Marshal(spool(c, 0, i))
		sc, err := unspool(new(jsontext.Decoder), want)
		if err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		got, _ := json.Marshal(sc)
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("read back otherwise (-written +read):\n%s", diff)
		}
		set := &Set{paths: []string{"e.jsonl"}}
		back, err := set.decode(new(jsontext.Decoder), want)
		if err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(spool(back, 0, i)); string(again) != string(want) {
			t.Errorf("case read back otherwise:\n%s\nwant\n%s", again, want)
		}
	}
	if n < 15 {
		t.Errorf("%d cases read back, want the 15 and more of fastLines", n)
	}
}

// TestFastReadsEachLineAfresh: one reader reading every line, in turn and
// in reverse, each after lines of other shapes (the values of one line
// are kept for the next), reads each as a reader of that line alone does;
// a line of more values than it keeps leaves the next as well read.
func TestFastReadsEachLineAfresh(t *testing.T) {
	t.Parallel()
	wide := `{"prompt": "p", "expect": {"tool_sequence": {"calls": [{"name": "b", "args": {"x": [` + strings.Repeat(`1, `, 400) + `1]}}]}}}`
	lines := append(append([]string{}, fastLines...), wide)
	for i := len(fastLines) - 1; i >= 0; i-- {
		lines = append(lines, fastLines[i])
	}
	shared := reader{file: "e.jsonl", line: 7}
	for _, line := range lines {
		alone := reader{file: "e.jsonl", line: 7}
		want, wantOK := alone.fast([]byte(line))
		got, ok := shared.fast([]byte(line))
		if ok != wantOK {
			t.Fatalf("%s: took %v after other lines, %v alone", line, ok, wantOK)
		}
		if !ok {
			continue
		}
		w, _ := json.Marshal(spool(want, 0, 0))
		g, _ := json.Marshal(spool(got, 0, 0))
		if diff := cmp.Diff(string(w), string(g)); diff != "" || want.Pos != got.Pos {
			t.Errorf("%s: read after other lines (-alone +after):\n%s\npos %v, alone %v", line, diff, got.Pos, want.Pos)
		}
	}
}

// TestJSONLinesPlaces: a case of JSON Lines, and each mistake in it, is
// placed where it is on its line, however the line is indented, and
// whatever space is inside it (the YAML reader takes a carriage return
// for a line's end).
func TestJSONLinesPlaces(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{"  {\"prompt\": \"a\"}\n", "e.jsonl:1:4"},
		{"{\"prompt\": \"a\"}\n\t {\"prompt\": \"b\"}\n", "e.jsonl:2:4"},
		{"  {\"prompt\": \"a\", \"expct\": 1}\n", `e.jsonl:1:19: case 1: unknown key "expct"`},
		{"  {\"prompt\": \"a\", \"max_turns\": 0}\n", `e.jsonl:1:32: case 1: max_turns: want a whole number`},
		{"  {\"prompt\": \"a\"}\n  {\"prompt\": \"b\", \"id\": \"case_1\"}\n", `e.jsonl:2:4: case "case_1": the id of another case too (first at line 1)`},
		{"  {\"prompt\": \"a\", \"id\": [1, 2,\n", `e.jsonl:1:31: invalid JSON: unexpected end`},
		{"{\"prompt\": \"a\",\r \"expct\": 1}\n", `e.jsonl:1:18: case 1: unknown key "expct"`},
		{"{\"prompt\": \"a\",\r\"id\": \"x\",\r\"max_turns\": 0}\n", `e.jsonl:1:41: case "x": max_turns: want a whole number`},
		{"  [1]\n", `e.jsonl:1:3: a line of a JSON Lines eval is one case, an object`},
	} {
		got := ""
		cases, err := readCases(t, "e.jsonl", tc.text)
		if err != nil {
			got = err.Error()
		} else {
			got = cases[len(cases)-1].Pos.String()
		}
		if _, after, ok := strings.Cut(got, "/e.jsonl"); ok {
			got = "e.jsonl" + after
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: %s, want %s…", tc.text, got, tc.want)
		}
	}
}

// TestLineTooLong: a line of JSON Lines longer than MaxLineSize is a
// mistake at that line, as every mistake is at its file:line:col.
func TestLineTooLong(t *testing.T) {
	t.Parallel()
	text := `{"prompt": "a"}` + "\n" + `{"prompt": "` + strings.Repeat("a", MaxLineSize) + `"}` + "\n"
	_, err := readCases(t, "e.jsonl", text)
	var ne *yamlpos.NodeError
	if !errors.As(err, &ne) || ne.Pos.Line != 2 || ne.Pos.Col != 1 || ne.Msg != "a line longer than 4 MiB" {
		t.Errorf("err = %v, want one at line 2, column 1: a line longer than 4 MiB", err)
	}
}

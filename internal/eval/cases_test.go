package eval

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/yamlpos"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	cases, err := readCases(t, "e.yaml", `cases:
  - prompt: add 1 and 2
    expect: {tools_called: [calculate_sum]}
  - id: second
    prompt: hello
    tools: read_file,glob
    repeat: 3
    max_turns: 4
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[0].ID != "case_1" || cases[1].ID != "second" {
		t.Fatalf("cases = %+v", cases)
	}
	if got := strings.Join(cases[1].Tools, " "); got != "read_file glob" || cases[1].Repeat != 3 || cases[1].MaxTurns != 4 {
		t.Errorf("second = %+v", cases[1])
	}
	if cases[1].Pos.Line != 4 {
		t.Errorf("second at line %d, want 4", cases[1].Pos.Line)
	}

	lines, err := readCases(t, "e.jsonl", `{"prompt": "a"}`+"\n\n"+`{"id": "b", "prompt": "b", "expect": {"answer": {"contains": "x"}}}`+"\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || lines[1].ID != "b" || lines[1].Pos.Line != 3 {
		t.Errorf("jsonl cases = %+v", lines)
	}
}

// mistakes are eval files with a mistake, and the start of its error.
var mistakes = []struct{ name, text, err string }{
	{"e.yaml", "- prompt: a\n  expct: {}\n", `e.yaml:2:3: case 1: unknown key "expct" (did you mean "expect"?)`},
	{"e.yaml", "- prompt: a\n  expect: {tools_caled: [x]}\n", `e.yaml:2:12: case 1: expect: unknown key "tools_caled" (did you mean "tools_called"?)`},
	{"e.yaml", "- id: x\n", `e.yaml:1:3: case "x": no prompt`},
	{"e.yaml", "- {id: x, prompt: a}\n- {id: x, prompt: b}\n", `e.yaml:2:4: case "x": the id of another case too (first at line 1)`},
	{"e.yaml", "prompt: a\nexpect: {tool_sequence: {calls: [f], mode: inorder}}\n", `e.yaml:2:44: case 1: expect.tool_sequence.mode: "inorder" is not a mode (did you mean "in_order"?)`},
	{"e.yaml", "prompt: a\nexpect: {answer: {regex: '('}}\n", `e.yaml:2:26: case 1: expect.answer.regex: error parsing regexp`},
	{"e.yaml", "prompt: a\nexpect: {answer: {contains: a, equals: b}}\n", `e.yaml:2:18: case 1: expect.answer: want one of`},
	{"e.yaml", "prompt: a\nrepeat: 0\n", `e.yaml:2:9: case 1: repeat: want a whole number from 1 to 1000, not "0"`},
	{"e.yaml", "# nothing\n", `e.yaml: holds no cases`},
	// Said of the eval file, not of config files, which it is not.
	{"e.yaml", "- id: a\n  prompt: &p hi\n", `e.yaml:2:11: case "a": prompt: want text, not an anchor or alias (not taken here)`},
	{"e.jsonl", "{\"prompt\": \"a\"}\n{\"prompt\": \"b\", \"expect\": {\"max_turn\": 1}}\n", `e.jsonl:2:28: case 2: expect: unknown key "max_turn" (did you mean "max_turns"?)`},
	{"e.jsonl", "{\"prompt\": \"a\"}\n{\"prompt\": \n", `e.jsonl:2:`},
	{"e.txt", "prompt: a\n", `e.txt: an eval file is .yaml, .yml, .json, .jsonl or .ndjson`},
	// A call of no tool is no call any session makes.
	{"e.yaml", "prompt: a\nexpect: {tool_sequence: [f, '']}\n", `e.yaml:2:29: case 1: expect.tool_sequence.calls[1]: want a tool's name, not an empty text`},
	{"e.yaml", "prompt: a\nexpect: {tool_sequence: [{name: '', args: {a: 1}}]}\n", `e.yaml:2:33: case 1: expect.tool_sequence.calls[0].name: want a tool's name, not an empty text`},
	{"e.jsonl", "{\"prompt\": \"a\", \"expect\": {\"tool_sequence\": [{\"name\": \"\"}]}}\n", `e.jsonl:1:55: case 1: expect.tool_sequence.calls[0].name: want a tool's name, not an empty text`},
	// JSON is read as JSON, though the YAML parser would take more.
	{"e.json", "[{\"id\": \"a\", \"prompt\": \"p\"},\n {\"id\": \"b\", \"prompt\": \"q\",}]", `e.json:2:27: invalid JSON: invalid character ',' at start of value`},
	{"e.json", "{\"prompt\": 'p'}", `e.json:1:12: invalid JSON: invalid character '\'' at start of value`},
	{"e.json", "{\"prompt\": \"p\"} # c\n", `e.json:1:17: invalid JSON: invalid character '#' at start of value`},
	{"e.json", "{\"id\": \"a\", \"id\": \"b\", \"prompt\": \"p\"}", `e.json:1:13: invalid JSON: duplicate key "id" in an object`},
	{"e.json", "{\"prompt\": \"a\"}\n {\"prompt\": \"b\"}\n", `e.json:2:2: invalid JSON: invalid character '{' after top-level value`},
	{"e.jsonl", "{\"prompt\": \"a\"} {\"prompt\": \"b\"}\n", `e.jsonl:1:17: invalid JSON: invalid character '{' after top-level value`},
	{"e.json", "[{\"prompt\": \"p\"}", `e.json:1:17: invalid JSON: unexpected end of JSON input`},
	{"e.jsonl", "{\"prompt\": \"a\"}\n{\"prompt\": \"b\",}\n", `e.jsonl:2:15: invalid JSON: invalid character ',' at start of value`},
	{"e.jsonl", "{prompt: a}\n", `e.jsonl:1:2: invalid JSON: invalid character 'p' at start of value`},
	{"e.jsonl", "  {\"prompt\": \"a\", \"prompt\": \"b\"}\n", `e.jsonl:1:19: invalid JSON: duplicate key "prompt" in an object`},
	// A number no float64 holds is refused, as in request files, not
	// read as text as the YAML parser would.
	{"e.jsonl", "{\"prompt\": \"a\", \"expect\": {\"tool_sequence\": [{\"name\": \"f\", \"args\": {\"x\": 1e999}}]}}\n", `e.jsonl:1:74: invalid JSON: number 1e999 is out of range`},
	{"e.json", "[{\"prompt\": \"a\",\n  \"expect\": {\"tool_sequence\": [{\"name\": \"f\", \"args\": {\"x\": -1e400}}]}}]", `e.json:2:60: invalid JSON: number -1e400 is out of range`},
	// A carriage return ends no line of JSON: it is space, as in request
	// files; in YAML it ends a line.
	{"e.json", "{\"prompt\": \"a\",\r\"expct\": 1}", `e.json:1:17: case 1: unknown key "expct"`},
	{"e.json", "[{\"prompt\": \"a\"},\r\n {\"prompt\": \"b\", \"expct\": 1}]", `e.json:2:18: case 2: unknown key "expct"`},
	{"e.yaml", "prompt: a\rexpct: 1\n", `e.yaml:2:1: case 1: unknown key "expct"`},
}

func TestReadFileMistakes(t *testing.T) {
	t.Parallel()
	for _, tc := range mistakes {
		_, err := readCases(t, tc.name, tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: err = %v, want %s…", tc.text, err, tc.err)
		}
	}
}

// isCaseTexts are starts of files, and whether they hold cases.
var isCaseTexts = map[string]bool{
	"- prompt: a\n":                true,
	"cases:\n  - prompt: a\n":      true,
	`{"prompt": "a"}`:              true,
	`[{"id": "x", "prompt": "a"}]`: true,
	"# the cases\n---\nid: x\nsystem: s\nprompt: |\n  a\n":     true,
	"- id: x\n  expect: {tools_called: [f]}\n  prompt: a\n":    true,
	"- name: calculate_sum\n":                                  false,
	"session_id: s\nrequests:\n  - {name: f}\n":                false,
	`{"type": "text", "role": "user", "content": "prompt: a"}`: false,
	// A key deeper than the first mapping's is a value's, not the
	// file's.
	`{"name": "f", "args": {"prompt": 1}}`:                    false,
	"- args:\n    prompt: a\n  name: f\n":                     false,
	"- id: a\n  args: {prompt: a}\n- prompt: b\n":             false,
	"cut in the middle: {\"pro":                               false,
	`[{"id": "x", "args": {"system": "a"}}, {"prompt": "b"}]`: false,
	"": false,
}

func TestIsCase(t *testing.T) {
	t.Parallel()
	for text, want := range isCaseTexts {
		if got := IsCase([]byte(text)); got != want {
			t.Errorf("IsCase(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestIsCaseFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, want := range map[string]bool{
		"a.jsonl": true,  // by its first line that is not blank
		"b.jsonl": false, // a request first
		"c.yaml":  true,
		"d.txt":   false, // no eval file's name
		"e.yaml":  false, // no such file
	} {
		text := map[string]string{
			"a.jsonl": "\n  \n{\"prompt\": \"a\"}\n{\"name\": \"f\"}\n",
			"b.jsonl": "{\"name\": \"f\"}\n{\"prompt\": \"a\"}\n",
			"c.yaml":  "- prompt: a\n",
			"d.txt":   "- prompt: a\n",
		}[name]
		path := filepath.Join(dir, name)
		if text != "" {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := IsCaseFile(path); got != want {
			t.Errorf("IsCaseFile(%s) = %v, want %v", name, got, want)
		}
	}
}

func TestOpenNumbersTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string { return writeFile(t, dir, name, text) }
	a := write("a.yaml", "- prompt: one\n- prompt: two\n")
	b := write("b.yaml", "- prompt: three\n- {id: mine, prompt: four}\n")
	cases, err := readSet(t, a, b)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cases {
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, " "); got != "case_1 case_2 case_3 mine" {
		t.Errorf("ids %q, want the places in the whole run", got)
	}
	c := write("c.yaml", "- {id: mine, prompt: again}\n")
	if _, err := readSet(t, b, c); err == nil || !strings.Contains(err.Error(), `c.yaml:1:4: case "mine": the id of another case too (first at `+b+":2:4)") {
		t.Errorf("an id in two files: %v", err)
	}
	d := write("d.yaml", "- {id: case_1, prompt: named so}\n")
	if _, err := readSet(t, a, d); err == nil || !strings.Contains(err.Error(), `the id of another case too`) {
		t.Errorf("a named case_1 beside an unnamed first case: %v", err)
	}
	// A file's own mistakes come before an id another file has too,
	// wherever they are in it; of those ids, the first.
	e := write("e.jsonl", `{"id": "mine", "prompt": "again"}`+"\n"+`{"id": "case_1", "prompt": "and"}`+"\n"+`{"prompt": "p", "expct": {}}`+"\n")
	if _, err := readSet(t, b, e); err == nil || !strings.Contains(err.Error(), `e.jsonl:3:17: case 3: unknown key "expct"`) {
		t.Errorf("a mistake after an id of another file: %v", err)
	}
	f := write("f.jsonl", `{"prompt": "p"}`+"\n"+`{"id": "mine", "prompt": "again"}`+"\n"+`{"id": "case_1", "prompt": "and"}`+"\n")
	if _, err := readSet(t, b, f); err == nil || !strings.Contains(err.Error(), `f.jsonl:3:2: case "case_1": the id of another case too (first at line 1)`) {
		t.Errorf("an id twice in a file, after one of another file: %v", err)
	}
	f = write("f.jsonl", `{"prompt": "p"}`+"\n"+`{"id": "mine", "prompt": "again"}`+"\n"+`{"id": "case_3", "prompt": "and"}`+"\n")
	if _, err := readSet(t, b, f); err == nil || !strings.Contains(err.Error(), `f.jsonl:2:2: case "mine": the id of another case too (first at `+b+":2:4)") {
		t.Errorf("ids of another file: %v", err)
	}
	// In a file, an unnamed case is named by its place in the file.
	g := write("g.jsonl", `{"prompt": "p"}`+"\n"+`{"id": "case_1", "prompt": "and"}`+"\n")
	if _, err := readSet(t, a, g); err == nil || !strings.Contains(err.Error(), `g.jsonl:2:2: case "case_1": the id of another case too (first at line 1)`) {
		t.Errorf("a named case_1 after the file's unnamed first: %v", err)
	}
}

// TestOpenMistakes: with Mistakes, every case's mistake is told, in
// order, of the case's id, and the others are read on and kept, each
// numbered as when the mistakes are put right; a file that is no YAML
// still ends Open.
func TestOpenMistakes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := writeFile(t, dir, "a.yaml", "- {id: x, prompt: one, expct: {}}\n- prompt: two\n- {prompt: three, repeat: 0}\n- prompt: four\n")
	b := writeFile(t, dir, "b.jsonl", `{"id": "x", "prompt": "again"}`+"\n"+`[1]`+"\n"+`{"prompt": "seven"}`+"\n")
	var told []string
	set, err := Open([]string{a, b}, OpenOptions{Mistakes: func(m Mistake) error {
		told = append(told, fmt.Sprintf("%d:%d %s: %s", m.File, m.Err.Pos.Line, m.ID, m.Message()))
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	want := []string{
		`0:1 x: unknown key "expct" (did you mean "expect"?): want id, prompt, system, tools, max_turns, repeat, expect`,
		`0:3 case_3: repeat: want a whole number from 1 to 1000, not "0"`,
		`1:2 case_6: a line of a JSON Lines eval is one case, an object`,
	}
	if !slices.Equal(told, want) {
		t.Errorf("told\n%s\nwant\n%s", strings.Join(told, "\n"), strings.Join(want, "\n"))
	}
	var ids []string
	for c, err := range set.All() {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
	}
	if got := strings.Join(ids, " "); got != "case_2 case_4 x case_7" || set.Len() != 4 {
		t.Errorf("kept %q (Len %d), want case_2 case_4 x case_7", got, set.Len())
	}
	// The same id in two files, each kept: the second is told.
	c := writeFile(t, dir, "c.yaml", "- {id: y, prompt: p}\n")
	d := writeFile(t, dir, "d.yaml", "- {id: y, prompt: q}\n- {id: z, prompt: r}\n")
	told = nil
	set2, err := Open([]string{c, d}, OpenOptions{Mistakes: func(m Mistake) error {
		told = append(told, m.ID+": "+m.Message())
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	set2.Close()
	if len(told) != 1 || !strings.HasPrefix(told[0], "y: the id of another case too (first at "+c+":1:4)") || set2.Len() != 2 {
		t.Errorf("told %q, Len %d", told, set2.Len())
	}
	// An id with a quote in it is quoted in the words, and taken off
	// them whole.
	q := writeFile(t, dir, "q.yaml", "- {id: 'say \"hi\": now', prompt: p, expct: 1}\n")
	told = nil
	set3, err := Open([]string{q}, OpenOptions{Mistakes: func(m Mistake) error {
		told = append(told, m.ID+": "+m.Message())
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	set3.Close()
	if len(told) != 1 || !strings.HasPrefix(told[0], `say "hi": now: unknown key "expct"`) {
		t.Errorf("told %q", told)
	}
	e := writeFile(t, dir, "e.yaml", "- prompt: [\n")
	if _, err := Open([]string{e}, OpenOptions{Mistakes: func(Mistake) error { return nil }}); err == nil {
		t.Error("a file that is no YAML was read")
	}
}

// readSet reads the cases of paths as an eval does: Open, then All.
func readSet(t *testing.T, paths ...string) ([]*Case, error) {
	t.Helper()
	set, err := Open(paths, OpenOptions{})
	if err != nil {
		return nil, err
	}
	defer set.Close()
	var cases []*Case
	for c, err := range set.All() {
		if err != nil {
			return nil, err
		}
		cases = append(cases, c)
	}
	if len(cases) != set.Len() {
		t.Errorf("All gave %d cases, Len %d", len(cases), set.Len())
	}
	return cases, nil
}

// TestSetHoldsNoCases: an eval's cases are read as they run, so what the
// set holds as they run does not grow with them (a case held is some 400
// bytes).
func TestSetHoldsNoCases(t *testing.T) {
	// Not parallel: it measures the heap.
	dir := t.TempDir()
	held := func(n int) uint64 {
		path := filepath.Join(dir, fmt.Sprintf("cases%d.jsonl", n))
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `{"id": "case-number-%d", "prompt": "say hi, and say it as case %d says it", "tools": "", "expect": {"answer": {"contains": "Hi"}}}`+"\n", i+1, i+1)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		b = strings.Builder{}
		set, err := Open([]string{path}, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer set.Close()
		var inuse uint64
		i := 0
		for c, err := range set.All() {
			if err != nil {
				t.Fatal(err)
			}
			if i++; i == n {
				// At the last case, as a run that holds each case it read
				// would hold them all.
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				inuse = ms.HeapInuse
				runtime.KeepAlive(c)
			}
		}
		if i != n {
			t.Fatalf("read %d cases of %d", i, n)
		}
		return inuse
	}
	held(1000) // what the first reading sets up once
	small, large := held(1000), held(20_000)
	perCase := (float64(large) - float64(small)) / 19_000
	t.Logf("heap in use at the last case: %d KiB for 1,000 cases, %d KiB for 20,000: %.0f bytes a case", small>>10, large>>10, perCase)
	if perCase > 16 {
		t.Errorf("the heap grows by %.0f bytes a case, want none", perCase)
	}
}

// BenchmarkSet is an eval's reading of its cases: Open, which checks
// them, then All, as the eval runs them; an op is 1,000 cases of JSON
// Lines.
func BenchmarkSet(b *testing.B) {
	path := filepath.Join(b.TempDir(), "cases.jsonl")
	var text strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&text, `{"id": "c%d", "prompt": "say hi, %d", "tools": "", "expect": {"answer": {"contains": "Hi"}}}`+"\n", i+1, i+1)
	}
	if err := os.WriteFile(path, []byte(text.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		set, err := Open([]string{path}, OpenOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for _, err := range set.All() {
			if err != nil {
				b.Fatal(err)
			}
		}
		set.Close()
	}
}

// TestHashedIDsCollide: ids whose hashes are one are told apart by the
// ids read back from the spool; the same id twice is a duplicate
// whatever others share its hash.
func TestHashedIDsCollide(t *testing.T) {
	t.Parallel()
	f, name, err := tempFile("kesoku-test-*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	set := &Set{paths: []string{"e.yaml"}, spool: f, name: name, w: bufio.NewWriter(f)}
	defer set.Close()
	ids := set.index(func(sc *spooled) string { return sc.ID })
	ids.hash = func(string) uint64 { return 7 }
	var got []string
	for i, id := range []string{"a", "b", "a", "c", "b", "c"} {
		pos := yamlpos.Pos{File: "e.yaml", Line: i + 1, Col: 3}
		first, dup, err := ids.add(id, pos)
		if err != nil {
			t.Fatal(err)
		}
		if dup {
			got = append(got, fmt.Sprintf("%s@%d first@%d", id, i+1, first.Line))
			continue
		}
		if err := set.add(&Case{ID: id, Pos: pos, Prompt: "p"}, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"a@3 first@1", "b@5 first@2", "c@6 first@4"}; !slices.Equal(got, want) {
		t.Errorf("duplicates %q, want %q", got, want)
	}
}

// TestSetCounts: what an eval needs of the whole set, counted as it was
// read: its runs, the file of each run's position, the lists of tools.
func TestSetCounts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	b := filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(a, []byte("- {prompt: one, repeat: 3, tools: x}\n- {prompt: two}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(`{"prompt": "three", "tools": ["x"]}`+"\n"+`{"prompt": "four", "tools": ""}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := Open([]string{a, b}, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	if set.Len() != 4 || set.First() != "case_1" {
		t.Errorf("%d cases, the first %q", set.Len(), set.First())
	}
	// --repeat 2: a's runs 1-3 (case_1), 4-5 (case_2); b's 6-7, 8-9.
	if got := set.Runs(2); got != 9 {
		t.Errorf("runs with --repeat 2: %d, want 9", got)
	}
	var files []string
	for p := range int64(10) {
		files = append(files, filepath.Base(set.FileAt(p+1, 2)))
	}
	if want := []string{"a.yaml", "a.yaml", "a.yaml", "a.yaml", "a.yaml", "b.jsonl", "b.jsonl", "b.jsonl", "b.jsonl", "."}; !slices.Equal(files, want) {
		t.Errorf("files by position %q, want %q", files, want)
	}
	// Starts says the same as data: each file and its first run.
	if got := set.Starts(2); len(got) != 2 || got[0] != (FileStart{a, 1}) || got[1] != (FileStart{b, 6}) {
		t.Errorf("starts with --repeat 2: %+v, want a.yaml at 1, b.jsonl at 6", got)
	}
	if !set.Repeats(1) || set.Runs(1) != 6 {
		t.Errorf("with --repeat 1: repeats %v, %d runs; want true, 6", set.Repeats(1), set.Runs(1))
	}
	var lists []string
	for _, l := range set.Tools() {
		list := fmt.Sprintf("%q", l.Tools)
		if l.Tools == nil {
			list = "the command's"
		}
		lists = append(lists, fmt.Sprintf("%s@%s:%d", list, filepath.Base(l.Pos.File), l.Pos.Line))
	}
	if want := []string{`["x"]@a.yaml:1`, `the command's@a.yaml:2`, `[]@b.jsonl:2`}; !slices.Equal(lists, want) {
		t.Errorf("lists of tools %q, want %q", lists, want)
	}
}

// TestSetCapitals: asked, Open tells ids that differ only in ASCII
// capitals, in one file or two; ids that differ otherwise, or in the case
// of letters a cassette's file name writes as escaped bytes, it does not.
func TestSetCapitals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string { return writeFile(t, dir, name, text) }
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{write("a.yaml", "- {id: Add, prompt: one}\n- {id: sub, prompt: two}\n- {id: ADD, prompt: three}\n")}, `a.yaml:3:4: case "ADD": the case at ` + dir + `/a.yaml:1:4 has this id but for capitals`},
		{[]string{write("b.yaml", "- prompt: one\n"), write("c.jsonl", `{"id": "CASE_1", "prompt": "two"}`+"\n")}, `c.jsonl:1:2: case "CASE_1": the case at ` + dir + `/b.yaml:1:3 has this id but for capitals`},
		{[]string{write("d.yaml", "- {id: add, prompt: one}\n- {id: added, prompt: two}\n")}, ""},
		{[]string{write("e.yaml", "- {id: É, prompt: one}\n- {id: é, prompt: two}\n")}, ""},
	} {
		set, err := Open(tc.files, OpenOptions{Capitals: true})
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if c := set.Capitals(); c != nil {
			got = c.Error()
		}
		set.Close()
		if !strings.HasSuffix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("%v: %q, want %q", tc.files, got, tc.want)
		}
		// Not asked, Open keeps no index of folded ids, and tells none.
		set, err = Open(tc.files, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if c := set.Capitals(); c != nil {
			t.Errorf("%v, not asked: %v", tc.files, c)
		}
		set.Close()
	}
}

// writeFile writes text to the file name in dir and returns its path.
func writeFile(t testing.TB, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSetKeepsTheFirstCases: the cases Open keeps (within keptCases and
// keptBytes) and those read back from the spool come out of All as one
// run, in order, each whole, whichever bound ends the kept ones.
func TestSetKeepsTheFirstCases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		name   string
		n      int
		prompt string
	}{
		{"many", keptCases + 300, "p"},
		{"large", 400, strings.Repeat("long prompt ", 100)},
	} {
		var b strings.Builder
		for i := range tc.n {
			fmt.Fprintf(&b, `{"id": "c%d", "prompt": "%s %d", "expect": {"answer": {"regex": "^Hi %d$"}}}`+"\n", i+1, tc.prompt, i+1, i+1)
		}
		path := writeFile(t, dir, tc.name+".jsonl", b.String())
		set, err := Open([]string{path}, OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(set.kept) == 0 || len(set.kept) >= tc.n {
			t.Errorf("%s: %d cases kept of %d, want some and not all", tc.name, len(set.kept), tc.n)
		}
		for round := range 2 {
			i := 0
			for c, err := range set.All() {
				if err != nil {
					t.Fatal(err)
				}
				i++
				want := fmt.Sprintf("%s %d", tc.prompt, i)
				if c.ID != fmt.Sprintf("c%d", i) || c.Prompt != want || c.Pos.Line != i || c.Expect.Answer == nil || c.Expect.Answer.Regex == nil ||
					!c.Expect.Answer.Regex.MatchString(fmt.Sprintf("Hi %d", i)) {
					t.Fatalf("%s, round %d: case %d is %q at line %d (%+v)", tc.name, round, i, c.ID, c.Pos.Line, c.Expect.Answer)
				}
			}
			if i != tc.n {
				t.Errorf("%s, round %d: %d cases, want %d", tc.name, round, i, tc.n)
			}
		}
		set.Close()
	}
}

// TestEmptyItemPlaced: an empty item of a list of cases is placed just
// after its "- ", as request files place one, whether it is the list's
// last or not.
func TestEmptyItemPlaced(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]string{
		"-\n- prompt: a\n":          "e.yaml:1:3: case 1: want a mapping, not nothing",
		"- \n- prompt: a\n":         "e.yaml:1:3: case 1: want a mapping, not nothing",
		"- prompt: a\n-\n":          "e.yaml:2:3: case 2: want a mapping, not nothing",
		"cases:\n  -  # c\n  - x\n": "e.yaml:2:5: case 1: want a mapping, not nothing",
	} {
		_, err := readCases(t, "e.yaml", text)
		if err == nil || !strings.HasSuffix(err.Error(), "/"+want) {
			t.Errorf("%q: %v, want %s", text, err, want)
		}
	}
}

// TestByteOrderMark: a byte order mark, which some editors write at the
// start of a file, is no part of an eval file's first case, as it is none
// of a request file's first request; in JSON Lines, none of a line's
// (where files were joined), placed as it is there. IsCase and IsCaseFile
// look past it.
func TestByteOrderMark(t *testing.T) {
	t.Parallel()
	const bom = "\uFEFF"
	for _, tc := range []struct{ name, text, want string }{
		{"e.yaml", bom + "prompt: a\n", "case_1@1:1"},
		{"e.yaml", bom + "- prompt: a\n- prompt: b\n", "case_1@1:3 case_2@2:3"},
		{"e.json", bom + `{"prompt": "a"}`, "case_1@1:2"},
		{"e.jsonl", bom + `{"prompt": "a"}` + "\n" + bom + `{"prompt": "b"}` + "\n" + bom + ` {"prompt": "c", "id": 5}` + "\n", "case_1@1:2 case_2@2:5 5@3:6"},
	} {
		path := writeFile(t, t.TempDir(), tc.name, tc.text)
		cases, err := readSet(t, path)
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		var got []string
		for _, c := range cases {
			got = append(got, fmt.Sprintf("%s@%d:%d", c.ID, c.Pos.Line, c.Pos.Col))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: %s, want %s", tc.text, strings.Join(got, " "), tc.want)
		}
		if !IsCase([]byte(tc.text)) || !IsCaseFile(path) {
			t.Errorf("%q: IsCase %v, IsCaseFile %v", tc.text, IsCase([]byte(tc.text)), IsCaseFile(path))
		}
	}
}

// TestCommentedOutDocument: a document of a YAML eval whose case is
// commented out loses none of the cases after it.
func TestCommentedOutDocument(t *testing.T) {
	t.Parallel()
	cases, err := readCases(t, "e.yaml", "prompt: a\n---\n# prompt: b\n---\nprompt: c\n---\n---\n- prompt: d\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cases {
		got = append(got, fmt.Sprintf("%s %s@%d", c.ID, c.Prompt, c.Pos.Line))
	}
	if want := []string{"case_1 a@1", "case_2 c@5", "case_3 d@8"}; !slices.Equal(got, want) {
		t.Errorf("cases %q, want %q", got, want)
	}
}

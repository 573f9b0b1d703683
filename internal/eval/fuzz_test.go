package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kesoku/kesoku/internal/jsonschema"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// evalFiles are eval files as people write them, and as they may be
// written oddly: the seeds of the fuzz tests of whole files, with the
// files of the other tests.
var evalFiles = []struct{ name, text string }{
	{"e.yaml", "cases:\n  - prompt: add 1 and 2\n    expect: {tools_called: [calculate_sum]}\n  - id: second\n    prompt: hello\n    tools: read_file,glob\n    repeat: 3\n    max_turns: 4\n"},
	{"e.yaml", "- {prompt: one, repeat: 3, tools: x}\n- {prompt: two}\n"},
	{"e.yaml", "# the cases\n---\nid: x\nsystem: s\nprompt: |\n  a\n"},
	{"e.yaml", "prompt: p\nexpect:\n  tool_sequence:\n    calls:\n      - calculate_sum\n      - name: read_file\n        args: {path: a.txt, n: 1.50, deep: [1, {k: null}]}\n    mode: in_order\n  answer: {json_schema: {type: object, required: [sum], properties: {sum: {type: integer}}}}\n  max_turns: 2\n  max_tokens: 100\n"},
	{"e.yaml", "- prompt: a\n  expect: {answer: {regex: '^It is \\d+\\.$'}, tools_not_called: [write_file]}\n- prompt: b\n  expect: {answer: {equals: 'It is 3.'}}\n- prompt: c\n  tools: []\n  expect: {answer: {contains: ''}}\n"},
	{"e.yaml", "- {id: Add, prompt: one}\n- {id: sub, prompt: two}\n- {id: ADD, prompt: three}\n"},
	{"e.yaml", "prompt: a\n---\nprompt: b\n...\n---\n- prompt: c\n"},
	{"e.yaml", "prompt: a\n---\n# prompt: b\n---\nprompt: c\n---\n---\n- prompt: d\n"},
	{"e.yaml", "prompt: >-\n  folded\n  text\nsystem: 'single ''quoted'''\nid: \"x\\ty\"\n"},
	{"e.json", `[{"id": "a", "prompt": "p", "expect": {"tool_sequence": {"calls": [{"name": "f", "args": {"x": 1e3, "y": -0, "z": "<&>"}}]}}}, {"prompt": "q"}]`},
	{"e.json", "{\"cases\": [\n  {\"prompt\": \"é\", \"tools\": \"a, b\"},\n  {\"prompt\": \"\\ud83d\\ude00\", \"repeat\": 2}\n]}\n"},
	{"e.jsonl", "{\"prompt\": \"a\"}\n\n{\"id\": \"b\", \"prompt\": \"b\", \"expect\": {\"answer\": {\"contains\": \"x\"}}}\n"},
	{"e.jsonl", "{\"prompt\": \"three\", \"tools\": [\"x\"]}\r\n{\"prompt\": \"four\", \"tools\": \"\"}\r\n"},
	{"e.jsonl", "{\"prompt\": \"p\"}\n{\"id\": \"mine\", \"prompt\": \"again\"}\n{\"id\": \"case_1\", \"prompt\": \"and\"}\n"},
	{"e.jsonl", "  {\"prompt\": \"indented\", \"max_turns\": 3}\n\t{\"prompt\": \"tab\", \"expect\": {\"max_turns\": 1}}\n"},
	{"e.jsonl", "{\"prompt\": \"a\", \"id\": 5, \"system\": null, \"repeat\": \"2\"}\n"},
	{"e.ndjson", "{\"prompt\": \"a\"}\n"},
	{"e.yaml", "\uFEFF- prompt: a\n- prompt: b\n"},
	{"e.json", "\uFEFF{\"prompt\": \"a\"}"},
	{"e.jsonl", "\uFEFF{\"prompt\": \"a\"}\n\uFEFF {\"prompt\": \"b\", \"id\": 5}\n"},
}

// fuzzSeeds are the files of evalFiles, mistakes and isCaseTexts, and
// the lines of fastLines as files of each kind.
func fuzzSeeds() []struct{ name, text string } {
	seeds := append([]struct{ name, text string }{}, evalFiles...)
	for _, m := range mistakes {
		seeds = append(seeds, struct{ name, text string }{m.name, m.text})
	}
	for text := range isCaseTexts {
		seeds = append(seeds, struct{ name, text string }{"e.yaml", text})
	}
	for _, line := range fastLines {
		seeds = append(seeds, struct{ name, text string }{"e.jsonl", line + "\n"}, struct{ name, text string }{"e.json", line})
	}
	return seeds
}

// extOf is the kind of an eval file a fuzz test writes, by a number.
func extOf(kind uint8) string {
	return [...]string{".jsonl", ".yaml", ".json"}[kind%3]
}

func kindOf(name string) uint8 {
	switch filepath.Ext(name) {
	case ".yaml":
		return 1
	case ".json":
		return 2
	}
	return 0
}

// FuzzFastReadsAsYAML: what fast takes of a line, the YAML reader reads
// as the same case at the same place, with the same arguments' JSON. A
// line is what the reader of JSON Lines hands it: any bytes but a line
// end, the space around them cut; a carriage return inside is the
// line's. And whoever reads it, a line of JSON Lines reads as a JSON
// file of that line: the same case or the same mistake at the same
// place.
func FuzzFastReadsAsYAML(f *testing.F) {
	for _, line := range fastLines {
		f.Add(line)
	}
	for _, s := range fuzzSeeds() {
		if kindOf(s.name) == 0 {
			for line := range strings.Lines(s.text) {
				f.Add(line)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		line = string(bytes.TrimSpace([]byte(strings.TrimSuffix(line, "\n"))))
		if strings.Contains(line, "\n") || !strings.HasPrefix(line, "{") || len(line) > 4096 {
			return
		}
		sameAsYAML(t, line)

		dir := t.TempDir()
		jsonl := writeFile(t, dir, "e.jsonl", line+"\n")
		js := writeFile(t, dir, "e.json", line)
		fromLine, err := readFile(jsonl)
		fromFile, errFile := readFile(js)
		if strings.ReplaceAll(fmt.Sprint(err), jsonl, js) != fmt.Sprint(errFile) {
			var ne *yamlpos.NodeError
			if errors.As(errFile, &ne) && strings.Contains(ne.Msg, "cases:") || errors.As(err, &ne) && strings.Contains(ne.Msg, `unknown key "cases"`) {
				return // a JSON file may hold {cases: [...]}, a line one case
			}
			t.Fatalf("as a line: %v; as a file: %v", err, errFile)
		}
		for _, c := range fromLine {
			c.Pos.File = js
		}
		if diff := cmp.Diff(fromFile, fromLine, caseOptions...); diff != "" {
			t.Fatalf("read otherwise (-as a file +as a line):\n%s", diff)
		}
	})
}

// FuzzSpoolReadsBack: the cases Open reads come out of All as the
// reader read them, those it keeps and those read back from the spool
// alike. A file read after a first case too large to keep has all its
// cases read back from the spool.
func FuzzSpoolReadsBack(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s.text), kindOf(s.name))
	}
	dir := f.TempDir()
	large := writeFile(f, dir, "large.jsonl", `{"id": "large", "prompt": "`+strings.Repeat("x", keptBytes)+`"}`+"\n")
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		if len(data) > 8<<10 {
			return
		}
		path := writeFile(t, t.TempDir(), "e"+extOf(kind), string(data))
		want, wantErr := readFile(path)
		got, err := readSet(t, path)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("Open: %v; the reader: %v", err, wantErr)
		}
		if err != nil {
			return
		}
		if diff := cmp.Diff(want, got, caseOptions...); diff != "" {
			t.Fatalf("All gave otherwise (-read +All):\n%s", diff)
		}
		after, err := readSet(t, large, path)
		if err != nil {
			// The first file's case is case_1 there: an id of this file
			// may be one of the run's numbers.
			var ne *yamlpos.NodeError
			if !errors.As(err, &ne) || !strings.Contains(ne.Msg, "the id of another case too") {
				t.Fatalf("after another file: %v", err)
			}
			return
		}
		for i, c := range want {
			if c.unnamed {
				c.ID = "case_" + strconv.Itoa(i+2)
			}
		}
		if diff := cmp.Diff(want, after[1:], caseOptions...); diff != "" {
			t.Fatalf("read back from the spool otherwise (-read +All):\n%s", diff)
		}
	})
}

// caseOptions compare cases as a run uses them: a regex by its text, a
// schema by its document, JSON by its value and numbers as written
// (encoding/json, which writes the spool, escapes <, > and &), lists of
// tools that check nothing as none.
var caseOptions = []cmp.Option{
	cmpopts.IgnoreUnexported(Case{}),
	cmp.Comparer(func(a, b *regexp.Regexp) bool {
		return (a == nil) == (b == nil) && (a == nil || a.String() == b.String())
	}),
	cmp.Comparer(func(a, b *jsonschema.Schema) bool { return (a == nil) == (b == nil) }),
	cmp.Comparer(func(a, b json.RawMessage) bool {
		ja, erra := json.Marshal(a)
		jb, errb := json.Marshal(b)
		return erra == nil && errb == nil && bytes.Equal(ja, jb) && (a == nil) == (b == nil)
	}),
	cmp.FilterPath(func(p cmp.Path) bool {
		return p.Last().String() == ".ToolsCalled" || p.Last().String() == ".ToolsNotCalled"
	}, cmpopts.EquateEmpty()),
}

// FuzzOpen: Open reads any bytes as a file of each kind to cases or an
// error, never a panic; every error names a place in the file (but a
// file of no cases). A byte order mark before the file changes nothing;
// nor does a YAML document of only comments before it, but its lines.
// A JSON Lines file whose lines are indented reads the same, each place
// that many columns on.
func FuzzOpen(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s.text), kindOf(s.name))
	}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		if len(data) > 8<<10 {
			return
		}
		dir := t.TempDir()
		path := writeFile(t, dir, "e"+extOf(kind), string(data))
		cases, err := readSet(t, path)
		if err != nil {
			checkPlace(t, err, path, data)
		}
		for _, c := range cases {
			checkPos(t, fmt.Sprintf("case %q", c.ID), c.Pos, path, data)
		}
		if !bytes.HasPrefix(data, []byte(byteOrderMark)) {
			marked := writeFile(t, dir, "marked"+extOf(kind), byteOrderMark+string(data))
			cases2, err2 := readSet(t, marked)
			if strings.ReplaceAll(fmt.Sprint(err2), marked, path) != fmt.Sprint(err) || len(cases2) != len(cases) {
				t.Fatalf("after a byte order mark, %d cases, error %v; without, %d, %v", len(cases2), err2, len(cases), err)
			}
			for i, c := range cases {
				if c2 := cases2[i]; c2.ID != c.ID || c2.Pos.Line != c.Pos.Line || c2.Pos.Col != c.Pos.Col {
					t.Fatalf("after a byte order mark, case %q at %v; without, %q at %v", c2.ID, c2.Pos, c.ID, c.Pos)
				}
			}
		}
		if kind%3 == 1 && !bytes.HasPrefix(data, []byte(byteOrderMark)) && !bytes.HasPrefix(data, []byte("%")) {
			after := writeFile(t, dir, "after.yaml", "---\n# commented out\n---\n"+string(data))
			cases2, err2 := readSet(t, after)
			var ne, ne2 *yamlpos.NodeError
			if (err == nil) != (err2 == nil) || len(cases) != len(cases2) ||
				errors.As(err, &ne) != errors.As(err2, &ne2) || ne != nil && (ne2.Pos.Line != ne.Pos.Line+3 || ne2.Pos.Col != ne.Pos.Col) {
				t.Fatalf("after an empty document, %d cases, error %v; alone, %d, %v", len(cases2), err2, len(cases), err)
			}
			for i, c := range cases {
				if c2 := cases2[i]; c2.ID != c.ID || c2.Pos.Line != c.Pos.Line+3 || c2.Pos.Col != c.Pos.Col {
					t.Fatalf("after an empty document, case %q at %v; alone, %q at %v", c2.ID, c2.Pos, c.ID, c.Pos)
				}
			}
		}
		if kind%3 != 0 || bytes.HasPrefix(data, []byte(byteOrderMark)) {
			return // the mark of the file's start, indented, is a line's
		}
		indented := writeFile(t, dir, "indented.jsonl", string(regexp.MustCompile(`(?m)^`).ReplaceAll(data, []byte("  "))))
		cases2, err2 := readSet(t, indented)
		if (err == nil) != (err2 == nil) || len(cases) != len(cases2) {
			t.Fatalf("indented, %d cases, error %v; as written, %d, %v", len(cases2), err2, len(cases), err)
		}
		var ne, ne2 *yamlpos.NodeError
		if errors.As(err, &ne) && errors.As(err2, &ne2) {
			if ne2.Msg != ne.Msg || ne2.Pos.Line != ne.Pos.Line || ne2.Pos.Col != ne.Pos.Col+2 {
				t.Fatalf("indented by 2: %v; as written: %v", err2, err)
			}
		}
		for i, c := range cases {
			if c2 := cases2[i]; c2.ID != c.ID || c2.Pos.Line != c.Pos.Line || c2.Pos.Col != c.Pos.Col+2 {
				t.Fatalf("indented by 2, case %q at %v; as written, %q at %v", c2.ID, c2.Pos, c.ID, c.Pos)
			}
		}
	})
}

// checkPlace fails t unless err names a place in data, the file at path:
// every error does but that of a file without cases.
func checkPlace(t *testing.T, err error, path string, data []byte) {
	t.Helper()
	if err.Error() == path+": holds no cases" {
		return
	}
	var ne *yamlpos.NodeError
	if !errors.As(err, &ne) {
		t.Fatalf("an error of no place (%T): %v", err, err)
	}
	checkPos(t, err.Error(), ne.Pos, path, data)
}

// checkPos fails t unless p is a line and column of data, the file at
// path: on a line of it, at most just past its end, or just past the
// "- " of an empty item that ends the line at its dash (as request files
// place one), or the ": " of an empty value that ends it at its colon. A carriage return ends a line of YAML, as in request files,
// and no line of JSON.
func checkPos(t *testing.T, what string, p yamlpos.Pos, path string, data []byte) {
	t.Helper()
	if filepath.Ext(path) == ".yaml" {
		data = bytes.ReplaceAll(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\r"), []byte("\n"))
	}
	lines := bytes.Split(data, []byte("\n"))
	if p.File != path || p.Line < 1 || p.Line > len(lines) || p.Col < 1 {
		t.Fatalf("%s: at %v, no place in the file", what, p)
	}
	line := lines[p.Line-1]
	if (bytes.HasSuffix(line, []byte("-")) || bytes.HasSuffix(line, []byte(":"))) && p.Col == len(line)+2 {
		return
	}
	if p.Col > len(line)+1 {
		t.Fatalf("%s: column %d of a line of %d bytes", what, p.Col, len(line))
	}
}

// FuzzIsCase: IsCase takes any bytes, cut anywhere, and never panics; a
// file that Open reads as cases IsCaseFile takes for an eval file, the
// start of a YAML or JSON file (or a JSON line) it holds being a case's,
// or the cases' wrapper's.
func FuzzIsCase(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s.text), kindOf(s.name))
	}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		if len(data) > 8<<10 {
			return
		}
		IsCase(data)
		for _, n := range []int{len(data) / 2, len(data) / 3, len(data) - 1} {
			if n > 0 {
				IsCase(data[:n])
			}
		}
		path := writeFile(t, t.TempDir(), "e"+extOf(kind), string(data))
		set, err := Open([]string{path}, OpenOptions{})
		if err != nil {
			return
		}
		set.Close()
		if !IsCaseFile(path) {
			t.Fatalf("Open reads %d cases, IsCaseFile says it is no eval file", set.Len())
		}
	})
}

// FuzzMistakes: reading on past the cases with a mistake, as validate
// does, says nothing of a file Open takes, and of one it refuses says
// the mistake Open refuses it for (or refuses it as Open does); every
// mistake is at a place in the file, and the cases read are each at
// their place.
func FuzzMistakes(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s.text), kindOf(s.name))
	}
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		if len(data) > 8<<10 {
			return
		}
		path := writeFile(t, t.TempDir(), "e"+extOf(kind), string(data))
		cases, err := readSet(t, path)
		var told []Mistake
		set, err2 := Open([]string{path}, OpenOptions{Mistakes: func(m Mistake) error {
			told = append(told, m)
			return nil
		}})
		for _, m := range told {
			if m.File != 0 || m.ID == "" {
				t.Fatalf("a mistake of file %d, id %q: %v", m.File, m.ID, m.Err)
			}
			checkPos(t, m.Err.Error(), m.Err.Pos, path, data)
		}
		if err2 == nil {
			defer set.Close()
		}
		if err == nil {
			if err2 != nil || len(told) > 0 || set.Len() != len(cases) {
				t.Fatalf("read alone, %d cases; read on, %v, %d mistakes told", len(cases), err2, len(told))
			}
			return
		}
		if err2 != nil && err2.Error() == err.Error() {
			return // what ends the reading of a file, as it ends Open's
		}
		// Read on, Open's mistake is told, and a mistake of the whole
		// file after it may still end the reading.
		var ne *yamlpos.NodeError
		if errors.As(err, &ne) {
			for _, m := range told {
				if m.Err.Pos == ne.Pos && m.Err.Msg == ne.Msg {
					return
				}
			}
		}
		t.Fatalf("refused for %v; read on, that mistake is not told (%d told)", err, len(told))
	})
}

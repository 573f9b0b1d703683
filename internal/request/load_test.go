package request

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/yamlpos"
)

// loaded is what a test compares of a loaded request.
type loaded struct {
	ID, Name, Session string
	Args              map[string]any
	Line, Col         int
	Err               string
}

func loadString(t *testing.T, name, content string, format Format) ([]loaded, error) {
	t.Helper()
	var f *File
	var err error
	if name == "-" {
		f, err = Open(context.Background(), "-", format, strings.NewReader(content))
	} else {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err = Open(context.Background(), path, format, nil)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return loadedOf(t, f), nil
}

// loadedOf takes the requests of f.
func loadedOf(t *testing.T, f *File) []loaded {
	t.Helper()
	var out []loaded
	for r := range f.Requests() {
		l := loaded{ID: r.ID, Name: r.Name, Session: r.SessionID, Args: r.Args, Line: r.Pos.Line, Col: r.Pos.Col}
		if r.Err != nil {
			// Strip the temporary directory from messages.
			l.Err = strings.ReplaceAll(r.Err.Error(), filepath.Dir(r.Pos.File)+string(filepath.Separator), "")
		}
		out = append(out, l)
	}
	if f.Err() != nil {
		t.Fatalf("stream error: %v", f.Err())
	}
	return out
}

func TestLoadShapesAndPositions(t *testing.T) {
	t.Parallel()
	sum12 := map[string]any{"a": int64(1), "b": int64(2)}
	tests := []struct {
		name, file, content string
		format              Format
		want                []loaded
	}{
		{"yaml wrapper", "r.yaml", `session_id: demo
requests:
  - id: call_1
    name: calculate_sum
    args: {a: 1, b: 2}
  - name: sleep
    input:
      seconds: 0.5
`, "", []loaded{
			{ID: "call_1", Name: "calculate_sum", Session: "demo", Args: sum12, Line: 3, Col: 5},
			{Name: "sleep", Session: "demo", Args: map[string]any{"seconds": 0.5}, Line: 6, Col: 5},
		}},
		{"yaml list", "r.yml", "# a comment\n- {name: calculate_sum, args: {a: 1, b: 2}}\n-   name: x\n    arguments: '{\"n\": [1, 2.5, \"s\"]}'\n", "", []loaded{
			{Name: "calculate_sum", Args: sum12, Line: 2, Col: 4},
			{Name: "x", Args: map[string]any{"n": []any{int64(1), 2.5, "s"}}, Line: 3, Col: 5},
		}},
		{"yaml single request", "r.yaml", "id: 7\nname: calculate_sum\nargs:\n  a: 1\n  b: 2\n", "", []loaded{
			{ID: "7", Name: "calculate_sum", Args: sum12, Line: 1, Col: 1},
		}},
		{"yaml anchors and merge keys", "r.yaml", "base: &b {a: 1}\n", "", []loaded{
			{Line: 1, Col: 1, Err: `r.yaml:1:1: unknown field "base": a request has id, name and args (or input, or arguments)`},
		}},
		{"yaml merge", "r.yaml", "- name: s\n  args: &x {a: 1, b: 5}\n- name: s\n  args: {<<: *x, b: 2}\n- name: s\n  args: {b: 2, <<: *x}\n", "", []loaded{
			{Name: "s", Args: map[string]any{"a": int64(1), "b": int64(5)}, Line: 1, Col: 3},
			{Name: "s", Args: sum12, Line: 3, Col: 3},
			{Name: "s", Args: sum12, Line: 5, Col: 3},
		}},
		{"yaml requests from anchors", "r.yaml", "- &base {name: s, args: {a: 1, b: 2}}\n- <<: *base\n  id: x\n  args: {a: 5}\n- *base\n- <<: [*base, {id: y}]\n", "", []loaded{
			{Name: "s", Args: sum12, Line: 1, Col: 3},
			{ID: "x", Name: "s", Args: map[string]any{"a": int64(5)}, Line: 2, Col: 3},
			{Name: "s", Args: sum12, Line: 5, Col: 3},
			{ID: "y", Name: "s", Args: sum12, Line: 6, Col: 3},
		}},
		{"yaml documents", "r.yaml", "name: a\n---\n- name: b\n", "", []loaded{
			{Name: "a", Line: 1, Col: 1},
			{Name: "b", Line: 3, Col: 3},
		}},
		{"yaml documents and their sessions", "r.yaml", "session_id: s1\nrequests:\n- name: a\n---\n- name: b\n---\nrequests:\n- name: c\nsession_id: s3\n", "", []loaded{
			{Name: "a", Session: "s1", Line: 3, Col: 3},
			{Name: "b", Line: 5, Col: 3},
			{Name: "c", Session: "s3", Line: 8, Col: 3},
		}},
		{"yaml wrappers after blank lines", "r.yaml", "session_id: s\nrequests:\n\n  # c\n  - name: a\n---\nrequests:\n\n  # c\n  [{name: b}]\nsession_id: t\n", "", []loaded{
			{Name: "a", Session: "s", Line: 5, Col: 5},
			{Name: "b", Session: "t", Line: 10, Col: 5},
		}},
		{"yaml block string and tags", "r.yaml", "name: echo\nargs:\n  text: |\n    two\n    lines\n  n: !!str 12\n  null: !!str null\n  tilde: !!str ~\n  x: !!str |\n  none: !!str\n", "", []loaded{
			{Name: "echo", Args: map[string]any{"text": "two\nlines\n", "n": "12", "null": "null", "tilde": "~", "none": "", "x": ""}, Line: 1, Col: 1},
		}},
		{"json wrapper", "r.json", `{"session_id": "s1", "requests": [
  {"id": "a", "name": "calculate_sum", "args": {"a": 1, "b": 2}},
    {"name": "t", "arguments": "{\"x\": true}"}
]}`, "", []loaded{
			{ID: "a", Name: "calculate_sum", Session: "s1", Args: sum12, Line: 2, Col: 3},
			{Name: "t", Session: "s1", Args: map[string]any{"x": true}, Line: 3, Col: 5},
		}},
		{"json list", "r.json", "[\n{\"name\": \"calculate_sum\", \"input\": {\"a\": 1, \"b\": 2}}, {\"name\": \"n\", \"args\": null}]", "", []loaded{
			{Name: "calculate_sum", Args: sum12, Line: 2, Col: 1},
			{Name: "n", Line: 2, Col: 55},
		}},
		{"json single", "r.json", "\n  {\"name\": \"calculate_sum\", \"type\": \"tool_use\", \"id\": \"toolu_1\", \"input\": {\"a\": 1, \"b\": 2}}", "", []loaded{
			{ID: "toolu_1", Name: "calculate_sum", Args: sum12, Line: 2, Col: 3},
		}},
		{"json numbers keep their digits", "r.json", `{"name": "n", "args": {"big": 9007199254740993, "huge": 18446744073709551616, "f": -1.5e3, "i": -0}}`, "", []loaded{
			{Name: "n", Args: map[string]any{"big": int64(9007199254740993), "huge": 18446744073709551616.0, "f": -1500.0, "i": int64(0)}, Line: 1, Col: 1},
		}},
		{"jsonl", "r.jsonl", "{\"id\": \"1\", \"name\": \"calculate_sum\", \"args\": {\"a\": 1, \"b\": 2}}\n\n  {\"name\": \"s\"}\r\n{\"name\": \"x\", \"arguments\": {\"k\": \"v\"}}", "", []loaded{
			{ID: "1", Name: "calculate_sum", Args: sum12, Line: 1, Col: 1},
			{Name: "s", Line: 3, Col: 3},
			{Name: "x", Args: map[string]any{"k": "v"}, Line: 4, Col: 1},
		}},
		{"jsonl bad lines go on", "r.ndjson", "{\"name\": \"a\"}\n{\"name\": \"b\",}\n[1]\n{\"name\": 5, \"args\": [], \"x\": 1}\n{\"name\": \"c\", \"args\": {}, \"input\": {}}\n{\"name\": \"d\"} x\n{\"name\": \"e\"}\n{} {}\n", "", []loaded{
			{Name: "a", Line: 1, Col: 1},
			{Name: "b", Line: 2, Col: 1, Err: `r.ndjson:2:13: not a JSON request: invalid character ',' at start of value`},
			{Line: 3, Col: 1, Err: `r.ndjson:3:1: expected a request object {"name": ..., "args": {...}}, got array of 1 item`},
			{Line: 4, Col: 1, Err: `r.ndjson:4:1: name: expected a string, got number 5; args: expected an object, got array of 0 items; unknown field "x": a request has id, name and args (or input, or arguments)`},
			{Name: "c", Args: map[string]any{}, Line: 5, Col: 1, Err: `r.ndjson:5:1: both "args" and "input" given: a request has one of args, input, arguments`},
			{Name: "d", Line: 6, Col: 1, Err: `r.ndjson:6:15: not a JSON request: invalid character 'x' at start of value`},
			{Name: "e", Line: 7, Col: 1},
			{Line: 8, Col: 1, Err: `r.ndjson:8:4: not a JSON request: invalid character '{' after top-level value`},
		}},
		{"jsonl keys given twice", "r.jsonl", `{"name": "a", "name": "b"}` + "\n" + `{"name": "a", "args": {"x": 1, "x": 2}}` + "\n" + `{"name": "a", "arguments": "{\"x\": 1, \"x\": 2}"}`, "", []loaded{
			{Name: "a", Line: 1, Col: 1, Err: `r.jsonl:1:15: not a JSON request: duplicate key "name" in an object`},
			{Name: "a", Line: 2, Col: 1, Err: `r.jsonl:2:32: not a JSON request: duplicate key "x" in an object`},
			{Name: "a", Line: 3, Col: 1, Err: `r.jsonl:3:1: arguments: not a JSON-encoded object: at offset 9: duplicate key "x" in an object`},
		}},
		{"typo gets a suggestion", "r.jsonl", `{"name": "a", "arg": {}}`, "", []loaded{
			{Name: "a", Line: 1, Col: 1, Err: `r.jsonl:1:1: unknown field "arg": a request has id, name and args (or input, or arguments) (did you mean "args"?)`},
		}},
		{"arguments that are not an object", "r.jsonl", `{"name": "a", "arguments": "[1]"}` + "\n" + `{"name": "b", "arguments": "{\"a\":"}`, "", []loaded{
			{Name: "a", Line: 1, Col: 1, Err: `r.jsonl:1:1: arguments: expected a JSON-encoded object, got "[1]"`},
			{Name: "b", Line: 2, Col: 1, Err: `r.jsonl:2:1: arguments: not a JSON-encoded object: at offset 5: unexpected end of JSON input`},
		}},
		{"openai tool calls", "r.jsonl", `{"id": "call_abc", "type": "function", "function": {"name": "calculate_sum", "arguments": "{\"a\": 1, \"b\": 2}"}}` + "\n" +
			`{"name": "a", "function": {"name": "b", "arguments": {}, "x": 1}, "args": {}}` + "\n" + `{"function": "f"}`, "", []loaded{
			{ID: "call_abc", Name: "calculate_sum", Args: sum12, Line: 1, Col: 1},
			{Name: "a", Args: map[string]any{}, Line: 2, Col: 1, Err: `r.jsonl:2:1: both "name" and "function.name" given: a request names its tool once; ` +
				`unknown field "x" in function: an OpenAI tool call's function has name and arguments; ` +
				`both "function.arguments" and "args" given: a request has one of args, input, arguments`},
			{Line: 3, Col: 1, Err: `r.jsonl:3:1: function: expected an object {"name": ..., "arguments": "..."}, as in an OpenAI tool call, got string "f"`},
		}},
		{"arguments empty", "r.jsonl", `{"name": "a", "arguments": ""}` + "\n" + `{"name": "b", "arguments": " "}`, "", []loaded{
			{Name: "a", Line: 1, Col: 1}, {Name: "b", Line: 2, Col: 1},
		}},
		{"forced format", "requests.txt", "- name: a\n", FormatYAML, []loaded{{Name: "a", Line: 1, Col: 3}}},
		{"stdin sniffs jsonl", "-", "{\"name\": \"a\"}\n{\"name\": \"b\"}\n", "", []loaded{
			{Name: "a", Line: 1, Col: 1}, {Name: "b", Line: 2, Col: 1},
		}},
		{"stdin sniffs json", "-", "{\n \"name\": \"a\"\n}\n", "", []loaded{{Name: "a", Line: 1, Col: 1}}},
		{"stdin sniffs a json list", "-", " [{\"name\": \"a\"}]", "", []loaded{{Name: "a", Line: 1, Col: 3}}},
		{"stdin sniffs yaml", "-", "- name: a\n  args: {a: 1}\n", "", []loaded{{Name: "a", Args: map[string]any{"a": int64(1)}, Line: 1, Col: 3}}},
		{"stdin sniffs yaml in flow style", "-", "{name: a, args: {x: 1}}\n", "", []loaded{{Name: "a", Args: map[string]any{"x": int64(1)}, Line: 1, Col: 2}}},
		{"stdin sniffs a yaml flow list", "-", "[{name: a}, {name: b}]", "", []loaded{{Name: "a", Line: 1, Col: 3}, {Name: "b", Line: 1, Col: 14}}},
		{"stdin sniffs a json wrapper on one line", "-", `{"session_id": "s", "requests": [{"name": "a"}, {"name": "b"}]}` + "\n", "", []loaded{
			{Name: "a", Session: "s", Line: 1, Col: 34}, {Name: "b", Session: "s", Line: 1, Col: 49},
		}},
		{"json with a byte order mark", "r.json", "\uFEFF[{\"name\": \"a\"}]", "", []loaded{{Name: "a", Line: 1, Col: 2}}},
		{"jsonl with a byte order mark", "r.jsonl", "\uFEFF{\"name\": \"a\"}\r\n{\"name\": \"b\"}\r\n", "", []loaded{
			{Name: "a", Line: 1, Col: 1}, {Name: "b", Line: 2, Col: 1},
		}},
		{"yaml with a byte order mark", "r.yaml", "\uFEFFname: a\r\n", "", []loaded{{Name: "a", Line: 1, Col: 1}}},
		{"stdin with a byte order mark", "-", "\uFEFF{\"name\": \"a\"}\n", "", []loaded{{Name: "a", Line: 1, Col: 1}}},
		{"jsonl joined from files with byte order marks", "r.jsonl", "\uFEFF{\"name\": \"a\"}\n\uFEFF{\"name\": \"b\"}\n", "", []loaded{
			{Name: "a", Line: 1, Col: 1}, {Name: "b", Line: 2, Col: 4},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := loadString(t, tt.file, tt.content, tt.format)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("requests mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadFileErrors(t *testing.T) {
	t.Parallel()
	laughs := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 'b'; i <= 'j'; i++ {
		prev := string(i - 1)
		laughs += string(i) + ": &" + string(i) + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
	}
	laughs = "- name: lol\n  args:\n" + indent(laughs, "    ") + "    z: *j\n"
	tests := []struct {
		name, file, content string
		err                 string // a regexp
		snippet             string // a regexp, when the error shows the line
	}{
		{"malformed yaml", "bad.yaml", "- name: a\n  args: {a: 1\n- name: b\n", `^.*bad\.yaml:\d+:\d+: invalid YAML: `, `\| `},
		{"yaml with a tab", "bad.yaml", "name: a\nargs:\n\ta: 1\n", `bad\.yaml:3:\d+: invalid YAML`, ""},
		{"yaml scalar", "bad.yaml", "hello\n", `bad\.yaml:1:1: expected a request, a list of requests, or \{session_id: \.\.\., requests: \[\.\.\.\]\}, got string "hello"`, `^ 1 \| hello\n   \| \^$`},
		{"yaml unknown wrapper key", "bad.yaml", "session_id: s\nrequest: []\nrequests: []\n", `bad\.yaml:2:1: unknown key "request"`, ""},
		{"yaml requests not a list", "bad.yaml", "requests: {name: a}\n", `bad\.yaml:1:11: requests: expected a list of requests, got object`, ""},
		{"yaml session not a string", "bad.yaml", "session_id: [1]\nrequests: []\n", `bad\.yaml:1:13: session_id: expected a string, got array of 1 item`, ""},
		{"yaml alias bomb", "bomb.yaml", laughs, `bomb\.yaml:\d+:\d+: invalid YAML: more than 1048576 values`, ""},
		{"yaml deep flow nesting", "deep.yaml", "name: a\nargs: {x: " + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}\n", `deep\.yaml:2:\d+: invalid YAML: nesting deeper than 200 levels`, ""},
		{"yaml deep block nesting", "deep.yaml", "name: a\nargs:\n  x:\n" + deepBlock(300), `deep\.yaml:\d+:\d+: invalid YAML: nesting deeper than 200 levels`, ""},
		{"yaml deep dash nesting", "deep.yaml", "- name: a\n  args:\n    x: " + strings.Repeat("- ", 5000) + "x\n", `deep\.yaml:3:\d+: invalid YAML: nesting deeper than 1000 columns`, ""},
		{"yaml deep through an alias", "deep.yaml", "name: a\nargs:\n  a: &a " + strings.Repeat("[", 150) + strings.Repeat("]", 150) +
			"\n  b: " + strings.Repeat("[", 60) + "*a" + strings.Repeat("]", 60) + "\n", `deep\.yaml:4:66: invalid YAML: nesting deeper than 200 levels`, ""},
		{"yaml deep through aliases", "deep.yaml", "name: a\nargs:\n  a: &a " + strings.Repeat("[", 90) + strings.Repeat("]", 90) +
			"\n  b: &b " + strings.Repeat("[", 90) + "*a" + strings.Repeat("]", 90) + "\n  c: " + strings.Repeat("[", 30) + "*b" + strings.Repeat("]", 30) + "\n",
			`deep\.yaml:5:36: invalid YAML: nesting deeper than 200 levels`, ""},
		{"yaml unknown alias", "bad.yaml", "name: a\nargs: {x: *nope}\n", `bad\.yaml:2:\d+: invalid YAML`, ""},
		{"yaml mistake before a long line", "bad.yaml", "- name: a\n  args: {a: [}\n- name: b\n  s: " + strings.Repeat("x", 1<<20+1) + "\n",
			`bad\.yaml:2:\d+: invalid YAML`, ""},
		{"yaml mistake before a large request", "bad.yaml", "- name: a\n  args: {a: [}\n- name: b\n  s: |\n" + strings.Repeat("    some text of a line\n", 60000),
			`bad\.yaml:2:\d+: invalid YAML`, ""},
		{"yaml mistake chunks before a long line", "bad.yaml", "- name: a\n  args: {a: [}\n" + strings.Repeat("- name: c\n  args: {k: 1}\n", 200) +
			"- name: b\n  s: " + strings.Repeat("x", 1<<20+1) + "\n", `bad\.yaml:2:\d+: invalid YAML`, ""},
		{"malformed json", "bad.json", "[\n  {\"name\": \"a\"},\n  {\"name\": \"b\" \"args\": {}}\n]", `bad\.json:3:16: invalid JSON: invalid character '"' after object value \(expecting ',' or '\}'\)$`, `^ 3 \|   \{"name": "b" "args": \{\}\}\n   \|                \^$`},
		{"truncated json", "bad.json", "[{\"name\": \"a\"", `bad\.json:1:14: invalid JSON: unexpected end of JSON input`, ""},
		{"json deep nesting", "deep.json", `{"name": "a", "args": {"x": ` + strings.Repeat("[", 100000), `deep\.json:1:\d+: invalid JSON: nesting deeper than 200 levels`, ""},
		{"json deep nesting in a list", "deep.json", `[{"name": "a", "args": {"x": ` + strings.Repeat("[", 300), `deep\.json:1:\d+: invalid JSON: nesting deeper than 200 levels$`, ""},
		{"json deep nesting in a wrapper", "deep.json", `{"requests": [{"name": "a", "args": {"x": ` + strings.Repeat("[", 300), `deep\.json:1:\d+: invalid JSON: nesting deeper than 200 levels$`, ""},
		{"json number", "bad.json", `{"name": "a", "args": {"x": 1e999}}`, `bad\.json:1:29: invalid JSON: number 1e999 is out of range`, ""},
		{"json unknown wrapper key", "bad.json", `{"requests": [], "sessionid": "x"}`, `bad\.json:1:1: unknown key "sessionid"`, ""},
		{"json scalar", "bad.json", `"x"`, `bad\.json:1:1: expected a request, a list of requests`, ""},
		{"json requests not a list", "bad.json", "{\"session_id\": \"s\",\n \"requests\": {\"name\": \"a\"}}", `bad\.json:2:14: requests: expected a list of requests, got object`, `^ 2 \|  "requests": \{"name": "a"\}\}\n   \|              \^$`},
		{"json session not a string", "bad.json", `{"session_id": [1], "requests": []}`, `bad\.json:1:1: session_id: expected a string, got array of 1 item`, ""},
		{"json request key twice", "bad.json", `[{"name": "a", "args": {}, "name": "b"}]`, `bad\.json:1:28: invalid JSON: duplicate key "name" in an object`, ""},
		{"json argument twice", "bad.json", `{"name": "a", "args": {"x": 1, "x": 2}}`, `bad\.json:1:32: invalid JSON: duplicate key "x" in an object`, ""},
		{"json wrapper key twice", "bad.json", `{"requests": [], "requests": [{"name": "a"}]}`, `bad\.json:1:18: invalid JSON: duplicate key "requests"`, ""},
		{"yaml key twice", "bad.yaml", "name: a\nargs: {x: 1, x: 2}\n", `bad\.yaml:2:\d+: invalid YAML: mapping key "x" already defined \(first at line 2, column 8\)$`, ""},
		{"yaml key twice in a list", "bad.yaml", "- name: a\n- name: b\n  args:\n    x: 1\n    x: 2\n", `bad\.yaml:5:5: invalid YAML: mapping key "x" already defined \(first at line 4, column 5\)$`, ""},
		{"yaml key twice after a wrapper's list", "bad.yaml", "requests:\n- name: a\nx: 1\nx: 2\n", `bad\.yaml:4:1: invalid YAML: mapping key "x" already defined \(first at line 3, column 1\)$`, ""},
		{"yaml key twice as JSON", "bad.yaml", "name: a\nargs:\n  0x1: a\n  1: b\n", `bad\.yaml:4:3: invalid YAML: mapping key "1" already defined$`, ""},
		{"yaml null key twice", "bad.yaml", "- name: a\n  args: {k: {~: a, null: b}}\n", `bad\.yaml:2:20: invalid YAML: mapping key "null" already defined$`, ""},
		{"yaml request key twice as JSON", "bad.yaml", "- name: a\n- name: b\n  1.0: x\n  1: y\n", `bad\.yaml:4:3: invalid YAML: mapping key "1" already defined$`, ""},
		{"yaml key after a list", "bad.yaml", "session_id: s\nrequests:\n  - name: a\n\n  - name: b\nsesion: x\n", `bad\.yaml:6:1: unknown key "sesion"`, `^ 6 \| sesion: x\n   \| \^$`},
		{"yaml session after a list", "bad.yaml", "requests:\n  - name: a\n  - name: b\n# the session\nsession_id: [1]\n", `bad\.yaml:5:13: session_id: expected a string, got array of 1 item`, `^ 5 \| session_id: \[1\]`},
		{"yaml requests after a list", "bad.yaml", "requests:\n- name: a\n- name: b\nrequests: []\n", `bad\.yaml:4:1: invalid YAML: mapping key "requests" already defined`, ""},
		{"yaml requests before a list", "bad.yaml", "requests: []\nrequests:\n- name: a\n", `bad\.yaml:2:1: invalid YAML: mapping key "requests" already defined`, ""},
		{"yaml infinity", "bad.yaml", "- name: a\n  args: {x: 1, y: -.inf}\n", `bad\.yaml:2:19: -\.inf: a request holds JSON values, and JSON has no infinity or NaN$`, `\| +\^$`},
		{"yaml not a number", "bad.yaml", "name: a\nargs:\n  x: [.nan]\n", `bad\.yaml:3:7: \.nan: a request holds JSON values`, ""},
		{"yaml aliases past the largest request", "big.yaml", "- name: a\n  args:\n    s: &s " + strings.Repeat("x", 60000) + "\n    l: [" + strings.Repeat("*s, ", 300) + "*s]\n",
			`big\.yaml:1:3: a request larger than 16 MiB`, ""},
		{"yaml aliases that outgrow the file", "huge.yaml", "- name: a\n  args: {s: &s " + strings.Repeat("x", 100<<10) + "}\n" +
			strings.Repeat("- name: b\n  args: {l: ["+strings.Repeat("*s, ", 16)+"*s]}\n", 100),
			`huge\.yaml:\d+:3: invalid YAML: aliases expand the requests to more than \d+(\.\d)? MiB of JSON`, ""},
		{"json list without a comma", "bad.json", `[{"name": "a"} {"name": "b"}]`, `bad\.json:1:16: invalid JSON: invalid character '\{' after array element \(expecting ',' or '\]'\)$`, ""},
		{"json list item closed as an object", "bad.json", `[{}}`, `bad\.json:1:4: invalid JSON: invalid character '\}' after array element \(expecting ',' or '\]'\)$`, ""},
		{"json wrapper member too large", "big.json", `{"requests": [{}], "x": "` + strings.Repeat("x", 17<<20) + `"}`, `big\.json:1:25: a request larger than 16 MiB`, ""},
		{"json object without a colon", "bad.json", `{"name" "a"}`, `bad\.json:1:9: invalid JSON: invalid character '"' after object name \(expecting ':'\)$`, ""},
		{"json escape", "bad.json", `{"name": "a\q"}`, `bad\.json:1:12: invalid JSON: invalid escape sequence in string$`, ""},
		{"json character past ascii", "bad.json", `[1, é]`, `bad\.json:1:5: invalid JSON: invalid character '\\xc3' at start of value$`, ""},
		{"json after the end", "bad.json", "[]\n\n  ]", `bad\.json:3:3: invalid JSON: invalid character '\]' at start of value$`, `^ 3 \|   \]\n   \|   \^$`},
		{"unknown extension", "r.txt", "- name: a", `unknown extension "\.txt"`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadString(t, tt.file, tt.content, "")
			if err == nil || !regexp.MustCompile(tt.err).MatchString(err.Error()) {
				t.Fatalf("error = %v, want one matching %q", err, tt.err)
			}
			if tt.snippet != "" {
				var pe *ParseError
				if !errors.As(err, &pe) || !regexp.MustCompile(tt.snippet).MatchString(pe.Snippet()) {
					t.Errorf("snippet = %q, want one matching %q", pe.Snippet(), tt.snippet)
				}
			}
		})
	}
}

func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

func deepBlock(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", 4+i) + "k:\n")
	}
	b.WriteString(strings.Repeat(" ", 4+n) + "v\n")
	return b.String()
}

func TestLoadJSONLLongLine(t *testing.T) {
	t.Parallel()
	long := `{"name": "a", "args": {"x": "` + strings.Repeat("y", MaxLine) + `"}}`
	got, err := loadString(t, "r.jsonl", "{\"name\": \"first\"}\n"+long+"\n{\"name\": \"last\"}\n", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []loaded{
		{Name: "first", Line: 1, Col: 1},
		{Line: 2, Col: 1, Err: "r.jsonl:2:1: line longer than 16777216 bytes"},
		{Name: "last", Line: 3, Col: 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadUnreadable(t *testing.T) {
	t.Parallel()
	if _, err := Open(context.Background(), filepath.Join(t.TempDir(), "missing.yaml"), "", nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error = %v, want not exist", err)
	}
	if _, err := Open(context.Background(), t.TempDir(), FormatJSON, nil); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: error = %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Format{"": "", "YAML": FormatYAML, "yml": FormatYAML, "json": FormatJSON, "ndjson": FormatJSONL, "jsonl": FormatJSONL} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseFormat("xml"); err == nil {
		t.Errorf("ParseFormat(xml) succeeded")
	}
}

// BenchmarkParseRequestLine is one JSON Lines request, parsed: by the
// request parser, and by encoding/json as it would have to be used to
// give the same request (numbers as json.Number made int64 where they are
// integers; keys given twice are not even seen). The batch path takes
// about 3 µs a request in all, within 1.5 times a loop that decodes with
// encoding/json into a struct (bench/limit); the difference here is what
// the parser is for (bench/RESULTS.md).
func BenchmarkParseRequestLine(b *testing.B) {
	line := []byte(`{"id": "call_12345", "name": "calculate_sum", "args": {"a": 12345, "b": 67890}}`)
	pos := yamlpos.Pos{File: "batch.jsonl", Line: 1, Col: 1}
	b.Run("parser", func(b *testing.B) {
		p := &jsonParser{}
		b.ReportAllocs()
		for b.Loop() {
			if r := parseRequestLine(p, line, pos); r.Err != nil {
				b.Fatal(r.Err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		var ints func(v any) any
		ints = func(v any) any {
			switch x := v.(type) {
			case json.Number:
				if n, err := x.Int64(); err == nil {
					return n
				}
				f, _ := x.Float64()
				return f
			case map[string]any:
				for k, e := range x {
					x[k] = ints(e)
				}
			case []any:
				for i, e := range x {
					x[i] = ints(e)
				}
			}
			return v
		}
		b.ReportAllocs()
		for b.Loop() {
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.UseNumber()
			var m map[string]any
			if err := dec.Decode(&m); err != nil {
				b.Fatal(err)
			}
			rb := &requestBuilder{req: &Request{Pos: pos}}
			for _, k := range slices.Sorted(maps.Keys(m)) {
				rb.set(k, ints(m[k]))
			}
			if r := rb.finish(); r.Err != nil {
				b.Fatal(r.Err)
			}
		}
	})
}

// TestSniffDoesNotWaitForMoreThanALine checks that sniffing standard input
// reads no further than its first line: a stream's first request must not
// wait for the next.
func TestSniffDoesNotWaitForMoreThanALine(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	// The writer never closes the pipe nor ends the second request: a
	// sniffer that waits for more than the first line blocks for ever, and
	// the test binary's -timeout reports it with every goroutine's stack
	// (no clock of our own, which a loaded machine could outrun).
	go pw.Write([]byte("\n  {\"name\": \"a\"}\n{\"name\": \"b\""))
	f, err := Open(context.Background(), "-", "", pr)
	if err != nil {
		t.Fatal(err)
	}
	if f.Format != FormatJSONL {
		t.Errorf("format = %q, want jsonl", f.Format)
	}
}

// TestCountMatchesTheRequests checks that File.Count, which counts lines
// without parsing them, agrees with the requests a file yields.
func TestCountMatchesTheRequests(t *testing.T) {
	t.Parallel()
	long := `{"name": "a", "args": {"s": "` + strings.Repeat("x", 600<<10) + `"}}`
	tests := []struct {
		name, file, content string
		want                int64
	}{
		{"jsonl", "r.jsonl", "{\"name\": \"a\"}\n\n  \t\r\n{\"name\": \"b\"}\r\nnot json\n{\"name\": \"c\"}", 4},
		{"byte order mark", "r.jsonl", "\uFEFF\n{\"name\": \"a\"}\n", 1},
		{"lines longer than the buffer", "r.jsonl", long + "\n\n" + long + "\n  " + long, 3},
		{"yaml", "r.yaml", "- name: a\n- name: b\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(context.Background(), path, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			n, err := f.Count(context.Background())
			if err != nil || n != tt.want {
				t.Errorf("Count = %d, %v; want %d", n, err, tt.want)
			}
			var got int64
			for range f.Requests() {
				got++
			}
			if got != n {
				t.Errorf("Count = %d, but the file yields %d requests", n, got)
			}
		})
	}
	f, err := Open(context.Background(), "-", FormatJSONL, strings.NewReader("{\"name\": \"a\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := f.Count(context.Background()); n != -1 || err != nil {
		t.Errorf("Count of standard input = %d, %v; want -1: it cannot be read twice", n, err)
	}
}

// TestWholeFilesStream reads long YAML and JSON files, lists and
// wrappers: every request in order, and a wrapper's session_id that comes
// after its requests reaches them. (That memory stays flat however long
// the file is, bench/compare.sh measures.)
func TestWholeFilesStream(t *testing.T) {
	t.Parallel()
	const n = 60000
	var yamlList, yamlWrapper, jsonList, jsonWrapper strings.Builder
	yamlWrapper.WriteString("requests:\n")
	jsonList.WriteString("[\n")
	jsonWrapper.WriteString(`{"requests": [`)
	for i := range n {
		fmt.Fprintf(&yamlList, "- id: call_%d\n  name: calculate_sum\n  args: {a: %d, b: 2}\n", i, i)
		fmt.Fprintf(&yamlWrapper, "  - id: call_%d\n    name: calculate_sum\n    args:\n      a: %d\n      b: 2\n", i, i)
		sep := ",\n"
		if i == n-1 {
			sep = "\n"
		}
		fmt.Fprintf(&jsonList, `{"id": "call_%d", "name": "calculate_sum", "args": {"a": %d, "b": 2}}%s`, i, i, sep)
		fmt.Fprintf(&jsonWrapper, `{"id": "call_%d", "name": "calculate_sum", "args": {"a": %d, "b": 2}}%s`, i, i, strings.TrimSpace(sep))
	}
	yamlWrapper.WriteString("session_id: late\n")
	jsonList.WriteString("]\n")
	jsonWrapper.WriteString(`], "session_id": "late"}`)
	tests := []struct {
		name, file, content, session string
	}{
		{"yaml list", "r.yaml", yamlList.String(), ""},
		{"yaml wrapper", "r.yaml", yamlWrapper.String(), "late"},
		{"json list", "r.json", jsonList.String(), ""},
		{"json wrapper", "r.json", jsonWrapper.String(), "late"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Open(context.Background(), path, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Len() != n {
				t.Errorf("Len = %d, want %d", f.Len(), n)
			}
			got := 0
			for r := range f.Requests() {
				if r.Err != nil || r.SessionID != tt.session || r.ID != fmt.Sprint("call_", got) {
					t.Fatalf("request %d: %+v, session %q", got, r, r.SessionID)
				}
				got++
			}
			if f.Err() != nil || got != n {
				t.Errorf("%d requests, error %v; want %d", got, f.Err(), n)
			}
		})
	}
}

// TestYAMLPathologicalShapes loads the shapes that took goccy/go-yaml
// minutes or gigabytes: each is read in time linear in its size, or
// refused with a message that says why and what to do.
func TestYAMLPathologicalShapes(t *testing.T) {
	t.Parallel()
	manyKeys := func(n int) string {
		var b strings.Builder
		b.WriteString("- name: a\n  args:\n")
		for i := range n {
			fmt.Fprintf(&b, "    k%d: 1\n", i)
		}
		return b.String()
	}
	tests := []struct {
		name, content string
		requests      int
		err           string
	}{
		{"400,000 dashes", strings.Repeat("-\n", 400000), 400000, ""},
		{"a flow list of ten thousand", "- name: a\n  args: {c: [" + strings.Repeat("1,", 10000) + "1]}\n", 1, ""},
		{"a flow list of a million", "- name: a\n  args: {c: [" + strings.Repeat("1,", 1<<20) + "1]}\n", 0,
			"r.yaml:2:1: a line longer than 1 MiB: write a large request as JSON"},
		{"5,000 keys", manyKeys(5000), 1, ""},
		{"20,000 keys", manyKeys(20000), 0, "r.yaml:1:1: a request of more than 32768 YAML tokens: write a large request as JSON"},
		{"a large block scalar", "- name: a\n  args:\n    s: |\n" + strings.Repeat("      "+strings.Repeat("x", 100)+"\n", 11000), 0,
			"r.yaml:1: a request larger than 1 MiB of YAML: write a large request as JSON"},
		{"a deep block list", strings.Repeat("- ", 150) + "x\n", 1, ""},
		// After small items, a large one is refused at its own line.
		{"20,000 keys after others", "- name: a\n- name: b\n" + manyKeys(20000), 0,
			"r.yaml:3:1: a request of more than 32768 YAML tokens"},
		{"a large block scalar after others", "- name: a\n- name: a\n  args:\n    s: |\n" + strings.Repeat("      "+strings.Repeat("x", 100)+"\n", 11000), 0,
			"r.yaml:2: a request larger than 1 MiB of YAML"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := loadString(t, "r.yaml", tt.content, "")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || len(got) != tt.requests {
				t.Fatalf("%d requests, error %v; want %d", len(got), err, tt.requests)
			}
		})
	}
}

// TestOpenStopsWhenCancelled checks that the reading of a YAML or JSON
// file, before anything runs, ends when its context is cancelled
// (an interrupt), however long the file.
func TestOpenStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, content := range map[string]string{
		"r.yaml": strings.Repeat("- name: a\n", 5000),
		"r.json": "[" + strings.Repeat(`{"name": "a"},`, 5000) + `{"name": "a"}]`,
	} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(ctx, path, "", nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error = %v, want the context's", name, err)
		}
	}
}

// TestNumbersReadAlike checks that YAML and JSON read the same numbers
// the same way: 1e2 is a number in both (goccy/go-yaml left it a string),
// and an id of 2^63 or more is taken as its digits in both, or refused in
// both beyond 2^64.
func TestNumbersReadAlike(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		yaml, json string
		want       loaded
	}{
		{"- name: a\n  args: {x: 1e2, y: -2E-1, z: 1_000}\n", `[{"name": "a", "args": {"x": 1e2, "y": -2E-1, "z": 1000}}]`,
			loaded{Name: "a", Args: map[string]any{"x": 100.0, "y": -0.2, "z": int64(1000)}}},
		{"- id: 9223372036854775808\n  name: a\n", `[{"id": 9223372036854775808, "name": "a"}]`,
			loaded{ID: "9223372036854775808", Name: "a"}},
		{"- id: 18446744073709551615\n  name: a\n", `[{"id": 18446744073709551615, "name": "a"}]`,
			loaded{ID: "18446744073709551615", Name: "a"}},
		{"- id: 18446744073709551616\n  name: a\n", `[{"id": 18446744073709551616, "name": "a"}]`,
			loaded{Name: "a", Err: "id: expected a string, got number 18446744073709552000"}},
	} {
		for _, c := range []struct{ file, content string }{{"r.yaml", tt.yaml}, {"r.json", tt.json}} {
			got, err := loadString(t, c.file, c.content, "")
			if err != nil || len(got) != 1 {
				t.Fatalf("%s: %v, %v", c.content, got, err)
			}
			got[0].Line, got[0].Col = 0, 0
			if _, msg, ok := strings.Cut(got[0].Err, ": "); ok {
				got[0].Err = msg
			}
			if diff := cmp.Diff(tt.want, got[0]); diff != "" {
				t.Errorf("%s: mismatch (-want +got):\n%s", c.content, diff)
			}
		}
	}
}

// TestJSONLinesThatAreJSON checks that a .jsonl file of pretty-printed
// JSON is refused with what it is, rather than read as one baffling bad
// request per line.
func TestJSONLinesThatAreJSON(t *testing.T) {
	t.Parallel()
	for _, content := range []string{"{\n  \"name\": \"a\"\n}\n", "\n[\n  {\"name\": \"a\"}\n]\n", "{\"requests\": [\n{\"name\": \"a\"}]}\n"} {
		_, err := loadString(t, "r.jsonl", content, "")
		if err == nil || !strings.Contains(err.Error(), "this looks like JSON, not JSON Lines") {
			t.Errorf("%q: error = %v, want one saying it is JSON", content, err)
		}
	}
	// A bad first line of real JSON Lines is a bad request, not a file of JSON.
	got, err := loadString(t, "r.jsonl", "{\"name\": \"a\",}\n{\"name\": \"b\"}\n", "")
	if err != nil || len(got) != 2 || got[0].Err == "" {
		t.Errorf("got %v, %v; want a bad request and a good one", got, err)
	}
}

// benchFile writes n calculate_sum requests in the format of name, as
// bench/compare.sh does: the 4 MiB YAML file of the speed targets at
// n = 60,000.
func benchFile(b *testing.B, name string, n int) string {
	var s strings.Builder
	switch filepath.Ext(name) {
	case ".yaml":
		for i := range n {
			fmt.Fprintf(&s, "- id: call_%d\n  name: calculate_sum\n  args: {a: %d, b: %d}\n", i+1, i+1, 2*(i+1))
		}
	case ".json":
		s.WriteString("[\n")
		for i := range n {
			sep := ",\n"
			if i == n-1 {
				sep = "\n]\n"
			}
			fmt.Fprintf(&s, `{"id": "call_%d", "name": "calculate_sum", "args": {"a": %d, "b": %d}}%s`, i+1, i+1, 2*(i+1), sep)
		}
	}
	path := filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(s.Len()))
	return path
}

// BenchmarkLoadYAML opens the 4 MiB YAML file of 60,000 requests (read,
// checked and spooled) and takes its requests (from the spool): what
// kesoku run spends on the file before and while running it.
func BenchmarkLoadYAML(b *testing.B) { benchmarkLoad(b, "r.yaml") }

// BenchmarkLoadJSON is BenchmarkLoadYAML for a JSON list of the same
// 60,000 requests.
func BenchmarkLoadJSON(b *testing.B) { benchmarkLoad(b, "r.json") }

func benchmarkLoad(b *testing.B, name string) {
	path := benchFile(b, name, 60000)
	b.ReportAllocs()
	for b.Loop() {
		f, err := Open(context.Background(), path, "", nil)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for range f.Requests() {
			n++
		}
		if n != 60000 || f.Err() != nil {
			b.Fatal(n, f.Err())
		}
	}
}

// TestSniffALongFirstLine checks that standard input is sniffed from its
// first value however long it is: a first JSON Lines request longer than
// a read buffer (64 KiB) was taken for the start of a JSON document, and
// the run failed where the same lines in a .jsonl file ran.
func TestSniffALongFirstLine(t *testing.T) {
	t.Parallel()
	long := `{"name": "a", "args": {"s": "` + strings.Repeat("x", 100<<10) + `"}}`
	for _, content := range []string{long + "\n" + `{"name": "b"}` + "\n", "\n\n" + long + "\n\n" + `{"name": "b"}`} {
		got, err := loadString(t, "-", content, "")
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if len(got) != 2 || got[0].Name != "a" || got[0].Err != "" || got[1].Name != "b" || got[1].Line != got[0].Line+1+strings.Count(content, "\n\n")/2 {
			t.Errorf("got %+v, want requests a and b", got)
		}
	}
	// A first line longer than a request of JSON Lines may be is JSON.
	one := `{"name": "a", "args": {"s": "` + strings.Repeat("x", 1<<20) + `"}}`
	huge := `{"requests": [` + strings.Repeat(one+", ", 16) + `{"name": "b"}]}`
	got, err := loadString(t, "-", huge, "")
	if err != nil || len(got) != 17 || got[16].Name != "b" {
		t.Errorf("a wrapper on one line longer than MaxLine: %d requests, %v", len(got), err)
	}
}

// TestSpoolLeavesNothing checks that the spool of a YAML or JSON file,
// a temporary file, is gone as soon as it is made: an interrupted or
// killed run leaves nothing behind.
func TestSpoolLeavesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an open file cannot be removed: the spool goes on Close")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, name := range []string{"r.yaml", "r.json"} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(`[{"name": "a"}, {"name": "b"}]`), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Open(context.Background(), path, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(tmp); len(left) > 0 {
			t.Errorf("%s: %d files in the temporary directory while the requests are read", name, len(left))
		}
		n := 0
		for range f.Requests() {
			n++
		}
		if n != 2 || f.Len() != 2 {
			t.Errorf("%s: %d requests, Len %d; want 2", name, n, f.Len())
		}
		f.Close()
	}
}

// TestYAMLChunksKeepPositions checks that the items of a long list,
// parsed a few to a chunk, keep the places they were written at (in a
// list and in a wrapper, whose keys after the list are parsed on their
// own), and that an error in an item in the middle of a chunk names its
// own line.
func TestYAMLChunksKeepPositions(t *testing.T) {
	t.Parallel()
	for _, wrapper := range []bool{false, true} {
		var b strings.Builder
		type at struct{ line, col int }
		want := map[string]at{}
		line, in := 1, ""
		if wrapper {
			b.WriteString("requests:\n")
			line, in = 2, "  "
		}
		for i := range 300 {
			id := fmt.Sprint("r", i)
			switch i % 3 {
			case 0:
				fmt.Fprintf(&b, "%s- id: %s\n%s  name: a\n", in, id, in)
				want[id], line = at{line, len(in) + 3}, line+2
			case 1:
				fmt.Fprintf(&b, "%s# a comment\n\n%s- {id: %s, name: a}\n", in, in, id)
				want[id], line = at{line + 2, len(in) + 4}, line+3
			case 2:
				fmt.Fprintf(&b, "%s-\n%s  name: a\n%s  args:\n%s    s: |\n%s      %s\n%s  id: %s\n",
					in, in, in, in, in, strings.Repeat("x", 100), in, id)
				want[id], line = at{line + 1, len(in) + 3}, line+6
			}
		}
		if wrapper {
			b.WriteString("session_id: s\n")
		}
		got, err := loadString(t, "r.yaml", b.String(), "")
		if err != nil || len(got) != 300 {
			t.Fatalf("wrapper %v: %d requests, %v", wrapper, len(got), err)
		}
		for _, r := range got {
			if (at{r.Line, r.Col}) != want[r.ID] || r.Err != "" {
				t.Errorf("wrapper %v: %s at %d:%d (%s), want %v", wrapper, r.ID, r.Line, r.Col, r.Err, want[r.ID])
			}
		}
	}
	// A key given twice in the 200th item: the error is at its line.
	var list strings.Builder
	for i := range 300 {
		if i == 199 {
			list.WriteString("- name: a\n  name: b\n")
			continue
		}
		list.WriteString("- name: a\n")
	}
	_, err := loadString(t, "r.yaml", list.String(), "")
	if err == nil || !strings.Contains(err.Error(), "r.yaml:201:3:") {
		t.Errorf("error = %v, want one at 201:3", err)
	}
}

// TestLoadJSONReadError: a JSON file that cannot be read on says so, in
// the reader's own words, not as a mistake of the JSON.
func TestLoadJSONReadError(t *testing.T) {
	sp, err := newSpool()
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	errDisk := errors.New("input/output error")
	in := io.MultiReader(strings.NewReader(`[{"name": "a"}, {"na`), iotest.ErrReader(errDisk))
	err = (&File{Name: "r.json"}).loadJSON(context.Background(), in, sp)
	if !errors.Is(err, errDisk) || strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("error = %v, want the reader's %v", err, errDisk)
	}
}

// TestLoadJSONSpaceAfterARequest: the space after a request does not count
// against its size.
func TestLoadJSONSpaceAfterARequest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	big := `[{"name": "a", "args": {"x": "` + strings.Repeat("a", MaxLine-100) + `"}}` + strings.Repeat(" ", 300) + "]"
	if err := os.WriteFile(path, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(context.Background(), path, "", nil)
	if err != nil {
		t.Fatalf("a request under the limit followed by space: %v", err)
	}
	defer f.Close()
	if f.Len() != 1 {
		t.Errorf("Len = %d, want 1", f.Len())
	}
}

// TestOpenRefusesAFileOfNoRequests opens files that hold no request at
// all, in every format and on standard input: each is a mistake, said
// before anything runs, never a run of nothing.
func TestOpenRefusesAFileOfNoRequests(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, content string }{
		{"empty.jsonl", ""},
		{"blank.jsonl", "\n   \n\t\n"},
		{"empty.yaml", ""},
		{"comment.yaml", "# nothing yet\n"},
		{"list.yaml", "[]\n"},
		{"wrapper.yaml", "session_id: s\nrequests: []\n"},
		{"documents.yaml", "---\n# one\n---\n"},
		{"empty.json", ""},
		{"list.json", "[]"},
		{"wrapper.json", `{"session_id": "s", "requests": []}`},
		{"-", ""},
		{"-", "\n\n"},
		{"-", "[]\n"},
		{"-", "# a comment\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadString(t, tt.name, tt.content, "")
			var ee *EmptyError
			if !errors.As(err, &ee) {
				t.Fatalf("%q: error %v, want an *EmptyError", tt.content, err)
			}
			if want := `(^|/)` + regexp.QuoteMeta(strings.ReplaceAll(tt.name, "-", "<stdin>")) + ` holds no requests$`; !regexp.MustCompile(want).MatchString(err.Error()) {
				t.Errorf("error %q, want one matching %q", err, want)
			}
		})
	}
	// A file whose only request is an invalid one holds a request: it gets
	// its record.
	if _, err := loadString(t, "bad.jsonl", "not json\n", ""); err != nil {
		t.Errorf("a file of one bad line: %v", err)
	}
}

package request

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzJSONParser checks the request parser against encoding/json: the
// same inputs accepted, the same values decoded (integers aside, which it
// keeps as int64), except for nesting beyond maxDepth and keys given twice
// in an object, which it refuses.
func FuzzJSONParser(f *testing.F) {
	for _, s := range []string{`{"name":"a","args":{"a":1,"b":2.5}}`, `[1,-0,1e5,"x\u00e9\ud83d\ude00",null,true,false]`,
		`"\ud800"`, `"\xff"`, `{"a":{"b":[[]]}}`, `1e999`, ` 12345678901234567890 `, `"a\/b\\"`, `{"a":1,"a":2}`, `-`, `0.`, `01`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want any
		stdErr := json.Unmarshal(data, &want)
		got, err := new(jsonParser).parse(data)
		dup := err != nil && strings.Contains(err.Error(), "duplicate key")
		var je *syntaxError
		if err != nil && !errors.As(err, &je) {
			t.Fatalf("error of type %T: %v", err, err)
		}
		if err != nil && (je.Off < 0 || je.Off > len(data)) {
			t.Fatalf("error offset %d outside the input of %d bytes", je.Off, len(data))
		}
		if stdErr != nil {
			if err == nil {
				t.Fatalf("accepted what encoding/json refuses (%v): %q", stdErr, data)
			}
			return
		}
		if err != nil {
			if dup || strings.Contains(err.Error(), "nesting deeper") {
				return
			}
			t.Fatalf("refused what encoding/json accepts: %v: %q", err, data)
		}
		if diff := cmp.Diff(want, asFloats(got)); diff != "" {
			t.Fatalf("decoded mismatch (-encoding/json +ours):\n%s", diff)
		}
	})
}

// asFloats turns int64s into float64s, as encoding/json decodes numbers.
func asFloats(v any) any {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case map[string]any:
		for k, e := range x {
			x[k] = asFloats(e)
		}
	case []any:
		for i, e := range x {
			x[i] = asFloats(e)
		}
	case float64:
		if math.IsNaN(x) {
			panic("NaN from JSON")
		}
	}
	return v
}

// FuzzLoadJSON loads whole JSON files: an error or requests, never a panic
// or a hang, and every error with a position.
func FuzzLoadJSON(f *testing.F) {
	for _, s := range []string{`{"session_id":"s","requests":[{"name":"a","args":{}}]}`, `[{"name":"a"},{"id":1,"input":{"x":[1]}}]`,
		`[{"type":"tool_call","name":"a","content":{},"call_id":"c"},{"type":"text","content":"x"},{"type":"tool_result","parent_id":"c"}]`,
		`{"name":"a","arguments":"{\"x\":1}"}`, `{"requests":5}`, "[\n{\"name\": 1}\n", `[` + strings.Repeat(`[`, 300),
		"[\n  {\"name\": \"a\"},\n  {\"name\": \"b\" \"args\": {}}\n]", `{"requests": [], "requests": [{"name": "a"}]}`, `{"session_id": [1], "requests": []}`,
		`{"name": "a", "args": {"x": 1e999}}`, "[]\n\n  ]", `[{"name": "a"} {"name": "b"}]`, `{"session_id": "s", "x": {"y": [1, 2]}, "requests": [{"name": "a"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Open(context.Background(), "-", FormatJSON, bytes.NewReader(data))
		// Read in pieces of a byte, or a few, the file reads the same.
		jsonPiece = 1 + len(data)%3
		inPieces, piecesErr := Open(context.Background(), "-", FormatJSON, bytes.NewReader(data))
		jsonPiece = 64 << 10
		if fmt.Sprint(err) != fmt.Sprint(piecesErr) {
			t.Fatalf("read whole: %v; in pieces: %v", err, piecesErr)
		}
		if err == nil {
			if diff := cmp.Diff(loadedOf(t, file), loadedOf(t, inPieces)); diff != "" {
				t.Fatalf("read in pieces differently (-whole +in pieces):\n%s", diff)
			}
			file, _ = Open(context.Background(), "-", FormatJSON, bytes.NewReader(data))
		}
		var top any
		if json.Unmarshal(data, &top) != nil {
			checkLoad(t, file, err)
			return
		}
		// What encoding/json reads, the loader reads, or refuses for what
		// encoding/json lets through, or for a shape that is no file of
		// requests.
		if err != nil {
			for _, why := range []string{"duplicate key", "nesting deeper", "expected a request", "unknown key", "session_id: expected", "requests: expected", "larger than"} {
				if strings.Contains(err.Error(), why) {
					checkLoad(t, file, err)
					return
				}
			}
			t.Fatalf("refused what encoding/json reads: %v", err)
		}
		if list, ok := top.([]any); ok && file.Len() != len(list) {
			t.Fatalf("a list of %d read as %d requests", len(list), file.Len())
		}
		checkLoad(t, file, err)
	})
}

// FuzzLoadYAML loads whole YAML files: an error or requests, never a panic
// or a hang.
func FuzzLoadYAML(f *testing.F) {
	for _, s := range []string{"session_id: s\nrequests:\n  - name: a\n    args: {a: 1}\n", "- name: a\n  args: &x {a: 1}\n- name: b\n  args: *x\n",
		"a: &a [1]\nb: &b [*a, *a]\n", "name: a\nargs: {<<: [{a: 1}], b: !!str 2}\n", "--- \n- {name: a}\n---\nname: b\n", "[[[[", "? [a]\n: b\n",
		"name: |\n  x\n", "name: a\nargs: {x: .inf, y: .nan, z: 0x1f}\n", "&a a: *a\n",
		"- {type: tool_call, name: a, content: {x: 1}, call_id: c, session_id: s}\n- {type: text, content: hi}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Open(context.Background(), "-", FormatYAML, bytes.NewReader(data))
		checkLoad(t, file, err)
	})
}

// FuzzLoadJSONL streams JSON Lines: one request per non-blank line, each
// either whole or carrying its error, never a panic.
func FuzzLoadJSONL(f *testing.F) {
	for _, s := range []string{"{\"name\":\"a\",\"args\":{\"a\":1}}\n{\"name\":\"b\"}\n", "{\"name\":\n\n[1]\n", "{\"a\":1}\r\n  \n{", "\xff\n{\"name\":\"\\u0000\"}",
		"\uFEFF\n{\"function\":{\"name\":\"a\",\"arguments\":\"{}\"}}\n{\"function\":{\"x\":1},\"name\":\"b\"}",
		"{\"type\":\"text\",\"content\":\"hi\"}\n{\"type\":\"tool_call\",\"id\":\"c\",\"name\":\"a\",\"content\":\"{\\\"a\\\":1}\",\"call_id\":\"t\",\"cut\":\"x\"}\n{\"type\":\"tool_result\",\"session_id\":1}\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Open(context.Background(), "-", FormatJSONL, bytes.NewReader(data))
		var pe *ParseError
		if errors.As(err, &pe) && strings.Contains(pe.Msg, "this looks like JSON, not JSON Lines") {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		lines := 0
		// A byte order mark at the start is no part of the first line.
		for _, l := range bytes.Split(bytes.TrimPrefix(data, []byte("\uFEFF")), []byte("\n")) {
			if len(trimSpace(l)) > 0 {
				lines++
			}
		}
		n := 0
		for r := range file.Requests() {
			n++
			if r.Pos.Line < 1 {
				t.Fatalf("request without a line: %+v", r)
			}
			if r.Err != nil && !strings.HasPrefix(r.Err.Error(), "<stdin>:") {
				t.Fatalf("error without its position: %v", r.Err)
			}
		}
		if int64(n)+file.Others() != int64(lines) {
			t.Fatalf("%d requests and %d other records from %d non-blank lines", n, file.Others(), lines)
		}
	})
}

// FuzzLoadSniffed loads standard input whose format is sniffed: JSON
// Lines, JSON, YAML, and YAML in flow style that looks like JSON.
func FuzzLoadSniffed(f *testing.F) {
	for _, s := range []string{"{name: a, args: {x: 1}}\n", "[{name: a}, {\"name\": \"b\"}]", "{\"name\": \"a\"}\n{name: b}\n",
		`{"session_id": "s", "requests": [{"name": "a"}]}`, "\uFEFF- name: a\n", "[1,", "{\n", "\uFEFF"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Open(context.Background(), "-", "", bytes.NewReader(data))
		if err == nil && file.Format == FormatJSONL {
			for range file.Requests() {
			}
			return
		}
		checkLoad(t, file, err)
	})
}

func checkLoad(t *testing.T, file *File, err error) {
	t.Helper()
	if err != nil {
		var pe *ParseError
		if _, empty := errors.AsType[*EmptyError](err); empty {
			return // a file of no requests names no place in it
		}
		if !errors.As(err, &pe) || pe.Pos.File != "<stdin>" {
			t.Fatalf("error without a position: %v", err)
		}
		return
	}
	n := 0
	for r := range file.Requests() {
		n++
		if r.Pos.Line < 1 {
			t.Fatalf("request without a line: %+v", r)
		}
		if _, err := json.Marshal(r.Args); err != nil {
			t.Fatalf("args cannot be encoded: %v", err)
		}
		// The spool holds what the file held as JSON the request parser
		// reads: the file was checked whole before.
		if r.Err != nil && strings.Contains(r.Err.Error(), "not a JSON request") {
			t.Fatalf("a request that did not survive the spool: %v", r.Err)
		}
	}
	// The spool holds what the file did; Len counts the records that are
	// no requests too.
	if file.Err() != nil || int64(n)+file.Others() != int64(file.Len()) {
		t.Fatalf("%d requests and %d other records of %d, error %v", n, file.Others(), file.Len(), file.Err())
	}
}

// FuzzSpoolValue holds appendJSON, which writes YAML's requests to the
// spool, to the request parser, which reads them back: the same value of
// the same type (a float stays a float), strings byte for byte where they
// are UTF-8.
func FuzzSpoolValue(f *testing.F) {
	for _, s := range []string{`{"a":[1,-0,1e5,2.0,"x\u00e9",null,true,{}],"b":18446744073709551615}`, `-1.5e-300`, `"\u0000\n\"\\"`} {
		f.Add([]byte(s), "a\x00\xff\u2028", 100.0)
	}
	f.Fuzz(func(t *testing.T, data []byte, s string, x float64) {
		roundTrip := func(v any) {
			b, err := appendJSON(nil, v)
			if err != nil {
				if fl, ok := v.(float64); ok && (math.IsInf(fl, 0) || math.IsNaN(fl)) {
					return
				}
				t.Fatalf("appendJSON(%#v): %v", v, err)
			}
			got, err := new(jsonParser).parse(b)
			if err != nil {
				t.Fatalf("%q from %#v: %v", b, v, err)
			}
			want := v
			if str, ok := v.(string); ok {
				want = string([]rune(str)) // each byte that is not UTF-8 made U+FFFD
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%q read back differently (-written +read):\n%s", b, diff)
			}
			if fl, ok := v.(float64); ok && math.Signbit(fl) != math.Signbit(got.(float64)) {
				t.Fatalf("%q: the sign of %v is lost", b, fl)
			}
		}
		if v, err := new(jsonParser).parse(data); err == nil {
			roundTrip(v)
		}
		roundTrip(s)
		roundTrip(x)
	})
}

// FuzzYAMLChunks holds the items of a list, parsed a few to a chunk, to
// the same items each parsed on its own (each its own document, "---"
// between them): the same requests at the same places, or an error both
// ways. Anchors, which do not reach across documents, are left out.
func FuzzYAMLChunks(f *testing.F) {
	for _, s := range []string{"- name: a\n  args: {a: 1}\n# c\n- {name: b}\n-\n  name: c\n\n- name: d\n  args:\n    s: |\n      x\n",
		"- name: a\n- name: a\n  name: b\n- c\n", "- name: \"a\n  b\"\n- [1, 2]\n- name: x\n\targs: {}\n- 1e2\n"} {
		f.Add(s + strings.Repeat("- name: pad\n  args: {k: [1, 2, 3], s: 'some text'}\n", 40))
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.ContainsAny(src, "&*\r") || !strings.HasPrefix(src, "- ") {
			return
		}
		var items []string
		for _, line := range strings.SplitAfter(strings.TrimSuffix(src, "\n")+"\n", "\n") {
			trimmed := strings.TrimLeft(line, " \t")
			switch {
			case line == "":
			case line[0] == ' ' || line[0] == '\t' || trimmed == "\n" || trimmed[0] == '#':
				items[len(items)-1] += line
			case line[0] == '-' && (line[1] == ' ' || line[1] == '\t' || line[1] == '\n'):
				items = append(items, line)
			default:
				return // the end of the list: not what this compares
			}
		}
		load := func(text string) ([]*Request, error) {
			file, err := Open(context.Background(), "-", FormatYAML, strings.NewReader(text))
			if err != nil {
				return nil, err
			}
			defer file.Close()
			return slices.Collect(file.Requests()), nil
		}
		chunked, err1 := load(strings.Join(items, ""))
		alone, err2 := load(strings.Join(items, "---\n"))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("chunked: %v; alone: %v", err1, err2)
		}
		if len(chunked) != len(alone) {
			t.Fatalf("%d requests chunked, %d alone", len(chunked), len(alone))
		}
		doc := 0 // of alone's request i: the number of "---" before it
		for i, r := range chunked {
			a := alone[i]
			for doc+1 < len(items) && a.Pos.Line-doc > strings.Count(strings.Join(items[:doc+1], ""), "\n") {
				doc++
			}
			a.Pos.Line -= doc
			if diff := cmp.Diff(a, r, cmp.AllowUnexported(Request{}), cmp.Comparer(func(x, y error) bool { return (x == nil) == (y == nil) })); diff != "" {
				t.Fatalf("request %d read differently (-alone +chunked):\n%s", i, diff)
			}
		}
	})
}

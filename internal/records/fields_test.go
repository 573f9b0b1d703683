package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/message"
)

// fill sets every field reachable from v to a value that is not its zero
// value, derived from tag so that fields cannot be mistaken for each
// other. A kind it does not know fails the test: a new kind of field needs
// the encoder and this test taught about it.
func fill(t *testing.T, v reflect.Value, tag string) {
	t.Helper()
	switch {
	case v.Type() == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 11, 30, 1, 2, 3, 456789, time.UTC)))
	case v.Type() == reflect.TypeFor[json.RawMessage]():
		v.Set(reflect.ValueOf(json.RawMessage(`{"field":"` + tag + `","n":[1,2.5,null]}`)))
	case v.Kind() == reflect.String:
		v.SetString("v<&>\"é\u2028\n-" + tag)
	case v.Kind() == reflect.Bool:
		v.SetBool(true)
	case v.Kind() == reflect.Int64 || v.Kind() == reflect.Int:
		v.SetInt(int64(len(tag)) + 40)
	case v.Kind() == reflect.Float64:
		v.SetFloat(float64(len(tag)) + 0.125)
	case v.Kind() == reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), tag)
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			fill(t, v.Field(i), tag+"."+v.Type().Field(i).Name)
		}
	default:
		t.Fatalf("%s: a field of type %s: teach AppendRecord (and this test) about it", tag, v.Type())
	}
}

// TestEveryRecordFieldIsWrittenAndRead sets each field of message.Record in turn,
// found by reflection, and checks that AppendRecord writes what
// encoding/json writes and that the Reader reads the record back whole: a
// field added to message.Record cannot be dropped silently by the hand-written
// encoder.
func TestEveryRecordFieldIsWrittenAndRead(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeFor[message.Record]()
	all := &message.Record{}
	fill(t, reflect.ValueOf(all).Elem(), "all")
	cases := map[string]*message.Record{"every field": all}
	for i := range typ.NumField() {
		rec := &message.Record{}
		fill(t, reflect.ValueOf(rec).Elem().Field(i), typ.Field(i).Name)
		cases[typ.Field(i).Name] = rec
	}
	for name, rec := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			want, err := marshalNoHTML(rec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendRecord(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Fatalf("encoding mismatch (-encoding/json +AppendRecord):\n%s", diff)
			}
			rd := NewReader(bytes.NewReader(append(got, '\n')), "f.jsonl")
			if !rd.Scan() {
				t.Fatalf("no line read: %v", rd.Err())
			}
			back, err := rd.Record()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(rec, back); diff != "" {
				t.Errorf("read back mismatch (-written +read):\n%s", diff)
			}
		})
	}
}

// TestHeadReadsItsFields checks, by reflection, that every field of Head
// is the message.Record field of the same name, read from a record line by
// Reader.Head as encoding/json reads it, and copied by message.Record.Head.
func TestHeadReadsItsFields(t *testing.T) {
	t.Parallel()
	rec := &message.Record{}
	fill(t, reflect.ValueOf(rec).Elem(), "all")
	rec.Content = json.RawMessage(`{"parent_id":"not this one","nested":[{"name":"nor this"}],"s":"\"\\\u00e9"}`)
	line, err := AppendRecord(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	rd := NewReader(bytes.NewReader(line), "f.jsonl")
	if !rd.Scan() {
		t.Fatal(rd.Err())
	}
	h, err := rd.Head()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(HeadOf(rec), h); diff != "" {
		t.Errorf("Reader.Head and message.Record.Head differ (-message.Record.Head +Reader.Head):\n%s", diff)
	}
	hv, rv := reflect.ValueOf(h), reflect.ValueOf(rec).Elem()
	for i := range hv.NumField() {
		name := hv.Type().Field(i).Name
		f := rv.FieldByName(name)
		if !f.IsValid() {
			t.Errorf("Head.%s is no field of message.Record", name)
			continue
		}
		if !reflect.DeepEqual(f.Interface(), hv.Field(i).Interface()) {
			t.Errorf("Head.%s = %#v, want the record's %#v", name, hv.Field(i).Interface(), f.Interface())
		}
	}
}

// TestReaderLines pins the line layer the request loader shares: blank
// lines skipped but counted, columns after leading space, a byte order
// mark at the start of the file or of any line dropped, a line over the
// limit reported and skipped.
func TestReaderLines(t *testing.T) {
	t.Parallel()
	in := "\uFEFF{\"a\":1}\n\n  \t{\"b\":2}\r\n\uFEFF {\"c\":3}\n" + strings.Repeat("x", 100) + "\n{\"d\":4}"
	rd := NewReader(strings.NewReader(in), "f")
	rd.SetMaxLine(50)
	type line struct {
		Text      string
		Line, Col int
		TooLong   bool
		Last      bool
	}
	var got []line
	for rd.Scan() {
		n, c := rd.Pos()
		got = append(got, line{string(rd.Bytes()), n, c, rd.TooLong(), rd.Unterminated()})
	}
	want := []line{
		{`{"a":1}`, 1, 4, false, false},
		{`{"b":2}`, 3, 4, false, false},
		{`{"c":3}`, 4, 5, false, false},
		{"", 5, 1, true, false},
		{`{"d":4}`, 6, 1, false, true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines mismatch (-want +got):\n%s", diff)
	}
	if rd.Err() != nil {
		t.Error(rd.Err())
	}
}

// FuzzHead holds Reader.Head to encoding/json: it reads a line exactly
// when encoding/json finds it a JSON object, and reads its fields as
// encoding/json does (those of them that are strings).
func FuzzHead(f *testing.F) {
	for _, s := range []string{`{"parent_id":"a","name":"t","type":"tool_result","status":"responded","is_error":true,"args_hash":"00"}`,
		`{"content":{"parent_id":"x"},"parent_id":"\u00e9\ud83d\ude00\"","session_id":1}`, `[1]`, `{"a":1e5,"b":[true,false,null]}`,
		`{"is_error":false}`, `{"name":"a\ud800b"}`, `{"a":tru}`, `{}`, `{"a":"\x01"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var p headParser
		h, err := p.parse(line)
		var m map[string]any
		stdErr := json.Unmarshal(line, &m)
		if stdErr == nil && m == nil {
			stdErr = errors.New("null is no record") // encoding/json decodes null into a map as nil
		}
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("Head: %v, encoding/json: %v, for %q", err, stdErr, line)
		}
		if err != nil {
			return
		}
		for key, got := range map[string]string{"session_id": h.SessionID, "parent_id": h.ParentID, "type": string(h.Type),
			"status": string(h.Status), "name": h.Name, "args_hash": h.ArgsHash} {
			if want, ok := m[key].(string); ok && want != got {
				t.Fatalf("%s = %q, encoding/json read %q, for %q", key, got, want, line)
			}
		}
		if want, _ := m["is_error"].(bool); want != h.IsError {
			t.Fatalf("is_error = %v, encoding/json read %v, for %q", h.IsError, want, line)
		}
		// The record's own types: where encoding/json decodes the line as
		// a message.Record, Head reads content, error and call_id as it does.
		var rec message.Record
		if json.Unmarshal(line, &rec) != nil || !exactKeys(m) {
			return
		}
		if !bytes.Equal(h.Content, rec.Content) || h.CallID != rec.CallID {
			t.Fatalf("content %q, call_id %q; encoding/json read %q, %q, for %q", h.Content, h.CallID, rec.Content, rec.CallID, line)
		}
		if diff := cmp.Diff(rec.Error, h.Error); diff != "" {
			t.Fatalf("error mismatch (-encoding/json +Head) for %q:\n%s", line, diff)
		}
	})
}

// exactKeys reports whether the record's keys, and its error's, are
// written as message.Record's fields are: encoding/json also takes "Content" or
// "CALL_ID" for them, which Head, reading kesoku's records, does not.
func exactKeys(m map[string]any) bool {
	lower := func(k string) bool {
		return k == strings.ToLower(k) && utf8.ValidString(k) && !strings.ContainsAny(k, "\u017f\u212a")
	}
	for k, v := range m {
		if !lower(k) {
			return false
		}
		if e, ok := v.(map[string]any); ok && k == "error" {
			for k := range e {
				if !lower(k) {
					return false
				}
			}
		}
	}
	return true
}

// BenchmarkHead reads the Head of a tool_result record as --resume, merge
// and diff read each record of a file: its content skipped by depth.
func BenchmarkHead(b *testing.B) {
	line := []byte(`{"id":"019ad3f2-7c1e-7000-8000-000000000001","session_id":"s","parent_id":"call_12345","type":"tool_result",` +
		`"status":"responded","name":"calculate_sum","args_hash":"5d41402abc4b2a76","position":12345,` +
		`"content":{"sum":80235,"items":[1,2.5,"three",{"four":[true,false,null]}],"note":"caf\u00e9 \"quoted\""},"is_error":false}`)
	var p headParser
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.parse(line); err != nil {
			b.Fatal(err)
		}
	}
}

// TestHeadErrors pins the words of a line that is no record: the decoder's,
// but for a line that is no object at all.
func TestHeadErrors(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]string{
		``:                     "unexpected end of JSON input",
		`[1]`:                  "invalid character '[' looking for beginning of a record",
		` "a"`:                 `invalid character '"' looking for beginning of a record`,
		`{oops`:                "invalid character 'o' at start of value",
		`{"a":1`:               "unexpected end of JSON input",
		`{"a":1}x`:             "invalid character 'x' after top-level value",
		`{"a":1}{}`:            "invalid character '{' after top-level value",
		`{"a" 1}`:              "invalid character '1' after object name (expecting ':')",
		`{"a":1 "b":2}`:        `invalid character '"' after object value (expecting ',' or '}')`,
		`{"content":[1 2]}`:    "invalid character '2' after array element (expecting ',' or ']')",
		`{"is_error":tru}`:     "invalid character '}' in literal true (expecting 'e')",
		`{"name":"\q"}`:        "invalid escape sequence `\\q` in string",
		`{"position":01}`:      "invalid character '1' after object value (expecting ',' or '}')",
		"{\"type\":\"a\x01\"}": `invalid character '\x01' in string (expecting non-control character)`,
		`{"error":{"kind":-}}`: "invalid character '}' in number (expecting digit)",
	} {
		var p headParser
		if _, err := p.parse([]byte(line)); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", line, err, want)
		}
	}
}

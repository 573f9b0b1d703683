package diff

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/records"
)

func file(name, text string) File {
	return File{Name: name, Records: records.NewReader(strings.NewReader(text), name)}
}

// diffText runs Compare and writes what it found, a line per difference:
// "REQUEST KIND OLDLINE/NEWLINE" and then the changes.
func diffText(t testing.TB, old, new string, opts Options) ([]string, Summary) {
	t.Helper()
	var out []string
	sum, err := Compare(context.Background(), file("old.jsonl", old), file("new.jsonl", new), opts, func(d *Difference) error {
		line := fmt.Sprintf("%s %s %s %d/%d", d.Request, d.Name, d.Kind, d.OldLine, d.NewLine)
		for _, c := range changeText(d.Changes) {
			line += " | " + c
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, sum
}

// rec writes a tool_result record of request id; ids, sessions and times
// differ on every call, as they do between runs.
var recN atomic.Int64

func rec(id, name, rest string) string {
	recN := recN.Add(1)
	r := fmt.Sprintf(`{"id":"0190-%d","session_id":"s%d","parent_id":%q,"role":"tool","type":"tool_result","status":"responded","name":%q,"created_at":"2026-11-30T12:00:%02dZ","duration_ms":%d`, recN, recN, id, name, recN%60, recN)
	if rest != "" {
		r += "," + rest
	}
	return r + "}"
}

func joinLines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

func TestCompare(t *testing.T) {
	t.Parallel()
	errRec := func(id, kind, msg string) string {
		return rec(id, "calculate_sum", fmt.Sprintf(`"is_error":true,"error":{"kind":%q,"message":%q}`, kind, msg))
	}
	tests := []struct {
		name     string
		old, new []string
		opts     Options
		want     []string
		requests int
	}{
		{
			name:     "same but for ids, times and number forms",
			old:      []string{rec("call_1", "calculate_sum", `"content":3`), rec("call_2", "list_dir", `"content":{"a":1,"b":[1.0]}`)},
			new:      []string{rec("call_1", "calculate_sum", `"content":3.0`), rec("call_2", "list_dir", `"content":{"b":[1],"a":1}`)},
			requests: 2,
		},
		{
			name:     "a changed result",
			old:      []string{rec("call_1", "calculate_sum", `"content":3`), rec("call_2", "read_file", `"content":{"lines":["a","b"]}`)},
			new:      []string{rec("call_1", "calculate_sum", `"content":3`), rec("call_2", "read_file", `"content":{"lines":["a","c"]}`)},
			want:     []string{`call_2 read_file changed 2/2 | .content.lines[1]: "b" -> "c"`},
			requests: 2,
		},
		{
			name: "a new error and a fixed one",
			old:  []string{rec("call_1", "calculate_sum", `"content":3`), errRec("call_2", "invalid_args", "missing b")},
			new:  []string{errRec("call_1", "tool_error", "boom"), rec("call_2", "calculate_sum", `"content":4`)},
			want: []string{
				`call_1 calculate_sum new_error 1/1 | .error: - -> {"kind":"tool_error","message":"boom"} | .content: 3 -> -`,
				`call_2 calculate_sum fixed 2/2 | .error: {"kind":"invalid_args","message":"missing b"} -> - | .content: - -> 4`,
			},
			requests: 2,
		},
		{
			name:     "an error's kind, not its message",
			old:      []string{errRec("call_1", "timeout", "timed out after 5s"), errRec("call_2", "tool_error", "open /tmp/a1: no such file")},
			new:      []string{errRec("call_1", "tool_error", "exit status 1"), errRec("call_2", "tool_error", "open /tmp/b2: no such file")},
			want:     []string{`call_1 calculate_sum changed 1/1 | .error.kind: "timeout" -> "tool_error"`},
			requests: 2,
		},
		{
			name:     "messages when asked",
			old:      []string{errRec("call_2", "tool_error", "open /tmp/a1: no such file")},
			new:      []string{errRec("call_2", "tool_error", "open /tmp/b2: no such file")},
			opts:     Options{Messages: true},
			want:     []string{`call_2 calculate_sum changed 1/1 | .error.message: "open /tmp/a1: no such file" -> "open /tmp/b2: no such file"`},
			requests: 1,
		},
		{
			name:     "status and name",
			old:      []string{rec("call_1", "sleep", `"content":null`)},
			new:      []string{strings.Replace(rec("call_1", "slept", `"is_error":true,"error":{"kind":"aborted","message":"interrupted"}`), `"responded"`, `"aborted"`, 1)},
			want:     []string{`call_1 slept new_error 1/1 | .name: "sleep" -> "slept" | .status: "responded" -> "aborted" | .error: - -> {"kind":"aborted","message":"interrupted"} | .content: null -> -`},
			requests: 1,
		},
		{
			name: "a request in one file only",
			old:  []string{rec("call_1", "a", `"content":1`), rec("call_2", "b", `"content":2`), rec("call_3", "c", `"content":3`)},
			new:  []string{rec("call_1", "a", `"content":1`), rec("call_3", "c", `"content":3`), rec("call_4", "d", `"content":4`)},
			// call_2 might still come in new until new ends.
			want:     []string{"call_4 d only_new 0/3", "call_2 b only_old 2/0"},
			requests: 4,
		},
		{
			name:     "an empty file",
			old:      []string{},
			new:      []string{rec("call_1", "a", `"content":1`)},
			want:     []string{"call_1 a only_new 0/1"},
			requests: 1,
		},
		{
			name: "ignored places",
			old:  []string{rec("call_1", "stat", `"content":{"size":1,"modified":"mon","files":[{"n":"a","t":1}]}`), errRec("call_2", "timeout", "x")},
			new:  []string{rec("call_1", "stat", `"content":{"size":1,"modified":"tue","files":[{"n":"a","t":2}]}`), errRec("call_2", "tool_error", "x")},
			opts: Options{Ignore: []Path{
				{keyStep("content"), keyStep("modified")},
				{keyStep("content"), keyStep("files"), {Kind: EachStep}, keyStep("t")},
				{keyStep("error"), keyStep("kind")},
			}},
			requests: 2,
		},
		{
			name:     "the content whole ignored",
			old:      []string{rec("call_1", "now", `"content":"12:00"`)},
			new:      []string{rec("call_1", "now", `"content":"12:01"`)},
			opts:     Options{Ignore: []Path{{keyStep("content")}}},
			requests: 1,
		},
		{
			name: "other records are skipped",
			old: []string{
				`{"id":"u1","session_id":"s","role":"user","type":"text","status":"responded","content":"hi","created_at":"2026-11-30T12:00:00Z"}`,
				`{"id":"t1","session_id":"s","parent_id":"u1","role":"assistant","type":"tool_call","status":"responded","name":"a","content":{},"call_id":"c1","created_at":"2026-11-30T12:00:00Z"}`,
				rec("call_1", "a", `"content":1`),
				`{"id":"x","session_id":"s","role":"tool","type":"tool_result","status":"responded","name":"a","content":1,"created_at":"2026-11-30T12:00:00Z"}`,
			},
			new:      []string{rec("call_1", "a", `"content":1`)},
			requests: 1,
		},
		{
			name: "a transcript's results by call_id",
			old: []string{
				`{"id":"r1","session_id":"s","parent_id":"t1","role":"tool","type":"tool_result","status":"responded","name":"a","content":1,"call_id":"toolu_1","created_at":"2026-11-30T12:00:00Z"}`,
				`{"id":"r2","session_id":"s","parent_id":"t2","role":"tool","type":"tool_result","status":"responded","name":"a","content":2,"call_id":"toolu_2","created_at":"2026-11-30T12:00:00Z"}`,
			},
			new:      []string{rec("toolu_1", "a", `"content":1`), rec("toolu_2", "a", `"content":3`)},
			want:     []string{"toolu_2 a changed 2/2 | .content: 2 -> 3"},
			requests: 2,
		},
		{
			name:     "different orders",
			old:      []string{rec("call_1", "a", `"content":1`), rec("call_2", "a", `"content":2`), rec("call_3", "a", `"content":3`), rec("call_4", "a", `"content":4`)},
			new:      []string{rec("call_4", "a", `"content":4`), rec("call_3", "a", `"content":0`), rec("call_2", "a", `"content":2`), rec("call_1", "a", `"content":1`)},
			want:     []string{"call_3 a changed 3/2 | .content: 3 -> 0"},
			requests: 4,
		},
		{
			name: "a resumed run: the aborted record gives way",
			old: []string{
				rec("call_1", "a", `"content":1`),
				abortedRec("call_2"), abortedRec("call_3"),
				rec("call_2", "a", `"content":2`), rec("call_3", "a", `"content":3`),
			},
			new:      []string{rec("call_1", "a", `"content":1`), rec("call_2", "a", `"content":2`), rec("call_3", "a", `"content":4`)},
			want:     []string{"call_3 a changed 5/3 | .content: 3 -> 4"},
			requests: 3,
		},
		{
			name:     "resumed on the new side, aborted for good on the old",
			old:      []string{abortedRec("call_1"), abortedRec("call_2")},
			new:      []string{abortedRec("call_1"), abortedRec("call_2"), rec("call_1", "a", `"content":1`)},
			want:     []string{`call_1 a fixed 1/3 | .status: "aborted" -> "responded" | .error: {"kind":"aborted","message":"interrupted"} -> - | .content: - -> 1`},
			requests: 2,
		},
		{
			name:     "an aborted record only in one file",
			old:      []string{rec("call_1", "a", `"content":1`)},
			new:      []string{rec("call_1", "a", `"content":1`), abortedRec("call_2"), abortedRec("call_3"), rec("call_3", "a", `"content":3`)},
			want:     []string{"call_3 a only_new 0/4", "call_2 a only_new 0/2"},
			requests: 3,
		},
		{
			name:     "repeats pair in turn",
			old:      []string{rec("x", "a", `"content":1`), rec("x", "a", `"is_error":true,"error":{"kind":"invalid_request","message":"duplicate id"}`), rec("x", "a", `"content":3`)},
			new:      []string{rec("x", "a", `"content":1`), rec("x", "a", `"is_error":true,"error":{"kind":"invalid_request","message":"duplicate id"}`)},
			want:     []string{"x a only_old 3/0"},
			requests: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, sum := diffText(t, joinLines(tt.old...), joinLines(tt.new...), tt.opts)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("differences mismatch (-want +got):\n%s", diff)
			}
			if sum.Total != tt.requests || sum.Different() != len(tt.want) {
				t.Errorf("summary %+v, want %d requests, %d different", sum, tt.requests, len(tt.want))
			}
		})
	}
}

func abortedRec(id string) string {
	return strings.Replace(rec(id, "a", `"is_error":true,"error":{"kind":"aborted","message":"interrupted"}`), `"responded"`, `"aborted"`, 1)
}

// TestCompareSwapped holds Compare to being symmetric: swapping the files
// finds the same requests different, old and new swapped.
func TestCompareSwapped(t *testing.T) {
	t.Parallel()
	old := joinLines(rec("call_1", "a", `"content":1`), rec("call_2", "a", `"content":{"x":[1,2]}`), abortedRec("call_3"), rec("call_5", "a", `"content":5`), rec("call_3", "a", `"content":3`))
	new := joinLines(rec("call_2", "a", `"content":{"x":[1]}`), rec("call_1", "a", `"content":1`), rec("call_4", "a", `"content":4`), rec("call_3", "a", `"is_error":true,"error":{"kind":"tool_error","message":"x"}`))
	ab, sab := diffText(t, old, new, Options{})
	ba, sba := diffText(t, new, old, Options{})
	if len(ab) != 4 || sab.Total != sba.Total || sab.Different() != sba.Different() {
		t.Fatalf("old→new %v (%+v), new→old %v (%+v)", ab, sab, ba, sba)
	}
	if sab.Changed != sba.Changed || sab.NewErrors != sba.Fixed || sab.Fixed != sba.NewErrors || sab.OnlyOld != sba.OnlyNew || sab.OnlyNew != sba.OnlyOld {
		t.Errorf("old→new %+v, new→old %+v: not swapped", sab, sba)
	}
}

func TestCompareStopsOnBadLine(t *testing.T) {
	t.Parallel()
	_, err := Compare(context.Background(), file("old.jsonl", rec("call_1", "a", `"content":1`)+"\n{not json\n"), file("new.jsonl", ""), Options{}, func(*Difference) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "old.jsonl:2: not a record") {
		t.Fatalf("err = %v, want old.jsonl:2: not a record", err)
	}
}

func TestCompareCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Compare(ctx, file("a", rec("x", "a", "")), file("b", ""), Options{}, func(*Difference) error { return nil })
	if err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// A file of no records at all, a request file given by mistake, is an
// error rather than a file that answers no request: a CI job comparing
// the wrong files must not pass.
func TestCompareRefusesAFileOfNoRecords(t *testing.T) {
	t.Parallel()
	requests := `{"id":"call_1","name":"calculate_sum","args":{"a":1,"b":2}}` + "\n" + `{"id":"call_2","name":"sleep","args":{"seconds":0}}` + "\n"
	for _, swap := range []bool{false, true} {
		old, new := file("tests.jsonl", requests), file("new.jsonl", joinLines(rec("call_1", "calculate_sum", `"content":3`)))
		if swap {
			old, new = file("new.jsonl", joinLines(rec("call_1", "calculate_sum", `"content":3`))), file("tests.jsonl", requests)
		}
		printed := 0
		_, err := Compare(context.Background(), old, new, Options{}, func(*Difference) error { printed++; return nil })
		if want := "tests.jsonl: none of its 2 lines is a Message record"; err == nil || !strings.HasPrefix(err.Error(), want) || printed > 0 {
			t.Errorf("err = %v after %d differences, want %q and none", err, printed, want)
		}
	}
	// A transcript of no tool calls, and an empty file, answer no request.
	text := `{"id":"u1","session_id":"s","role":"user","type":"text","status":"responded","content":"hi","created_at":"2026-11-30T12:00:00Z"}` + "\n"
	for _, content := range []string{text, ""} {
		sum, err := Compare(context.Background(), file("a", content), file("b", content), Options{}, func(*Difference) error { return nil })
		if err != nil || sum.Total != 0 || sum.Different() != 0 {
			t.Errorf("%q: %+v, %v; want no requests and no error", content, sum, err)
		}
	}
}

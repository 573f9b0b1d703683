package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/diff"
)

func TestDiffFlags(t *testing.T) {
	t.Parallel()
	var got *diffOptions
	c := newDiffCmd(&globals{}, func(_ context.Context, o *diffOptions) error { got = o; return nil })
	c.SetArgs([]string{"old.jsonl", "-", "--json", "--messages", "--ignore", ".content.modified", "--ignore", `.content.files[].mtime`, "--ignore", `.content["a,b"]`})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Old != "old.jsonl" || got.New != "-" || !got.JSON || !got.Messages {
		t.Errorf("options %+v", got)
	}
	var paths []string
	for _, p := range got.ignore {
		paths = append(paths, p.String())
	}
	if diff := cmp.Diff([]string{".content.modified", ".content.files[].mtime", `.content["a,b"]`}, paths); diff != "" {
		t.Errorf("--ignore mismatch (-want +got):\n%s", diff)
	}
}

func TestDiffUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"a"}, "diff: no NEW records file to compare with a"},
		{[]string{}, "diff: no OLD and NEW records files to compare (give - for standard input)"},
		{[]string{"a", "b", "c"}, `diff compares two records files, OLD and NEW, not 3: "a" "b" "c"`},
		{[]string{"a", ""}, "diff: the records file name is empty"},
		{[]string{"-", "-"}, `"-" (standard input) given twice`},
		{[]string{"a", "b", "--ignore", "content.x"}, `invalid argument "content.x" for "--ignore" flag: a path starts with "." or "["`},
		{[]string{"a", "b", "--ignore", ".modified"}, `invalid argument ".modified" for "--ignore" flag: a record has no field "modified"; the tool's result is under .content (.content.modified)`},
		{[]string{"a", "b", "--ignore", "[0]"}, `invalid argument "[0]" for "--ignore" flag: a record is an object`},
		{[]string{"a", "b", "--ignore", "."}, `invalid argument "." for "--ignore" flag: that is the whole record`},
		{[]string{"a", "b", "--ignore", ".error.text"}, `invalid argument ".error.text" for "--ignore" flag: an error has a kind and a message`},
		{[]string{"a", "b", "--ignore", ".content.a["}, `invalid argument ".content.a[" for "--ignore" flag: at 11: "[" is not closed`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			out, errOut, code := execKesoku(t, "", append([]string{"diff"}, tt.args...)...)
			if code != ExitUsage || out != "" || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", code, out, errOut, tt.want)
			}
		})
	}
}

// A never-compared field is harmless to ignore.
func TestDiffIgnoreNeverCompared(t *testing.T) {
	t.Parallel()
	var got *diffOptions
	c := newDiffCmd(&globals{}, func(_ context.Context, o *diffOptions) error { got = o; return nil })
	c.SetArgs([]string{"a", "b", "--ignore", ".duration_ms", "--ignore", ".error.message"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if len(got.ignore) != 2 {
		t.Errorf("ignore = %v", got.ignore)
	}
}

func execKesoku(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), &globals{IO: &ioStreams{In: strings.NewReader(stdin), Out: &out, Err: &errOut}, AWD: t.TempDir()}, args)
	return out.String(), errOut.String(), code
}

func TestDiffText(t *testing.T) {
	t.Parallel()
	long := json.RawMessage(`"` + strings.Repeat("é", 200) + `"`)
	many := make([]diff.Change, 20) // what Compare keeps for the text, and 3 more
	for i := range many {
		many[i] = diff.Change{Path: diff.Path{{Kind: diff.KeyStep, Key: "content"}, {Kind: diff.IndexStep, Index: i}}, Old: json.RawMessage("1"), New: json.RawMessage("2")}
	}
	var b bytes.Buffer
	w := bufio.NewWriter(&b)
	p := &diffPrinter{w: w, oldName: "golden.jsonl", newName: "new.jsonl"}
	for _, d := range []*diff.Difference{
		{Request: "call_1", Name: "a", Kind: diff.Changed, Changes: []diff.Change{{Path: diff.Path{{Kind: diff.KeyStep, Key: "content"}}, Old: json.RawMessage(`{"x":null}`)}}},
		{Request: "call 2", Name: "b", Kind: diff.OnlyOld},
		{Request: "c:3", Kind: diff.OnlyNew},
		{Request: "long", Name: "c", Kind: diff.Changed, Changes: []diff.Change{{Path: diff.Path{{Kind: diff.KeyStep, Key: "content"}}, Old: long, New: json.RawMessage(`"x"`)}}},
		{Request: "many", Name: "d", Kind: diff.Changed, Changes: many, More: 3},
	} {
		if err := p.text(d); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{
		`call_1 (a): .content: {"x":null} -> (absent)`,
		`"call 2" (b): only in golden.jsonl`,
		`"c:3": only in new.jsonl`,
		`long (c): .content: "` + strings.Repeat("é", 52) + ` ... (402 bytes) ... ` + strings.Repeat("é", 19) + `" -> "x"`,
	}
	for i := range 20 {
		want = append(want, fmt.Sprintf("many (d): .content[%d]: 1 -> 2", i))
	}
	want = append(want, "many (d): and 3 more (--json lists them all)")
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("output mismatch (-want +got):\n%s", diff)
	}
}

// TestDiffJSONLines: diff --json writes each line as encoding/json
// writes it (without HTML escapes), the values as the records hold them.
func TestDiffJSONLines(t *testing.T) {
	t.Parallel()
	for _, l := range []diffLine{
		{Request: "call_1", Name: "a<b>", Change: diff.Changed, Path: `.content["x y"]`, Old: json.RawMessage(`{"k":[1,"é\u2028"]}`), New: json.RawMessage(`null`), OldLine: 3, NewLine: 4},
		{Request: "only \"old\"", Change: diff.OnlyOld, OldLine: 7},
		{Request: "n", Change: diff.OnlyNew, NewLine: 1},
		{Request: "x", Change: diff.NewError, Path: ".error", New: json.RawMessage(`{"kind":"tool_error","message":"no"}`), OldLine: 1, NewLine: 1},
	} {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		p := &diffPrinter{w: w}
		if err := p.jsonLine(&l); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		var want bytes.Buffer
		e := json.NewEncoder(&want)
		e.SetEscapeHTML(false)
		if err := e.Encode(l); err != nil {
			t.Fatal(err)
		}
		if b.String() != want.String() {
			t.Errorf("line\n got %s\nwant %s", b.String(), want.String())
		}
	}
}

package gen

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParseDoc(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		want    doc
		wantErr []docError
	}{
		{
			name: "no Args section",
			text: "Adds two numbers.\n\nIt is fast.\nVery fast.",
			want: doc{Paragraphs: []string{"Adds two numbers.", "It is fast. Very fast."}},
		},
		{
			name: "gofmt layout",
			text: "Adds.\n\nArgs:\n\n\ta: the first.\n\tb: the second.\n\nReturns:\n\n\tthe sum.",
			want: doc{
				Paragraphs: []string{"Adds."},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "a", Text: "the first.", Line: 5}, {Name: "b", Text: "the second.", Line: 6}},
				Returns:    "the sum.",
			},
		},
		{
			name: "unindented entries",
			text: "Adds.\n\nArgs:\na: the first.\nb: the second.",
			want: doc{
				Paragraphs: []string{"Adds."},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "a", Text: "the first.", Line: 4}, {Name: "b", Text: "the second.", Line: 5}},
			},
		},
		{
			name: "multi-line entries",
			text: "Reads.\n\nArgs:\n  path: the file, relative\n    to the working directory.\n  limit: how many\n    lines.",
			want: doc{
				Paragraphs: []string{"Reads."},
				HasArgs:    true,
				Args: []*argDoc{
					{Name: "path", Text: "the file, relative to the working directory.", Line: 4},
					{Name: "limit", Text: "how many lines.", Line: 6},
				},
			},
		},
		{
			name: "unindented continuation",
			text: "Reads.\n\nArgs:\npath: the file, relative\nto the working directory.",
			want: doc{
				Paragraphs: []string{"Reads."},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "path", Text: "the file, relative to the working directory.", Line: 4}},
			},
		},
		{
			name: "blank line inside an indented entry",
			text: "Reads.\n\nArgs:\n\tpath: the file.\n\n\t  More about it.\n\tn: a count.",
			want: doc{
				Paragraphs: []string{"Reads."},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "path", Text: "the file. More about it.", Line: 4}, {Name: "n", Text: "a count.", Line: 7}},
			},
		},
		{
			name: "Chinese, an argument's text continued",
			text: "计算两个整数的和。\n\nArgs:\n    a: 第一个整数。\n    b: 第二个\n      整数。",
			want: doc{
				Paragraphs: []string{"计算两个整数的和。"},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "a", Text: "第一个整数。", Line: 4}, {Name: "b", Text: "第二个整数。", Line: 5}},
			},
		},
		{
			name: "full-width colons and Chinese headers",
			text: "计算。\n\n参数：\n    a：第一个整数。\n    数量：多少。\n\n返回：\n    和。",
			want: doc{
				Paragraphs: []string{"计算。"},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "a", Text: "第一个整数。", Line: 4}, {Name: "数量", Text: "多少。", Line: 5}},
				Returns:    "和。",
			},
		},
		{
			name: "type in parentheses",
			text: "Adds.\n\nArgs:\n    a (int): the first.\n    b(int)  :  the second.",
			want: doc{
				Paragraphs: []string{"Adds."},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "a", Text: "the first.", Line: 4}, {Name: "b", Text: "the second.", Line: 5}},
			},
		},
		{
			name: "Defaults and Must be one of in continuation lines",
			text: "Lists.\n\nArgs:\n\tlimit: how many.\n\t  Defaults to 100.\n\tmode: how.\n\t  Must be one of: fast,\n\t  slow.",
			want: doc{
				Paragraphs: []string{"Lists."},
				HasArgs:    true,
				Args: []*argDoc{
					{Name: "limit", Text: "how many. Defaults to 100.", Line: 4, HasDefault: true, Default: json.Number("100"), DefaultText: "100", DefaultBare: true},
					{Name: "mode", Text: "how. Must be one of: fast, slow.", Line: 6, Enum: []string{"fast", "slow"}},
				},
			},
		},
		{
			name: "Returns only",
			text: "Returns the time.\n\nReturns:\n  the current time,\n  in RFC 3339.",
			want: doc{Paragraphs: []string{"Returns the time."}, Returns: "the current time, in RFC 3339."},
		},
		{
			name: "Returns inline",
			text: "Adds.\n\nReturns: the sum.",
			want: doc{Paragraphs: []string{"Adds."}, Returns: "the sum."},
		},
		{
			name: "prose after unindented Args",
			text: "Adds.\n\nArgs:\na: the first.\n\nThis is more prose.",
			want: doc{
				Paragraphs: []string{"Adds.", "This is more prose."},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "a", Text: "the first.", Line: 4}},
			},
		},
		{
			name: "prose after indented Args",
			text: "Adds.\n\nArgs:\n\n\ta: the first.\n\nNote: more prose.",
			want: doc{
				Paragraphs: []string{"Adds.", "Note: more prose."},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "a", Text: "the first.", Line: 5}},
			},
		},
		{
			name: "code block and list in the body",
			text: "Runs.\n\nFor example:\n\n\trun --fast\n\t  --twice\n\nIt can:\n- walk\n- run",
			want: doc{Paragraphs: []string{"Runs.", "For example:", "run --fast\n  --twice", "It can:\n- walk\n- run"}},
		},
		{
			name: "Args header with an inline entry",
			text: "Adds.\n\nArgs: a: the first.\n  b: the second.",
			want: doc{
				Paragraphs: []string{"Adds."},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "a", Text: "the first.", Line: 3}, {Name: "b", Text: "the second.", Line: 4}},
			},
		},
		{
			name: "empty Args section",
			text: "Adds.\n\nArgs:\n\nReturns: the sum.",
			want: doc{Paragraphs: []string{"Adds."}, HasArgs: true, Returns: "the sum."},
		},
		{
			name: "a URL is not an entry",
			text: "Fetches.\n\nArgs:\n\turl: the address,\n\thttp://example.com/x for one.",
			want: doc{
				Paragraphs: []string{"Fetches."},
				HasArgs:    true,
				Args:       []*argDoc{{Name: "url", Text: "the address, http://example.com/x for one.", Line: 4}},
			},
		},
		{
			name:    "line that is not an entry",
			text:    "Adds.\n\nArgs:\n\tthe numbers to add\n\ta: the first.",
			want:    doc{Paragraphs: []string{"Adds."}, HasArgs: true, Args: []*argDoc{{Name: "a", Text: "the first.", Line: 5}}},
			wantErr: []docError{{Line: 4, Msg: `Args: "the numbers to add" is not an entry of the form "name: description"`}},
		},
		{
			name:    "second Args section",
			text:    "Adds.\n\nArgs:\n\ta: one.\n\nArgs:\n\tb: two.",
			want:    doc{Paragraphs: []string{"Adds."}, HasArgs: true, Args: []*argDoc{{Name: "a", Text: "one.", Line: 4}, {Name: "b", Text: "two.", Line: 7}}},
			wantErr: []docError{{Line: 6, Msg: "second Args: section (the first is at line 3)"}},
		},
		{
			name:    "bad JSON default",
			text:    "Adds.\n\nArgs:\n\ta: one. Defaults to [1,.",
			want:    doc{Paragraphs: []string{"Adds."}, HasArgs: true, Args: []*argDoc{{Name: "a", Text: "one. Defaults to [1,.", Line: 4}}},
			wantErr: []docError{{Line: 4, Msg: `Args entry "a": Defaults to: "[1,." is not valid JSON: invalid character '.' looking for beginning of value`}},
		},
		{
			name:    "unclosed quote in default",
			text:    "Adds.\n\nArgs:\n\ta: one. Defaults to `abc.",
			want:    doc{Paragraphs: []string{"Adds."}, HasArgs: true, Args: []*argDoc{{Name: "a", Text: "one. Defaults to `abc.", Line: 4}}},
			wantErr: []docError{{Line: 4, Msg: "Args entry \"a\": Defaults to: \"`abc.\" has no closing `"}},
		},
		{
			name:    "empty enum",
			text:    "Adds.\n\nArgs:\n\ta: one. Must be one of: .",
			want:    doc{Paragraphs: []string{"Adds."}, HasArgs: true, Args: []*argDoc{{Name: "a", Text: "one. Must be one of: .", Line: 4}}},
			wantErr: []docError{{Line: 4, Msg: `Args entry "a": Must be one of: no values`}},
		},
		{
			name:    "enum value twice",
			text:    "Adds.\n\nArgs:\n\ta: one. Must be one of: x, x.",
			want:    doc{Paragraphs: []string{"Adds."}, HasArgs: true, Args: []*argDoc{{Name: "a", Text: "one. Must be one of: x, x.", Line: 4}}},
			wantErr: []docError{{Line: 4, Msg: `Args entry "a": Must be one of: "x" listed twice`}},
		},
		{
			name: "empty comment",
			text: "",
			want: doc{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, errs := parseDoc(splitDocText(tt.text, 1))
			if diff := cmp.Diff(&tt.want, got, cmp.AllowUnexported(doc{}, argDoc{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("doc mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErr, errs, cmp.AllowUnexported(docError{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("errors mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDefault(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in       string
		want     any
		wantRaw  string
		wantBare bool
		wantErr  string
	}{
		{in: "10.", want: json.Number("10"), wantRaw: "10", wantBare: true},
		{in: "0.5.", want: json.Number("0.5"), wantRaw: "0.5", wantBare: true},
		{in: "-3. Then more.", want: json.Number("-3"), wantRaw: "-3", wantBare: true},
		{in: "true.", want: true, wantRaw: "true", wantBare: true},
		{in: "null.", want: nil, wantRaw: "null", wantBare: true},
		{in: "utf-8.", want: "utf-8", wantRaw: "utf-8", wantBare: true},
		{in: "./out.txt.", want: "./out.txt", wantRaw: "./out.txt", wantBare: true},
		{in: "the current directory.", want: "the current directory", wantRaw: "the current directory", wantBare: true},
		{in: "10, the maximum.", want: json.Number("10"), wantRaw: "10", wantBare: true},
		{in: "5; no more.", want: json.Number("5"), wantRaw: "5", wantBare: true},
		{in: "中文。后面", want: "中文", wantRaw: "中文", wantBare: true},
		{in: `"a. b, c".`, want: "a. b, c", wantRaw: `"a. b, c"`},
		{in: "`x y`.", want: "x y", wantRaw: "`x y`"},
		{in: "'x'.", want: "x", wantRaw: "'x'"},
		{in: `["a", "b"]. More.`, want: []any{"a", "b"}, wantRaw: `["a", "b"]`},
		{in: `{"x": 1}.`, want: map[string]any{"x": json.Number("1")}, wantRaw: `{"x": 1}`},
		{in: "", wantErr: `no value after "Defaults to"`},
		{in: ".", wantErr: `no value after "Defaults to"`},
		{in: `{"x": }`, wantErr: `"{\"x\": }" is not valid JSON: invalid character '}' looking for beginning of value`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			v, raw, bare, err := parseDefault(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("parseDefault(%q) error = %v, want %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, v); diff != "" {
				t.Errorf("value mismatch (-want +got):\n%s", diff)
			}
			if raw != tt.wantRaw || bare != tt.wantBare {
				t.Errorf("raw, bare = %q, %v; want %q, %v", raw, bare, tt.wantRaw, tt.wantBare)
			}
		})
	}
}

func TestParseEnum(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"a, b.", []string{"a", "b"}},
		{"a, b, or c.", []string{"a", "b", "c"}},
		{"a, b or c. Then more.", []string{"a", "b", "c"}},
		{"`x`, `y`.", []string{"x", "y"}},
		{`"read-only", "read-write".`, []string{"read-only", "read-write"}},
		{"v1.0, v2.0.", []string{"v1.0", "v2.0"}},
		{"快、慢。", []string{"快", "慢"}},
		{"快，慢", []string{"快", "慢"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := parseEnum(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, funcName string
		paras          []string
		summary, desc  string
	}{
		{"name dropped", "CalculateSum", []string{"CalculateSum adds two integers. Exactly."}, "Adds two integers.", "Adds two integers. Exactly."},
		{"body kept", "ReadFile", []string{"ReadFile reads a file.", "Large files are cut."}, "Reads a file.", "Reads a file.\n\nLarge files are cut."},
		{"is stays", "Sleep", []string{"Sleep is a tool for tests."}, "Sleep is a tool for tests.", "Sleep is a tool for tests."},
		{"no name", "Now", []string{"Returns the time."}, "Returns the time.", "Returns the time."},
		{"Chinese", "CalculateSum", []string{"CalculateSum 计算两个整数的和。"}, "计算两个整数的和。", "计算两个整数的和。"},
		{"other capital", "Add", []string{"Add Two numbers."}, "Add Two numbers.", "Add Two numbers."},
		{"nothing", "F", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, d := describe(tt.funcName, tt.paras)
			if s != tt.summary || d != tt.desc {
				t.Errorf("describe = %q, %q; want %q, %q", s, d, tt.summary, tt.desc)
			}
		})
	}
}

func TestSnakeCase(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"CalculateSum", "calculate_sum"},
		{"ReadFile", "read_file"},
		{"HTTPGet", "http_get"},
		{"getHTTPResponse", "get_http_response"},
		{"ReadFileV2", "read_file_v2"},
		{"MD5Hash", "md5_hash"},
		{"Sha256Sum", "sha256_sum"},
		{"ID", "id"},
		{"sleep", "sleep"},
		{"Glob", "glob"},
	}
	for _, tt := range tests {
		if got := snakeCase(tt.in); got != tt.want {
			t.Errorf("snakeCase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzParseDoc feeds the doc comment parser arbitrary comments: it must
// never panic, and what it returns must hold together.
func FuzzParseDoc(f *testing.F) {
	for _, seed := range []string{
		"Adds.\n\nArgs:\n\ta: the first.\n\tb: the second. Defaults to 0.\n\nReturns:\n\tthe sum.",
		"计算两个整数的和。\n\nArgs:\n    a: 第一个整数。\n    b: 第二个整数。",
		"Lists.\n\nArgs:\nmode: how. Must be one of: a, b, or c.\n  Defaults to \"a\".",
		"Args: x: y\nReturns: z",
		"Defaults to [1, {\"a\": [\"b\"]}]. Must be one of: `x`.",
		"\t\t\n  Args:\n\t\t  \n x：\u3000",
		"Args:\n\ta: Defaults to '",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines := splitDocText(text, 1)
		d, errs := parseDoc(lines)
		for _, e := range errs {
			if e.Line < 1 || e.Line > len(lines) {
				t.Errorf("error at line %d of %d: %s", e.Line, len(lines), e.Msg)
			}
		}
		for _, a := range d.Args {
			if !entryRE().MatchString(a.Name + ": x") {
				t.Errorf("entry name %q is not a name", a.Name)
			}
			if a.Line < 1 || a.Line > len(lines) {
				t.Errorf("entry %q at line %d of %d", a.Name, a.Line, len(lines))
			}
		}
		for _, p := range d.Paragraphs {
			if strings.TrimSpace(p) == "" {
				t.Errorf("empty paragraph in %q", d.Paragraphs)
			}
		}
		s, desc := describe("F", d.Paragraphs)
		if !strings.HasPrefix(desc, s) && utf8.ValidString(text) {
			t.Errorf("description %q does not start with summary %q", desc, s)
		}
	})
}

// splitDocText splits text into docLines numbered from first, as the
// lines of a comment in the AST come.
func splitDocText(text string, first int) []docLine {
	raw := strings.Split(text, "\n")
	lines := make([]docLine, len(raw))
	for i, r := range raw {
		lines[i] = docLine{Text: strings.TrimRight(r, "\r"), Line: first + i}
	}
	return lines
}

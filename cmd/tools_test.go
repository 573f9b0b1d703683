package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
)

// testRegistry holds hand-written tools, so that these tests do not depend
// on the built-in ones.
func testRegistry(t *testing.T) *registry.Registry {
	t.Helper()
	call := func(context.Context, *registry.ToolContext, map[string]any) (any, error) { return nil, nil }
	r := registry.New()
	for _, s := range []*toolset.Spec{
		{
			Name: "calculate_sum", Summary: "Add two integers.", Description: "Add two integers.", Call: call,
			Params: []*toolspec.Property{
				{Name: "a", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeInteger, Description: "The first."}},
				{Name: "b", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeInteger, Description: "The second."}},
				{Name: "mode", Schema: &toolspec.Schema{Type: toolspec.TypeString, Enum: []string{"exact", "saturating"}, Default: json.RawMessage(`"exact"`)}},
			},
		},
		{
			Name: "label", Summary: "Label files\n  by name.", Description: "Label files by name.", Call: call, Writes: true,
			Params: []*toolspec.Property{
				{Name: "labels", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeObject, AdditionalProperties: &toolspec.Schema{Type: toolspec.TypeString}}},
				{Name: "paths", Schema: &toolspec.Schema{Type: toolspec.TypeArray, Items: &toolspec.Schema{Type: toolspec.TypeString}}},
			},
		},
		{Name: "current_time", Summary: "Tell the time.", Description: "Tell the time.", Call: call},
	} {
		r.MustRegister(s)
	}
	return r
}

func TestToolsList(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	opts := &toolsListOptions{IO: &ioStreams{Out: &out}, Tools: toolset.Of(testRegistry(t))}
	if err := runToolsList(opts); err != nil {
		t.Fatal(err)
	}
	want := `NAME           SUMMARY               PARAMETERS
calculate_sum  Add two integers.     a:integer b:integer [mode:string]
current_time   Tell the time.        -
label          Label files by name.  labels:map[string]string [paths:string[]]
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestToolsListJSON(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	opts := &toolsListOptions{IO: &ioStreams{Out: &out}, Tools: toolset.Of(testRegistry(t)), JSON: true}
	if err := runToolsList(opts); err != nil {
		t.Fatal(err)
	}
	var got []toolJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out.String())
	}
	want := []toolJSON{
		{Name: "calculate_sum", Summary: "Add two integers.", Description: "Add two integers.", Parameters: []paramJSON{
			{Name: "a", Type: "integer", Required: true, Description: "The first."},
			{Name: "b", Type: "integer", Required: true, Description: "The second."},
			{Name: "mode", Type: "string", Enum: []string{"exact", "saturating"}, Default: json.RawMessage(`"exact"`)},
		}},
		{Name: "current_time", Summary: "Tell the time.", Description: "Tell the time.", Parameters: []paramJSON{}},
		{Name: "label", Summary: "Label files\n  by name.", Description: "Label files by name.", Writes: true, Parameters: []paramJSON{
			{Name: "labels", Type: "map[string]string", Required: true},
			{Name: "paths", Type: "string[]"},
		}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(out.String(), `"parameters": []`) {
		t.Errorf("a tool without parameters should list [] rather than null:\n%s", out.String())
	}
}

func TestToolsSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		format   string
		names    []string
		wantCode int
		wantErr  string
		wantOut  []string // tool names in the output, in order
	}{
		{name: "all, default format", format: defaultSchemaFormat, wantOut: []string{"calculate_sum", "current_time", "label"}},
		{name: "named, in order given, once", format: "claude", names: []string{"label", "calculate_sum", "label"}, wantOut: []string{"label", "calculate_sum"}},
		{name: "unknown format", format: "gemnii", wantCode: ExitUsage,
			wantErr: `unknown format "gemnii" (did you mean "gemini"?): want one of gemini, claude, openai, mcp, jsonschema`},
		{name: "unknown tool", format: "mcp", names: []string{"calculate_summ"}, wantCode: ExitUsage,
			wantErr: `unknown tool "calculate_summ"; did you mean "calculate_sum"? known tools: calculate_sum, current_time, label`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			opts := &toolsSchemaOptions{IO: &ioStreams{Out: &out}, Tools: toolset.Of(testRegistry(t)), Format: tt.format, Names: tt.names}
			err := runToolsSchema(opts)
			if tt.wantErr != "" {
				code, _ := exitCode(err)
				if err == nil || err.Error() != tt.wantErr || code != tt.wantCode {
					t.Fatalf("error = %v (exit %d), want %s (exit %d)", err, code, tt.wantErr, tt.wantCode)
				}
				if out.Len() > 0 {
					t.Errorf("printed output despite the error:\n%s", out.String())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(out.String(), "}\n]\n") {
				t.Errorf("output does not end in a newline after the array:\n%s", out.String())
			}
			var tools []map[string]any
			if err := json.Unmarshal(out.Bytes(), &tools); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools {
				name, _ := tool["name"].(string)
				if name == "" {
					name, _ = tool["title"].(string)
				}
				names = append(names, name)
			}
			if diff := cmp.Diff(tt.wantOut, names); diff != "" {
				t.Errorf("tools mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestToolsFlags checks that the command line reaches the options.
func TestToolsFlags(t *testing.T) {
	t.Parallel()
	var got *toolsSchemaOptions
	c := newToolsSchemaCmd(&globals{IO: &ioStreams{}}, func(o *toolsSchemaOptions) error { got = o; return nil })
	c.SetArgs([]string{"-f", "openai", "read_file", "grep"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Format != "openai" || !cmp.Equal(got.Names, []string{"read_file", "grep"}) {
		t.Errorf("got format %q names %q", got.Format, got.Names)
	}
	var list *toolsListOptions
	lc := newToolsListCmd(&globals{IO: &ioStreams{}}, func(o *toolsListOptions) error { list = o; return nil })
	lc.SetArgs([]string{"--json"})
	if err := lc.Execute(); err != nil {
		t.Fatal(err)
	}
	if !list.JSON {
		t.Errorf("--json did not set JSON")
	}
}

func TestToolsListNarrowTerminal(t *testing.T) {
	t.Parallel()
	r := registry.New()
	r.MustRegister(&toolset.Spec{
		Name:    "write_file",
		Summary: "Writes text to a file in the working directory, creating the file and its parent directories as needed.",
		Params:  []*toolspec.Property{{Name: "path", Required: true, Schema: &toolspec.Schema{Type: toolspec.TypeString}}},
		Call:    func(context.Context, *registry.ToolContext, map[string]any) (any, error) { return nil, nil },
	})
	tests := []struct {
		width int
		want  string
	}{
		{0, "write_file  Writes text to a file in the working directory, creating the file and its parent directories as needed.  path:string\n"},
		{80, "write_file  Writes text to a file in the working directory, creati…  path:string\n"},
		{20, "write_file  Writes text to a file in the …  path:string\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		opts := &toolsListOptions{IO: &ioStreams{Out: &out}, Tools: toolset.Of(r), Width: tt.width}
		if err := runToolsList(opts); err != nil {
			t.Fatal(err)
		}
		_, row, _ := strings.Cut(out.String(), "\n")
		if diff := cmp.Diff(tt.want, row); diff != "" {
			t.Errorf("width %d: mismatch (-want +got):\n%s", tt.width, diff)
		}
		if tt.width >= 80 && len([]rune(row)) != tt.width+1 {
			t.Errorf("width %d: row is %d long", tt.width, len([]rune(row)))
		}
	}
}

// TestToolsListLongParameters: parameters too long for the terminal go on
// below in their own column, whole, rather than wrap across the others:
// no line is wider than the terminal.
func TestToolsListLongParameters(t *testing.T) {
	t.Parallel()
	r := registry.New()
	var params []*toolspec.Property
	for _, name := range []string{"path", "pattern", "recursive", "max_depth", "include_hidden", "follow_links", "ignore_case"} {
		params = append(params, &toolspec.Property{Name: name, Required: name == "path", Schema: &toolspec.Schema{Type: toolspec.TypeString}})
	}
	call := func(context.Context, *registry.ToolContext, map[string]any) (any, error) { return nil, nil }
	r.MustRegister(&toolset.Spec{Name: "fs__search_files", Summary: "Search for files whose names match a pattern, under a directory.", Params: params, Call: call})
	r.MustRegister(&toolset.Spec{Name: "now", Summary: "Tell the time.", Call: call})
	for _, width := range []int{80, 60} {
		var out bytes.Buffer
		opts := &toolsListOptions{IO: &ioStreams{Out: &out}, Tools: toolset.Of(r), Width: width}
		if err := runToolsList(opts); err != nil {
			t.Fatal(err)
		}
		text := out.String()
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if n := len([]rune(l)); n > width {
				t.Errorf("width %d: a line of %d columns:\n%s", width, n, text)
			}
		}
		if got := strings.Join(strings.Fields(text), " "); !strings.Contains(got, "path:string [pattern:string] [recursive:string] [max_depth:string] [include_hidden:string] [follow_links:string] [ignore_case:string] now") {
			t.Errorf("width %d: the parameters are not all there, in order, before the next tool:\n%s", width, text)
		}
	}
}

// TestToolsListTellsStarting: the MCP servers about to be started are
// named before the wait, which npx may make long.
func TestToolsListTellsStarting(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	opts := &toolsListOptions{IO: &ioStreams{Out: &out, Err: &errOut}, Tools: toolset.Of(testRegistry(t)), Starting: []string{"fs", "git\x1b[2J"}}
	if err := runToolsList(opts); err != nil {
		t.Fatal(err)
	}
	want := "kesoku: starting the MCP servers fs, git\\x1b[2J to list their tools (one run by npx or uvx may first download its package)…\n"
	if got := errOut.String(); got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	// tools schema of every tool, the same.
	errOut.Reset()
	sopts := &toolsSchemaOptions{IO: &ioStreams{Out: &out, Err: &errOut}, Tools: toolset.Of(testRegistry(t)), Format: defaultSchemaFormat, Starting: []string{"fs"}}
	if err := runToolsSchema(sopts); err != nil {
		t.Fatal(err)
	}
	if got := errOut.String(); !strings.HasPrefix(got, "kesoku: starting the MCP server fs to list its tools") {
		t.Errorf("tools schema: stderr %q", got)
	}
}

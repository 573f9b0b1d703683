package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/registry"
)

// searchFixture is a small source tree with the things a search must skip.
func searchFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	writeFiles(t, f.awd, map[string]string{
		"main.go":              "package main\n\nfunc main() {\n\tserve()\n}\n",
		"server.go":            "package main\n\n// TODO: timeouts\nfunc serve() {}\n",
		"README.md":            "# demo\nSee main.go. todo: docs\n",
		"web/app.ts":           "export const todo = 1;\n",
		"web/app.tsx":          "<App/> // TODO\n",
		"web/app.js":           "// TODO in js\n",
		"web/deep/er/x.ts":     "// deep TODO\n",
		".github/ci.yml":       "on: push # TODO\n",
		".git/HEAD":            "ref: TODO\n",
		".kesoku/sessions/s1":  `{"content":"TODO"}` + "\n",
		"node_modules/m/i.js":  "// TODO module\n",
		"build/out.go":         "package out // TODO\n",
		"logs/a.log":           "TODO log\n",
		"logs/keep.log":        "TODO keep\n",
		"logs/.gitignore":      "!keep.log\n",
		"pic.png":              "\x89PNG\r\n\x1a\n\x00\x00TODO",
		"crlf.txt":             "TODO crlf\r\n",
		"sub/nested/TODO.txt":  "nothing here\n",
		".gitignore":           "# deps\nnode_modules/\n/build\n*.log\n",
		"sub/nested/.keep":     "",
		"sub/nested/upper.txt": "ToDo upper\n",
	})
	writeFiles(t, f.staging, map[string]string{"brief.md": "TODO staged\n"})
	return f
}

func TestGlob(t *testing.T) {
	t.Parallel()
	f := searchFixture(t)
	staged := filepath.Join(f.staging, "brief.md")
	tests := []struct {
		pattern, path string
		want          []string
	}{
		{"*.go", "", []string{"main.go", "server.go"}},
		{"**/*.go", "", []string{"main.go", "server.go"}},
		{"**/*.ts", "", []string{"web/app.ts", "web/deep/er/x.ts"}},
		{"web/**/*.{ts,tsx}", "", []string{"web/app.ts", "web/app.tsx", "web/deep/er/x.ts"}},
		{"web/*", "", []string{"web/app.js", "web/app.ts", "web/app.tsx", "web/deep/"}},
		{"*.ts", "web", []string{"web/app.ts"}},
		{"**/*.md", "", []string{"README.md", staged}},
		{"*.md", f.staging, []string{staged}},
		{"brief.md", "", []string{staged}},
		{"README.md", "", []string{"README.md"}},
		{"./web/../main.go", "", []string{"main.go"}},
		{f.awd + "/web/*.js", "", []string{"web/app.js"}},
		{"**/*.yml", "", []string{".github/ci.yml"}},
		{"**/HEAD", "", nil},
		{"**/s1", "", nil},
		{".kesoku/**", "", []string{".kesoku/sessions/", ".kesoku/sessions/s1"}},
		{"**/i.js", "", nil},
		{"node_modules/**/*.js", "", []string{"node_modules/m/i.js"}},
		{"**/*.log", "", []string{"logs/keep.log"}},
		{"build/*", "", []string{"build/out.go"}},
		{"**/inner*", "", nil},
		{"out-*", "", []string{"out-dir", "out-dir-rel", "out-file", "out-file-rel"}},
		{"nothing*", "", nil},
		{"{main,server}.go", "", []string{"main.go", "server.go"}},
		{"{web,sub}/**/*.t{s,xt}", "", []string{"web/app.ts", "web/deep/er/x.ts", "sub/nested/TODO.txt", "sub/nested/upper.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" in "+tt.path, func(t *testing.T) {
			t.Parallel()
			got, err := Glob(context.Background(), f.tc, tt.pattern, tt.path)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, got.Matches); diff != "" {
				t.Errorf("Glob(%q, %q) mismatch (-want +got):\n%s", tt.pattern, tt.path, diff)
			}
			if got.Total != len(want) || got.Truncated {
				t.Errorf("Total = %d, Truncated = %v, want %d, false", got.Total, got.Truncated, len(want))
			}
			for _, m := range got.Matches {
				if strings.Contains(m, f.outside) {
					t.Errorf("match %q is outside the workspace", m)
				}
			}
		})
	}
}

func TestGlobNotes(t *testing.T) {
	t.Parallel()
	f := searchFixture(t)
	got, err := Glob(context.Background(), f.tc, "**/i.js", "")
	must(t, err)
	if want := `nothing matches "**/i.js" outside the 3 entries that .gitignore files exclude`; !strings.HasPrefix(got.Note, want) {
		t.Errorf("note %q does not start with %q", got.Note, want)
	}
}

func TestGlobErrors(t *testing.T) {
	t.Parallel()
	f := searchFixture(t)
	ctx := context.Background()
	_, err := Glob(ctx, f.tc, "[", "")
	assertInvalidArg(t, err, "pattern", `malformed element "["`)
	_, err = Glob(ctx, f.tc, strings.Repeat("{a,b}", 9), "")
	assertInvalidArg(t, err, "pattern", "braces expand to more than 256 alternatives")
	_, err = Glob(ctx, f.tc, "*", "main.go")
	assertInvalidArg(t, err, "path", `path "main.go" is not a directory`)
	_, err = Glob(ctx, f.tc, "*", "nowhere")
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Glob in a missing directory: error = %v, want not found", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Glob(cctx, f.tc, "**", ""); !errors.Is(err, context.Canceled) {
		t.Errorf("Glob with a cancelled context: error = %v, want context.Canceled", err)
	}
}

func TestGlobCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	files := map[string]string{}
	for i := range globMaxMatches + 100 {
		files[fmt.Sprintf("d%d/f%03d.txt", i%3, i)] = ""
	}
	writeFiles(t, f.awd, files)
	got, err := Glob(context.Background(), f.tc, "**/*.txt", "")
	must(t, err)
	if len(got.Matches) != globMaxMatches || got.Total != globMaxMatches+100 || !got.Truncated {
		t.Errorf("got %d matches of %d (truncated %v), want %d of %d, truncated", len(got.Matches), got.Total, got.Truncated, globMaxMatches, globMaxMatches+100)
	}
	if want := "showing the first 500 of 600 matches"; !strings.Contains(got.Note, want) {
		t.Errorf("note %q does not contain %q", got.Note, want)
	}
}

func TestGrep(t *testing.T) {
	t.Parallel()
	f := searchFixture(t)
	staged := filepath.Join(f.staging, "brief.md")
	tests := []struct {
		name       string
		pattern    string
		path, glob string
		ignoreCase bool
		want       []string
		searched   int
	}{
		{name: "everywhere", pattern: "TODO", want: []string{
			".github/ci.yml:1: on: push # TODO",
			"crlf.txt:1: TODO crlf",
			"logs/keep.log:1: TODO keep",
			"server.go:3: // TODO: timeouts",
			"web/app.js:1: // TODO in js",
			"web/app.tsx:1: <App/> // TODO",
			"web/deep/er/x.ts:1: // deep TODO",
			staged + ":1: TODO staged",
		}, searched: 16},
		{name: "ignore case", pattern: "todo", ignoreCase: true, path: "sub", want: []string{
			"sub/nested/upper.txt:1: ToDo upper",
		}, searched: 3},
		{name: "glob by name", pattern: "TODO", glob: "*.{ts,tsx}", want: []string{
			"web/app.tsx:1: <App/> // TODO",
			"web/deep/er/x.ts:1: // deep TODO",
		}, searched: 3},
		{name: "glob by path", pattern: "TODO", glob: "web/*", want: []string{
			"web/app.js:1: // TODO in js",
			"web/app.tsx:1: <App/> // TODO",
		}, searched: 3},
		{name: "regexp", pattern: `func \w+\(\)`, path: ".", want: []string{
			"main.go:3: func main() {",
			"server.go:4: func serve() {}",
		}, searched: 15},
		{name: "one file", pattern: "TODO", path: "README.md", want: nil, searched: 1},
		{name: "one staged file", pattern: "staged", path: "brief.md", want: []string{staged + ":1: TODO staged"}, searched: 1},
		{name: "ignored directory named", pattern: "TODO", path: "node_modules", want: []string{"node_modules/m/i.js:1: // TODO module"}, searched: 1},
		{name: "kesoku directory named", pattern: "TODO", path: ".kesoku", want: []string{`.kesoku/sessions/s1:1: {"content":"TODO"}`}, searched: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Grep(context.Background(), f.tc, tt.pattern, tt.path, tt.glob, tt.ignoreCase, 100)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == nil {
				want = []string{}
			}
			if diff := cmp.Diff(want, got.Matches); diff != "" {
				t.Errorf("matches mismatch (-want +got):\n%s", diff)
			}
			if got.FilesSearched != tt.searched {
				t.Errorf("FilesSearched = %d, want %d", got.FilesSearched, tt.searched)
			}
			for _, m := range got.Matches {
				if strings.Contains(m, secret) {
					t.Errorf("match %q comes from outside the workspace", m)
				}
			}
		})
	}
}

func TestGrepNotes(t *testing.T) {
	t.Parallel()
	f := searchFixture(t)
	ctx := context.Background()
	got, err := Grep(ctx, f.tc, "no such text", "", "", false, 100)
	must(t, err)
	want := "no match in 16 files; 3 entries that .gitignore files exclude were not searched (name one in path to search it); 1 file skipped as binary"
	if got.Note != want {
		t.Errorf("note = %q, want %q", got.Note, want)
	}
	_, err = Grep(ctx, f.tc, "TODO", "pic.png", "", false, 100)
	if err == nil || !strings.Contains(err.Error(), `path "pic.png" is a binary file (image/png); grep searches text`) {
		t.Errorf("grep of a named binary file: error = %v", err)
	}
}

func TestGrepCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFiles(t, f.awd, map[string]string{
		"a.txt":    strings.Repeat("match\n", 700),
		"b.txt":    strings.Repeat("match\n", 700),
		"long.txt": "match " + strings.Repeat("x", 1000) + "\n",
	})
	ctx := context.Background()
	got, err := Grep(ctx, f.tc, "match", "", "", false, 5)
	must(t, err)
	if len(got.Matches) != 5 || !got.Truncated || got.Matches[4] != "a.txt:5: match" {
		t.Errorf("max_results 5: got %d matches, truncated %v: %q", len(got.Matches), got.Truncated, got.Matches)
	}
	if want := "stopped after 5 matches; more remain"; !strings.Contains(got.Note, want) {
		t.Errorf("note %q does not contain %q", got.Note, want)
	}
	got, err = Grep(ctx, f.tc, "match", "", "", false, 1)
	must(t, err)
	if want := "stopped after 1 match; more remain"; !strings.Contains(got.Note, want) {
		t.Errorf("note %q does not contain %q", got.Note, want)
	}
	got, err = Grep(ctx, f.tc, "match", "", "", false, 5000)
	must(t, err)
	if len(got.Matches) != grepMaxResults || !got.Truncated || !strings.Contains(got.Note, "max_results is at most 1000") {
		t.Errorf("max_results 5000: got %d matches, truncated %v, note %q", len(got.Matches), got.Truncated, got.Note)
	}
	got, err = Grep(ctx, f.tc, "match", "long.txt", "", false, 5)
	must(t, err)
	if want := "long.txt:1: match " + strings.Repeat("x", grepShowBytes-len("match ")) + "…"; got.Matches[0] != want {
		t.Errorf("long line shown as %q, want %q", got.Matches[0], want)
	}
}

func TestGrepErrors(t *testing.T) {
	t.Parallel()
	f := searchFixture(t)
	ctx := context.Background()
	_, err := Grep(ctx, f.tc, "a(", "", "", false, 100)
	assertInvalidArg(t, err, "pattern", "missing closing )")
	_, err = Grep(ctx, f.tc, "a", "", "[", false, 100)
	assertInvalidArg(t, err, "glob", "malformed")
	// The same words as glob's own refusal of the pattern.
	assertInvalidArg(t, err, "glob", `pattern "[": malformed element "["`)
	_, err = Grep(ctx, f.tc, "a", "", "", false, 0)
	assertInvalidArg(t, err, "max_results", "ask for at least 1")
	if _, err := Grep(ctx, f.tc, "a", "nowhere", "", false, 100); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("grep in a missing path: error = %v, want not found", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Grep(cctx, f.tc, "TODO", "", "", false, 100); !errors.Is(err, context.Canceled) {
		t.Errorf("Grep with a cancelled context: error = %v, want context.Canceled", err)
	}
}

// TestSearchDoesNotFollowLinks checks that links met by a walk, rather
// than named, are not followed out of the workspace.
func TestSearchDoesNotFollowLinks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	got, err := Grep(context.Background(), f.tc, "SECRET", "", "", false, 1000)
	must(t, err)
	if len(got.Matches) != 0 {
		t.Errorf("grep through links found %q", got.Matches)
	}
	g, err := Glob(context.Background(), f.tc, "**/*.go", "")
	must(t, err)
	if len(g.Matches) != 0 {
		t.Errorf("glob through links found %q", g.Matches)
	}
}

// TestSearchStagingInsideAWD puts staging inside the AWD, where it is by
// default and elsewhere: a search of both finds each staged file once,
// under its path from the AWD.
func TestSearchStagingInsideAWD(t *testing.T) {
	t.Parallel()
	for _, staging := range []string{".kesoku/staging", "inputs"} {
		t.Run(staging, func(t *testing.T) {
			t.Parallel()
			awd := t.TempDir()
			writeFiles(t, awd, map[string]string{
				staging + "/brief.md": "TODO staged\n",
				"notes.md":            "TODO here\n",
			})
			tc := &registry.ToolContext{AWD: awd, Staging: filepath.Join(awd, filepath.FromSlash(staging))}
			g, err := Glob(context.Background(), tc, "**/*.md", "")
			must(t, err)
			want := []string{"notes.md", staging + "/brief.md"}
			if diff := cmp.Diff(want, g.Matches); diff != "" {
				t.Errorf("glob mismatch (-want +got):\n%s", diff)
			}
			r, err := Grep(context.Background(), tc, "TODO", "", "", false, 10)
			must(t, err)
			want = []string{"notes.md:1: TODO here", staging + "/brief.md:1: TODO staged"}
			if diff := cmp.Diff(want, r.Matches); diff != "" {
				t.Errorf("grep mismatch (-want +got):\n%s", diff)
			}
			c, err := ReadFile(context.Background(), tc, "brief.md", 1, 10)
			must(t, err)
			if c.Path != staging+"/brief.md" {
				t.Errorf("read_file path = %q, want %q", c.Path, staging+"/brief.md")
			}
		})
	}
}

package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/workspace"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name    string
		path    string
		content string
		append  bool
		want    *Written
		file    string // the file's content afterwards
	}{
		{"create with parents", "new/deep/a.txt", "hello\n", false,
			&Written{Path: "new/deep/a.txt", BytesWritten: 6}, "hello\n"},
		{"replace", "new/deep/a.txt", "bye\n", false,
			&Written{Path: "new/deep/a.txt", BytesWritten: 4}, "bye\n"},
		{"append", "new/deep/a.txt", "more\n", true,
			&Written{Path: "new/deep/a.txt", BytesWritten: 5, Appended: true}, "bye\nmore\n"},
		{"append creates", "b.txt", "b", true,
			&Written{Path: "b.txt", BytesWritten: 1, Appended: true}, "b"},
		{"absolute inside", filepath.Join(f.awd, "c.txt"), "ç", false,
			&Written{Path: "c.txt", BytesWritten: 2}, "ç"},
		{"empty content", "empty.txt", "", false,
			&Written{Path: "empty.txt"}, ""},
	}
	// Sequential: the cases build on each other.
	for _, tt := range tests {
		got, err := WriteFile(context.Background(), f.tc, tt.path, tt.content, tt.append)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: mismatch (-want +got):\n%s", tt.name, diff)
		}
		data, err := os.ReadFile(filepath.Join(f.awd, filepath.FromSlash(tt.want.Path)))
		must(t, err)
		if string(data) != tt.file {
			t.Errorf("%s: file holds %q, want %q", tt.name, data, tt.file)
		}
	}
}

func TestWriteFileRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFiles(t, f.staging, map[string]string{"input.txt": "input"})
	_, err := WriteFile(context.Background(), f.tc, filepath.Join(f.staging, "input.txt"), "x", false)
	assertInvalidArg(t, err, "path", "is read-only to tools (it is in staging")
	// The transcript being written and the saved outputs are kesoku's own.
	_, err = WriteFile(context.Background(), f.tc, ".kesoku/sessions/s.jsonl", "x", false)
	assertInvalidArg(t, err, "path", "is read-only to tools (it is in .kesoku")
	_, err = WriteFile(context.Background(), f.tc, "", "x", false)
	assertInvalidArg(t, err, "path", "is not a valid path")
	if _, err := WriteFile(context.Background(), f.tc, "sub", "x", false); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("writing onto a directory: error = %v, want \"is a directory\"", err)
	}
	if _, err := WriteFile(context.Background(), f.tc, ".", "x", false); err == nil {
		t.Errorf("writing onto the AWD itself succeeded")
	}
	data, err := os.ReadFile(filepath.Join(f.staging, "input.txt"))
	must(t, err)
	if string(data) != "input" {
		t.Errorf("staged input changed to %q", data)
	}
}

func TestListDir(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFiles(t, f.awd, map[string]string{"b.txt": "bb", "a.txt": "", "sub/c": "c"})
	writeFiles(t, f.staging, map[string]string{"in/x.pdf": "%PDF"})
	size := func(n int64) *int64 { return &n }
	tests := []struct {
		path string
		want *Listing
	}{
		{"", &Listing{Path: ".", Total: 8, Entries: []Entry{
			{Name: "a.txt", Type: "file", Size: size(0)},
			{Name: "b.txt", Type: "file", Size: size(2)},
			{Name: "out-dir", Type: "symlink"},
			{Name: "out-dir-rel", Type: "symlink"},
			{Name: "out-file", Type: "symlink"},
			{Name: "out-file-rel", Type: "symlink"},
			{Name: "sub", Type: "dir"},
			{Name: "x", Type: "dir"},
		}}},
		{"sub/", &Listing{Path: "sub", Total: 2, Entries: []Entry{
			{Name: "c", Type: "file", Size: size(1)},
			{Name: "out-mid", Type: "symlink"},
		}}},
		{"in", &Listing{Path: filepath.Join(f.staging, "in"), Total: 1, Entries: []Entry{
			{Name: "x.pdf", Type: "file", Size: size(4)},
		}}},
		{"x", &Listing{Path: "x", Entries: []Entry{}, Note: "the directory is empty"}},
	}
	must(t, os.Mkdir(filepath.Join(f.awd, "x"), 0o755))
	for _, tt := range tests {
		got, err := ListDir(context.Background(), f.tc, tt.path)
		if err != nil {
			t.Errorf("ListDir(%q): %v", tt.path, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ListDir(%q) mismatch (-want +got):\n%s", tt.path, diff)
		}
	}
	if _, err := ListDir(context.Background(), f.tc, "b.txt"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("ListDir of a file: error = %v, want \"not a directory\"", err)
	}
}

func TestListDirCap(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	files := map[string]string{}
	for i := range listMaxEntries + 5 {
		files[fmt.Sprintf("many/f%04d", i)] = ""
	}
	writeFiles(t, f.awd, files)
	got, err := ListDir(context.Background(), f.tc, "many")
	must(t, err)
	if len(got.Entries) != listMaxEntries || got.Total != listMaxEntries+5 {
		t.Errorf("got %d entries of %d, want %d of %d", len(got.Entries), got.Total, listMaxEntries, listMaxEntries+5)
	}
	if last := got.Entries[len(got.Entries)-1].Name; last != fmt.Sprintf("f%04d", listMaxEntries-1) {
		t.Errorf("last entry %q: the listing is not the first by name", last)
	}
	if want := "showing the first 1000 of 1005 entries"; !strings.Contains(got.Note, want) {
		t.Errorf("note %q does not contain %q", got.Note, want)
	}
}

// TestWriteFileProtected: the files the command protects through the
// ToolContext (an -o file, the config file) are read-only to write_file.
func TestWriteFileProtected(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFiles(t, f.awd, map[string]string{"out.jsonl": "{}\n"})
	ctx := toolset.WithEnv(context.Background(), &toolset.Env{Protected: []workspace.Protected{
		{Path: filepath.Join(f.awd, "out.jsonl"), Why: "it is the file this run writes its records to"},
		{Path: filepath.Join(f.awd, "kesoku.yaml"), Why: "it is kesoku's config file"},
	}})
	for _, name := range []string{"out.jsonl", "kesoku.yaml"} {
		for _, app := range []bool{false, true} {
			_, err := WriteFile(ctx, f.tc, name, "pwned", app)
			assertInvalidArg(t, err, "path", "is read-only to tools (it is")
		}
	}
	data, err := os.ReadFile(filepath.Join(f.awd, "out.jsonl"))
	must(t, err)
	if string(data) != "{}\n" {
		t.Errorf("out.jsonl holds %q", data)
	}
	if _, err := os.Stat(filepath.Join(f.awd, "kesoku.yaml")); err == nil {
		t.Errorf("kesoku.yaml was created")
	}
	if _, err := ReadFile(context.Background(), f.tc, "out.jsonl", 1, 10); err != nil {
		t.Errorf("read_file of a protected file: %v", err)
	}
}

package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// numbered returns n lines "line 1\n" … "line n\n".
func numbered(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	long := strings.Repeat("é", 1500) // 3000 bytes
	writeFiles(t, f.awd, map[string]string{
		"small.txt":    "one\ntwo\nthree\n",
		"no-eol.txt":   "one\ntwo",
		"crlf.txt":     "one\r\ntwo\r\n",
		"empty.txt":    "",
		"big.txt":      numbered(1, 10000),
		"long.txt":     "short\n" + long + "\nafter\n",
		"latin1.txt":   "caf\xe9\n",
		"sub/deep.txt": "deep\n",
	})
	writeFiles(t, f.staging, map[string]string{"input.md": "# staged\n"})
	tests := []struct {
		name          string
		path          string
		offset, limit int
		want          *FileContent
	}{
		{"whole small file", "small.txt", 1, 2000, &FileContent{
			Path: "small.txt", Content: "one\ntwo\nthree\n", StartLine: 1, EndLine: 3, TotalLines: 3}},
		{"no final newline", "no-eol.txt", 1, 2000, &FileContent{
			Path: "no-eol.txt", Content: "one\ntwo", StartLine: 1, EndLine: 2, TotalLines: 2}},
		{"crlf kept", "crlf.txt", 1, 2000, &FileContent{
			Path: "crlf.txt", Content: "one\r\ntwo\r\n", StartLine: 1, EndLine: 2, TotalLines: 2}},
		{"empty", "empty.txt", 1, 2000, &FileContent{
			Path: "empty.txt", StartLine: 1, EndLine: 0, TotalLines: 0, Note: "the file is empty"}},
		{"offset 0 is line 1", "small.txt", 0, 1, &FileContent{
			Path: "small.txt", Content: "one\n", StartLine: 1, EndLine: 1, TotalLines: 3, NextOffset: 2,
			Note: "showing lines 1-1 of 3; read on with offset=2"}},
		{"middle lines", "small.txt", 2, 1, &FileContent{
			Path: "small.txt", Content: "two\n", StartLine: 2, EndLine: 2, TotalLines: 3, NextOffset: 3,
			Note: "showing lines 2-2 of 3; read on with offset=3"}},
		{"first page of a big file", "big.txt", 1, 2000, &FileContent{
			Path: "big.txt", Content: numbered(1, 2000), StartLine: 1, EndLine: 2000, TotalLines: 10000, NextOffset: 2001,
			Note: "showing lines 1-2000 of 10000; read on with offset=2001"}},
		{"limit above the page size", "big.txt", 2001, 5000, &FileContent{
			Path: "big.txt", Content: numbered(2001, 4000), StartLine: 2001, EndLine: 4000, TotalLines: 10000, NextOffset: 4001,
			Note: "showing lines 2001-4000 of 10000; read on with offset=4001"}},
		{"last page of a big file", "big.txt", 9990, 2000, &FileContent{
			Path: "big.txt", Content: numbered(9990, 10000), StartLine: 9990, EndLine: 10000, TotalLines: 10000}},
		{"long line cut at a character", "long.txt", 1, 2000, &FileContent{
			Path: "long.txt", Content: "short\n" + strings.Repeat("é", 1000) + " [… 1000 more bytes cut]\nafter\n",
			StartLine: 1, EndLine: 3, TotalLines: 3, Note: "lines longer than 2000 bytes were cut: 2"}},
		{"legacy encoding is text", "latin1.txt", 1, 2000, &FileContent{
			Path: "latin1.txt", Content: "caf\xe9\n", StartLine: 1, EndLine: 1, TotalLines: 1}},
		{"from staging", "input.md", 1, 2000, &FileContent{
			Path: filepath.Join(f.staging, "input.md"), Content: "# staged\n", StartLine: 1, EndLine: 1, TotalLines: 1}},
		{"absolute in staging", filepath.Join(f.staging, "input.md"), 1, 2000, &FileContent{
			Path: filepath.Join(f.staging, "input.md"), Content: "# staged\n", StartLine: 1, EndLine: 1, TotalLines: 1}},
		{"absolute in awd", filepath.Join(f.awd, "sub", "deep.txt"), 1, 2000, &FileContent{
			Path: "sub/deep.txt", Content: "deep\n", StartLine: 1, EndLine: 1, TotalLines: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadFile(context.Background(), f.tc, tt.path, tt.offset, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadFile(%q, %d, %d) mismatch (-want +got):\n%s", tt.path, tt.offset, tt.limit, diff)
			}
		})
	}
}

func TestReadFilePagesByBytes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	line := strings.Repeat("x", 999) + "\n"
	writeFiles(t, f.awd, map[string]string{"wide.txt": strings.Repeat(line, 1000)})
	var all strings.Builder
	offset, pages := 1, 0
	for offset > 0 {
		got, err := ReadFile(context.Background(), f.tc, "wide.txt", offset, 2000)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Content) > readMaxBytes {
			t.Fatalf("page at offset %d holds %d bytes, more than %d", offset, len(got.Content), readMaxBytes)
		}
		if got.NextOffset > 0 && !strings.Contains(got.Note, "a page holds at most 128 KiB") {
			t.Errorf("note %q does not say why the page stopped", got.Note)
		}
		all.WriteString(got.Content)
		offset = got.NextOffset
		pages++
	}
	if all.String() != strings.Repeat(line, 1000) {
		t.Errorf("the pages do not add up to the file")
	}
	if pages != 8 {
		t.Errorf("read in %d pages, want 8 (1000 KB in 128 KiB pages)", pages)
	}
}

func TestReadFileErrors(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
	writeFiles(t, f.awd, map[string]string{
		"small.txt":  "one\ntwo\n",
		"image.png":  png,
		"doc.pdf":    "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n",
		"nul.bin":    "text\x00more",
		"report.txt": "r\n",
	})
	ctx := context.Background()
	t.Run("offset past the end", func(t *testing.T) {
		_, err := ReadFile(ctx, f.tc, "small.txt", 3, 10)
		assertInvalidArg(t, err, "offset", `line 3 is past the end: "small.txt" has 2 lines`)
	})
	t.Run("negative offset", func(t *testing.T) {
		_, err := ReadFile(ctx, f.tc, "small.txt", -1, 10)
		assertInvalidArg(t, err, "offset", "lines count from 1")
	})
	t.Run("zero limit", func(t *testing.T) {
		_, err := ReadFile(ctx, f.tc, "small.txt", 1, 0)
		assertInvalidArg(t, err, "limit", "read at least 1")
	})
	for _, tt := range []struct{ path, want string }{
		{"image.png", `path "image.png" is a binary file (image/png), not text; analyze_media can look at images`},
		{"doc.pdf", `path "doc.pdf" is a binary file (application/pdf), not text; analyze_media`},
		{"nul.bin", `path "nul.bin" is a binary file (application/octet-stream), not text`},
		{"sub", `path "sub" is a directory; list_dir shows what it holds`},
		{"reprot.txt", `path "reprot.txt": no such file or directory (did you mean "report.txt"?)`},
		{"nowhere/x", `path "nowhere/x": no such file or directory`},
	} {
		t.Run(tt.path, func(t *testing.T) {
			_, err := ReadFile(ctx, f.tc, tt.path, 1, 10)
			if err == nil {
				t.Fatalf("ReadFile(%q) succeeded", tt.path)
			}
			if got := err.Error(); got != tt.want && !strings.HasPrefix(got, tt.want) {
				t.Errorf("ReadFile(%q) error = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
	t.Run("a missing file is no invalid argument", func(t *testing.T) {
		_, err := ReadFile(ctx, f.tc, "nope", 1, 10)
		if !errors.Is(err, os.ErrNotExist) {
			t.Errorf("error %v is not ErrNotExist", err)
		}
	})
}

// TestReadFileHugeLine reads a file of one 32 MiB line: the memory a read
// takes must not grow with the line.
func TestReadFileHugeLine(t *testing.T) {
	f := newFixture(t)
	p := filepath.Join(f.awd, "huge.txt")
	chunk := []byte(strings.Repeat("a", 1<<20))
	file, err := os.Create(p)
	must(t, err)
	for range 32 {
		_, err := file.Write(chunk)
		must(t, err)
	}
	_, err = file.WriteString("\nend\n")
	must(t, err)
	must(t, file.Close())

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := ReadFile(context.Background(), f.tc, "huge.txt", 1, 2000)
	runtime.ReadMemStats(&after)
	must(t, err)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("reading a 32 MiB line allocated %d bytes, want under 4 MiB", alloc)
	}
	want := &FileContent{
		Path:       "huge.txt",
		Content:    strings.Repeat("a", 2000) + fmt.Sprintf(" [… %d more bytes cut]\nend\n", 32<<20-2000),
		StartLine:  1,
		EndLine:    2,
		TotalLines: 2,
		Note:       "lines longer than 2000 bytes were cut: 1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestReadFileCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFiles(t, f.awd, map[string]string{"big.txt": numbered(1, 10000)})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadFile(ctx, f.tc, "big.txt", 1, 10); !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
}

// TestFileToolsRefuseEscapes runs every path escape through every file
// tool: each must be refused as an invalid argument, read nothing from
// outside and change nothing there.
func TestFileToolsRefuseEscapes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	tools := map[string]func(path string) (any, error){
		"read_file": func(p string) (any, error) { return ReadFile(ctx, f.tc, p, 1, 2000) },
		"write_file": func(p string) (any, error) {
			return WriteFile(context.Background(), f.tc, filepath.Join(p, "new.txt"), "pwned", false)
		},
		"write_file onto": func(p string) (any, error) { return WriteFile(context.Background(), f.tc, p, "pwned", false) },
		"append":          func(p string) (any, error) { return WriteFile(context.Background(), f.tc, p, "pwned", true) },
		"list_dir":        func(p string) (any, error) { return ListDir(ctx, f.tc, p) },
		"glob path":       func(p string) (any, error) { return Glob(ctx, f.tc, "**", p) },
		"glob pattern":    func(p string) (any, error) { return Glob(ctx, f.tc, p+"/**", "") },
		"glob literal":    func(p string) (any, error) { return Glob(ctx, f.tc, p, "") },
		"grep":            func(p string) (any, error) { return Grep(ctx, f.tc, "SECRET", p, "", false, 100) },
	}
	for toolName, call := range tools {
		for name, p := range f.escapes() {
			t.Run(toolName+"/"+name, func(t *testing.T) {
				got, err := call(p)
				if err == nil {
					t.Fatalf("%s(%q) = %+v, want it refused", toolName, p, got)
				}
				if !toolspec.IsInvalidArgs(err) {
					t.Errorf("%s(%q) error %q is not an invalid argument", toolName, p, err)
				}
				if !strings.Contains(err.Error(), "leads outside the working directory") {
					t.Errorf("%s(%q) error %q does not say the path leads outside", toolName, p, err)
				}
			})
		}
	}
	f.assertOutsideIntact(t)
}

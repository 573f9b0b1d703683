package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kesoku/kesoku/registry"
)

// The bounds of one read_file call. A page is at most readMaxLines lines
// and readMaxBytes of text, about 32k tokens: enough to see a large part
// of a file, small enough to leave a model's context room. Lines longer
// than readMaxLineBytes (minified code, data) are cut.
const (
	readMaxLines     = 2000
	readMaxBytes     = 128 << 10
	readMaxLineBytes = 2000
)

// FileContent is one page of a text file.
type FileContent struct {
	// Path is the file's path as the other tools take it.
	Path string `json:"path"`
	// Content is the text of lines StartLine to EndLine, with their line
	// ends, as in the file.
	Content string `json:"content"`
	// StartLine and EndLine are the 1-based first and last lines given;
	// EndLine is StartLine-1 when no line is.
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	// TotalLines is the number of lines in the file.
	TotalLines int `json:"total_lines"`
	// NextOffset is the offset to continue from when more lines remain.
	NextOffset int `json:"next_offset,omitempty"`
	// Note says in words what was left out, if anything.
	Note string `json:"note,omitempty"`
}

// ReadFile reads a text file, one page of lines at a time.
//
// The result gives the lines asked for, the file's total number of lines
// and, when more remain, the offset to continue from. A page holds at most
// 2000 lines and 128 KiB of text; lines longer than 2000 bytes are cut.
// Binary files are refused.
//
// Args:
//
//	path: The file to read: relative to the working directory (or, failing
//	  that, staging), or absolute inside either.
//	offset: The 1-based number of the first line to read. Defaults to 1.
//	limit: The largest number of lines to read, at most 2000. Defaults to 2000.
//
//kesoku:tool check=checkPath
func ReadFile(ctx context.Context, tc *registry.ToolContext, path string, offset, limit int) (*FileContent, error) {
	if offset < 0 {
		return nil, registry.InvalidArg("offset", fmt.Errorf("%d is not a line number: lines count from 1", offset))
	}
	offset = max(offset, 1)
	if limit < 1 {
		return nil, registry.InvalidArg("limit", fmt.Errorf("%d lines: read at least 1", limit))
	}
	limit = min(limit, readMaxLines)

	ws, err := openWorkspace(ctx, tc)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	loc, err := locate(ws, "path", path)
	if err != nil {
		return nil, err
	}
	// Stat before opening: opening a FIFO would block until a writer came.
	fi, err := loc.Stat()
	if err != nil {
		return nil, pathArgErr(ws, "path", path, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("path %q is a directory; list_dir shows what it holds", path)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("path %q is not a regular file (%s)", path, fi.Mode().Type())
	}
	f, err := loc.Open()
	if err != nil {
		return nil, pathArgErr(ws, "path", path, err)
	}
	defer f.Close()

	br := bufio.NewReaderSize(f, 64<<10)
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("read %q: %w", path, err)
	}
	if mime, binary := binaryType(head); binary {
		return nil, fmt.Errorf("path %q is a binary file (%s), not text%s", path, mime, mediaHint(mime))
	}

	res := &FileContent{Path: loc.Display(), StartLine: offset, EndLine: offset - 1}
	var (
		text     strings.Builder
		cut      []int // numbers of lines cut to readMaxLineBytes
		byteStop bool  // the page ended at readMaxBytes, before limit lines
	)
	lr := newLineReader(br, readMaxLineBytes)
	n := 0
	for {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		inPage := n+1 >= offset && n+1 < offset+limit && !byteStop
		l, err := lr.next(inPage)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %q: %w", path, err)
		}
		n++
		if !inPage {
			continue
		}
		s := pageLine(l)
		if text.Len()+len(s) > readMaxBytes && n > offset {
			byteStop = true
			continue
		}
		if l.dropped > 0 {
			cut = append(cut, n)
		}
		text.WriteString(s)
		res.EndLine = n
	}
	res.TotalLines = n
	res.Content = text.String()
	if offset > n && offset > 1 {
		return nil, registry.InvalidArg("offset", fmt.Errorf("line %d is past the end: %q has %d lines", offset, path, n))
	}
	if res.EndLine < n {
		res.NextOffset = res.EndLine + 1
	}
	res.Note = pageNote(res, cut, byteStop)
	return res, nil
}

// pageLine renders l for a page: its text, a mark where it was cut, and
// its line end.
func pageLine(l line) string {
	text := l.text
	dropped := l.dropped
	if dropped > 0 {
		// Cut at a character boundary, not inside one.
		keep := trimPartialRune(text)
		dropped += len(text) - len(keep)
		text = keep
	}
	var b strings.Builder
	b.Grow(len(text) + 40)
	b.Write(text)
	if dropped > 0 {
		fmt.Fprintf(&b, " [… %d more bytes cut]", dropped)
	}
	if l.newline {
		b.WriteByte('\n')
	}
	return b.String()
}

// pageNote says in words what a page leaves out, so that a model knows to
// read on.
func pageNote(res *FileContent, cut []int, byteStop bool) string {
	var notes []string
	switch {
	case res.TotalLines == 0:
		notes = append(notes, "the file is empty")
	case res.NextOffset > 0:
		why := ""
		if byteStop {
			why = fmt.Sprintf(" (a page holds at most %d KiB)", readMaxBytes>>10)
		}
		notes = append(notes, fmt.Sprintf("showing lines %d-%d of %d%s; read on with offset=%d",
			res.StartLine, res.EndLine, res.TotalLines, why, res.NextOffset))
	}
	if len(cut) > 0 {
		shown := cut
		if len(shown) > 5 {
			shown = shown[:5]
		}
		nums := make([]string, len(shown))
		for i, c := range shown {
			nums[i] = fmt.Sprint(c)
		}
		more := ""
		if len(cut) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(cut)-len(shown))
		}
		notes = append(notes, fmt.Sprintf("lines longer than %d bytes were cut: %s%s", readMaxLineBytes, strings.Join(nums, ", "), more))
	}
	return strings.Join(notes, "; ")
}

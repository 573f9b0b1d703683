package tools

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/kesoku/kesoku/registry"
)

// Written is what write_file reports.
type Written struct {
	// Path is the file's path as the other tools take it.
	Path string `json:"path"`
	// BytesWritten is the number of bytes written.
	BytesWritten int `json:"bytes_written"`
	// Appended reports whether the bytes were added at the end of the file
	// rather than replacing it.
	Appended bool `json:"appended,omitempty"`
}

// WriteFile writes text to a file in the working directory.
//
// The file and its parent directories are created as needed, and the file
// is replaced unless append is true. Staging, where the inputs handed to
// the agent wait, .kesoku, where kesoku keeps transcripts and saved
// outputs, and kesoku's own files (its config, the records being written)
// are read-only. Only regular files are written: never a named pipe or
// a device.
//
// Args:
//
//	path: The file to write: relative to the working directory, or
//	  absolute inside it.
//	content: The text to write.
//	append: Add the text at the end of the file instead of replacing it.
//	  Defaults to false.
//
//kesoku:tool writes check=checkPath
func WriteFile(ctx context.Context, tc *registry.ToolContext, path, content string, append bool) (*Written, error) {
	ws, err := openWorkspace(ctx, tc)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	write := ws.WriteFile
	if append {
		write = ws.AppendFile
	}
	loc, err := write(path, []byte(content))
	if err != nil {
		return nil, pathArgErr(ws, "path", path, err)
	}
	return &Written{Path: loc.Display(), BytesWritten: len(content), Appended: append}, nil
}

// listMaxEntries bounds a listing: a directory of a million files would
// swamp a model's context and say nothing useful past the first screens.
const listMaxEntries = 1000

// Listing is the content of a directory.
type Listing struct {
	// Path is the directory's path as the other tools take it.
	Path string `json:"path"`
	// Entries are the directory's entries, sorted by name.
	Entries []Entry `json:"entries"`
	// Total is the number of entries in the directory, which is more than
	// len(Entries) when the listing was cut.
	Total int `json:"total"`
	// Note says what was left out, if anything.
	Note string `json:"note,omitempty"`
}

// Entry is one entry of a directory.
type Entry struct {
	Name string `json:"name"`
	// Type is "file", "dir", "symlink" or "other" (a device, a socket…).
	Type string `json:"type"`
	// Size is the size in bytes, for files only.
	Size *int64 `json:"size,omitempty"`
}

// ListDir lists the entries of a directory: their names, types and sizes.
//
// Args:
//
//	path: The directory: relative to the working directory (or, failing
//	  that, staging), or absolute inside either. Defaults to ".".
//
//kesoku:tool check=checkPath
func ListDir(ctx context.Context, tc *registry.ToolContext, path string) (*Listing, error) {
	if path == "" {
		path = "."
	}
	ws, err := openWorkspace(ctx, tc)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	loc, err := locate(ws, "path", path)
	if err != nil {
		return nil, err
	}
	entries, err := loc.ReadDir()
	if err != nil {
		return nil, pathArgErr(ws, "path", path, err)
	}
	res := &Listing{Path: loc.Display(), Total: len(entries), Entries: make([]Entry, 0, min(len(entries), listMaxEntries))}
	for i, e := range entries {
		if i == listMaxEntries {
			res.Note = fmt.Sprintf("showing the first %d of %d entries (by name); glob with a pattern finds the rest", listMaxEntries, len(entries))
			break
		}
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		ent := Entry{Name: e.Name(), Type: entryType(e.Type())}
		if e.Type().IsRegular() {
			// Lstat through the root: DirEntry.Info would stat by a path
			// outside it.
			if fi, err := loc.Join(e.Name()).Lstat(); err == nil {
				size := fi.Size()
				ent.Size = &size
			}
		}
		res.Entries = append(res.Entries, ent)
	}
	if len(entries) == 0 {
		res.Note = "the directory is empty"
	}
	return res, nil
}

// entryType names the type of a directory entry.
func entryType(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "dir"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	default:
		return "other"
	}
}

package records

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fullFile is a records file on a disk that fills up after room more
// bytes: the write that reaches that writes what fits and fails, as the
// system's write does.
type fullFile struct {
	*os.File
	room int
}

func (f *fullFile) Write(p []byte) (int, error) {
	n := min(len(p), f.room)
	f.room -= n
	if _, err := f.File.Write(p[:n]); err != nil {
		return 0, err
	}
	if n < len(p) {
		return n, &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return n, nil
}

// TestWriterLeavesWholeLinesOnAFullDisk: a write cut short by a full disk
// leaves the file holding whole records only, the partial line removed,
// and the error says the disk is full.
func TestWriterLeavesWholeLinesOnAFullDisk(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs := sampleRecords()
	first, _ := AppendRecord(nil, recs[0])
	// Room for the first record and half the second.
	w := NewWriter(&fullFile{File: f, room: len(first) + 1 + 10})
	for _, rec := range recs[:2] {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	err = w.Flush()
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "the disk is full") {
		t.Errorf("error %v, want one that says the disk is full", err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != string(first)+"\n" {
		t.Errorf("the file holds %q, want the first record whole and nothing more", data)
	}
}

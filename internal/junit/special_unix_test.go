//go:build unix

package junit

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kesoku/kesoku/message"
)

// TestReportIntoSpecialFile: a report to a path that is no regular file
// (a FIFO here; /dev/null in life) is written into it, never replaced by
// a regular file, and nothing is written beside it.
func TestReportIntoSpecialFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r, err := Create(path, "kesoku run")
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("Create left %v beside the FIFO", entries)
	}
	if err := r.Add(RecordCase(&message.Record{ParentID: "call_1", Name: "echo", Status: message.StatusResponded}, "r.yaml")); err != nil {
		t.Fatal(err)
	}
	rd, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rd)
	checkReport(t, b)
	if st, err := os.Lstat(path); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v, %v", st, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left %v beside the FIFO", entries)
	}
}

// TestReportThroughSymlink: a report's path that is a symlink stays one;
// the file it leads to gets the report.
func TestReportThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "report.xml")
	if err := os.Symlink("real.xml", link); err != nil {
		t.Fatal(err)
	}
	r, err := Create(link, "kesoku run")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v, %v", st, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "real.xml"))
	if err != nil || !strings.Contains(string(b), "<testsuites") {
		t.Errorf("the target holds %q, %v", b, err)
	}
}

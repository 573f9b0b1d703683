//go:build unix

package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteThroughSymlink: a path that is a symlink keeps its link; the
// file it leads to gets the content, and nothing is left beside either.
func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real", "report.xml")
	if err := os.Mkdir(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.xml")
	if err := os.Symlink(filepath.Join("real", "report.xml"), link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a symlink: %v, %v", st, err)
	}
	if got, err := os.ReadFile(target); err != nil || string(got) != "new" {
		t.Errorf("target holds %q, %v; want %q", got, err, "new")
	}
	for _, d := range []string{dir, filepath.Dir(target)} {
		if entries, _ := os.ReadDir(d); len(entries) != map[string]int{dir: 2, filepath.Dir(target): 1}[d] {
			t.Errorf("%s holds %v", d, entries)
		}
	}
}

// TestWriteThroughDanglingSymlink: a symlink to a file not yet made
// makes the file it names, and stays a link.
func TestWriteThroughDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink("made", link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a symlink: %v, %v", st, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "made")); err != nil || string(got) != "x" {
		t.Errorf("target holds %q, %v", got, err)
	}
}

// mkfifo makes a FIFO in a test's directory: a file that is no regular
// file, safe to write to (unlike a device of the system's).
func mkfifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return path
}

// TestWriteIntoSpecialFile: a path that is not a regular file (a FIFO
// here, /dev/null in life) is written into, never replaced by a file.
func TestWriteIntoSpecialFile(t *testing.T) {
	path := mkfifo(t)
	// Opened without waiting for a writer; reads wait in the poller.
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan string, 1)
	werr := Write(path, []byte("through the pipe"), 0o644)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	if werr != nil {
		t.Fatal(werr)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("the reader got %q", s)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v, %v", st, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("left %v beside the FIFO", entries)
	}
}

// TestWriteToFIFOWithoutReader: a FIFO nobody reads is refused at once,
// not waited on for ever, and stays a FIFO.
func TestWriteToFIFOWithoutReader(t *testing.T) {
	path := mkfifo(t)
	if err := Write(path, []byte("x"), 0o644); err == nil {
		t.Error("no error writing to a FIFO nobody reads")
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v, %v", st, err)
	}
}

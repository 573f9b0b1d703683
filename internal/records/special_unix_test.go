//go:build unix

package records

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/kesoku/kesoku/internal/atomicfile"
)

// mkfifo makes a FIFO in the test's directory: a file that is no regular
// file, safe to write to (unlike a device of the system's).
func mkfifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return path
}

func isFIFO(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&fs.ModeNamedPipe != 0
}

func isSymlink(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && st.Mode()&fs.ModeSymlink != 0
}

// TestReplaceWritesIntoASpecialFile: Replace of a path that is no
// regular file (kesoku merge -o /dev/null) writes into it, and never
// renames a file over it; one nobody reads is refused, not waited on.
func TestReplaceWritesIntoASpecialFile(t *testing.T) {
	path := mkfifo(t)
	if err := Replace(path, func(w io.Writer) error { _, err := io.WriteString(w, "x\n"); return err }); !errors.As(err, new(*atomicfile.NoReaderError)) {
		t.Errorf("Replace of a FIFO nobody reads: %v", err)
	}
	if !isFIFO(path) {
		t.Fatal("the FIFO was replaced")
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Replace(path, func(w io.Writer) error { _, err := io.WriteString(w, "one\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(r); string(b) != "one\n" {
		t.Errorf("the reader got %q", b)
	}
	if !isFIFO(path) {
		t.Fatal("the FIFO was replaced")
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("left %v beside the FIFO", entries)
	}
}

// TestReplaceAndCompactKeepASymlink: a records file reached through a
// symlink keeps its link when merge or a resumed run's compaction
// rewrites it; the file it leads to gets the records.
func TestReplaceAndCompactKeepASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.jsonl")
	link := filepath.Join(dir, "out.jsonl")
	if err := os.Symlink("real.jsonl", link); err != nil {
		t.Fatal(err)
	}
	if err := Replace(link, func(w io.Writer) error {
		_, err := io.WriteString(w, line("a", 1, "aborted")+line("b", 2, "2"))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !isSymlink(link) {
		t.Fatal("Replace replaced the link")
	}
	res, err := Resume(link, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Finished.Check("a", "t", "", 1)
	res.Finished.Check("b", "t", "", 2)
	if err := res.Write(parse(t, line("a", 1, "1"))); err != nil {
		t.Fatal(err)
	}
	c, err := res.Compact(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Rewritten {
		t.Fatalf("not rewritten: %+v", c)
	}
	if !isSymlink(link) {
		t.Fatal("Compact replaced the link")
	}
	if b, _ := os.ReadFile(target); string(b) != line("a", 1, "1")+line("b", 2, "2") {
		t.Errorf("the target holds\n%s", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("left %v", entries)
	}
}

// TestOpenSpecialFiles: Create and Append of a FIFO write into it, and
// one nobody reads is refused at once rather than waited on; Resume of a
// FIFO, which holds no records to read, is refused without reading it.
func TestOpenSpecialFiles(t *testing.T) {
	path := mkfifo(t)
	for name, open := range map[string]func(string) (*Writer, error){"Create": Create, "Append": Append} {
		if w, err := open(path); !errors.As(err, new(*atomicfile.NoReaderError)) {
			t.Errorf("%s of a FIFO nobody reads: %v", name, err)
			if w != nil {
				w.Close()
			}
		}
	}
	if r, err := Resume(path, nil); !errors.As(err, new(*NotRegularError)) {
		t.Errorf("Resume of a FIFO: %v", err)
		if r != nil {
			r.Close()
		}
	}
	r, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, open := range map[string]func(string) (*Writer, error){"Create": Create, "Append": Append} {
		w, err := open(path)
		if err != nil {
			t.Fatalf("%s of a FIFO read: %v", name, err)
		}
		if err := w.Write(sampleRecords()[0]); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if b, _ := io.ReadAll(r); len(b) == 0 {
		t.Error("the reader got nothing")
	}
	if !isFIFO(path) {
		t.Fatal("the FIFO was replaced")
	}
}

// TestMergeRefusesAFIFO: a part is read twice, which a FIFO cannot be:
// refused at once, not waited on for a writer.
func TestMergeRefusesAFIFO(t *testing.T) {
	path := mkfifo(t)
	if _, err := Merge([]string{path}, io.Discard); !errors.As(err, new(*NotRegularError)) {
		t.Errorf("Merge of a FIFO: %v", err)
	}
}

package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/kesoku/kesoku/internal/atomicfile"
)

// ErrInUse says that another writer holds the records file: two runs
// appending to one file would interleave their records and lose some.
var ErrInUse = errors.New("in use: another kesoku writes to it")

// Create creates (or truncates) the file at path and returns a writer of
// records to it, holding the file's lock until Close: a file another
// writer holds is refused with ErrInUse, and left as it is. Close it when
// done.
func Create(path string) (*Writer, error) {
	f, err := openLocked(path, os.O_WRONLY)
	if err != nil {
		return nil, err
	}
	// Emptied only once it is ours; a device or a pipe has nothing to empty.
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	w := NewWriter(f)
	w.closer = f
	return w, nil
}

// Append opens the file at path for appending records, creating it if
// need be, and holds its lock until Close (see Create). A torn last line
// — a record cut short by a crash or a kill — is cut off first, so that
// the new records start on a line of their own and the file stays valid
// JSON Lines; a whole record that only lacks its line end (an edited
// file) is kept and given one. Close it when done.
func Append(path string) (*Writer, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		// Nothing to cut in a device or a FIFO: records go into it.
		return Create(path)
	}
	f, err := openLocked(path, os.O_RDWR)
	if err != nil {
		return nil, err
	}
	if _, err := cutTornLine(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	w := NewWriter(f)
	w.closer = f
	return w, nil
}

// ReadError is a failure to read the records a file holds already (a line
// that is no record, say), as opposed to one of opening or locking it.
type ReadError struct{ Err error }

func (e *ReadError) Error() string { return e.Err.Error() }
func (e *ReadError) Unwrap() error { return e.Err }

// Resumed is a records file opened to finish the run that wrote it: its
// lock held, what it finished read, the new records appended after the
// old. It is a Store; Compact, once the run has read every request, leaves
// the file holding one record per request in request order.
type Resumed struct {
	*Writer
	// Finished is what the file's records finished. The run notes in it
	// what it does with each request (Finished.Check), which is what
	// Compact keeps.
	Finished *Finished
	// Verdicts, for an eval's file (ResumeEval), are the runs its blocks
	// finished; the eval notes in it the runs it comes to (Skip).
	Verdicts *Verdicts

	path string
	f    *os.File
	// base is where the new records begin: the file's end once its torn
	// line was cut.
	base int64

	mu sync.Mutex
	// foreign counts the records written that answer no request of the
	// run (a tool's own); afterOld says a record of the run went to a
	// position before the earlier run's last.
	foreign  int
	afterOld bool
}

// Resume opens the file at path (created if need be) to go on with the
// run that wrote it: it takes the file's lock, reads what the records in
// it finished, and calls check with that (when check is set) before
// anything in the file changes, so that what a command decides from the
// records (--resume skips what they finished) holds while it appends. A
// file another writer holds is refused with ErrInUse; an error reading the
// records is a *ReadError; an error of check is returned as it is. The
// file is left as it was in every case. Close it when done.
func Resume(path string, check func(*Finished) error) (*Resumed, error) {
	f, err := openLocked(path, os.O_RDWR)
	if err != nil {
		return nil, err
	}
	fin, err := readFinished(f, path)
	if err != nil {
		f.Close()
		return nil, &ReadError{err}
	}
	if check != nil {
		if err := check(fin); err != nil {
			f.Close()
			return nil, err
		}
	}
	return resumeAt(f, path, fin, nil)
}

// resumeAt is the Resumed of f, read already (what it finished, or for an
// eval its verdicts), its torn last line cut so that new records start
// on a line of their own.
func resumeAt(f *os.File, path string, fin *Finished, v *Verdicts) (*Resumed, error) {
	size, err := cutTornLine(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	w := NewWriter(f)
	w.closer = f
	return &Resumed{Writer: w, Finished: fin, Verdicts: v, path: path, f: f, base: size}, nil
}

// Replace writes the file at path whole, with write, as one step: the
// records go to a new file beside it, which is renamed into its place once
// it is complete, so that a failure or a kill at any moment leaves the old
// file or the new one, never half of either. The old file's lock (that of
// Create and Append) is held throughout, and the new file's from before
// the rename, so that no writer puts records into a file that is no longer
// under the name: a file another writer holds is refused with ErrInUse,
// and left as it is.
//
// A path that is a symlink keeps its link: the file it leads to is
// replaced. A path that is no regular file (/dev/null, a FIFO) is written
// into, never replaced; a FIFO nobody reads is refused
// (*atomicfile.NoReaderError) rather than waited on.
func Replace(path string, write func(io.Writer) error) error {
	target, st, err := atomicfile.Target(path)
	if err != nil {
		return err
	}
	if st != nil && !st.Mode().IsRegular() {
		return atomicfile.WriteInto(target, st, write)
	}
	old, err := os.Open(target)
	made := false
	if errors.Is(err, fs.ErrNotExist) {
		// Made empty to be locked: a writer that came meanwhile would
		// write into the file that the rename then takes away.
		old, err = os.OpenFile(target, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o644)
		made = err == nil
	}
	if err != nil {
		return err
	}
	defer old.Close()
	if err := lockFile(old); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	err = replaceLocked(target, old, write)
	if err != nil && made {
		os.Remove(target)
	}
	return err
}

// replaceLocked is Replace for a caller that holds the lock of the file at
// path already, through old (nil where there is no file yet). A path that
// is a symlink keeps its link.
func replaceLocked(path string, old *os.File, write func(io.Writer) error) error {
	path, _, err := atomicfile.Target(path)
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if old != nil {
		if st, err := old.Stat(); err == nil {
			mode = st.Mode().Perm()
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".kesoku-*")
	if err != nil {
		return err
	}
	done := false
	defer func() {
		tmp.Close()
		if !done {
			os.Remove(tmp.Name())
		}
	}()
	if err := lockFile(tmp); err != nil {
		return fmt.Errorf("%s: %w", tmp.Name(), err)
	}
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	done = true
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		// The rename itself on disk, where the system allows it.
		dir.Sync()
		dir.Close()
	}
	return nil
}

// openLocked opens path for appending, write-only or read-write (mode),
// and takes its exclusive lock, without waiting for it. O_APPEND: every
// write goes to the end, and should anything shorten the file meanwhile,
// records still go to its end, never past it behind a hole of NULs.
//
// A file that is no regular file (/dev/null, a FIFO, a terminal) is
// opened to write into, without a lock (a device is no file two runs
// could tear) and without waiting for a FIFO's reader: one nobody reads
// is a *atomicfile.NoReaderError, as the wait could last for ever. Such a
// file holds no records to read, so one opened to read them (mode
// read-write) is a *NotRegularError.
func openLocked(path string, mode int) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		if mode != os.O_WRONLY {
			return nil, &NotRegularError{Path: path, Mode: st.Mode()}
		}
		return atomicfile.OpenSpecial(path, st)
	}
	f, err := os.OpenFile(path, mode|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// NotRegularError says that a records file to be read (by Resume, by
// Merge) is no regular file: a device or a FIFO holds no records to go
// on from or to read twice, and reading a FIFO would wait for a writer.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	what := "not a regular file"
	switch {
	case e.Mode&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case e.Mode&fs.ModeDevice != 0:
		what = "a device"
	case e.Mode&fs.ModeSocket != 0:
		what = "a socket"
	case e.Mode.IsDir():
		what = "a directory"
	}
	return fmt.Sprintf("%s is %s, not a records file: records are read (to resume a run, to merge shards) from a regular file", e.Path, what)
}

// cutTornLine truncates f after its last newline, unless what follows it
// is a whole JSON value (ReadFile reads it as a record): that gets its
// newline instead. It returns the file's size after.
func cutTornLine(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	buf := make([]byte, 4096)
	cut := int64(0) // where the last line begins
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			cut = start + int64(i) + 1
			break
		}
		end = start
	}
	if cut == size {
		return size, nil
	}
	if size-cut <= maxRecordLine {
		last := make([]byte, size-cut)
		if _, err := f.ReadAt(last, cut); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if last = bytes.TrimSpace(last); len(last) > 0 && json.Valid(last) {
			_, err := f.Write([]byte("\n")) // at the end: the file is opened to append
			return size + 1, err
		}
	}
	return cut, f.Truncate(cut)
}

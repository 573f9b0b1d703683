// Package atomicfile replaces a file's content in one step.
//
// The new content is written beside it and renamed over it, so that a reader (or a
// run that was interrupted) sees the old file or the new one, never half
// of one.
//
// Only a regular file is replaced. A path that is a symlink keeps its
// link: the file it leads to is replaced. A path that is no regular file
// (a device such as /dev/null, a FIFO, a socket) is written into, never
// renamed over: run as root, a rename over /dev/null would leave the
// system a regular file there.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Write replaces the content of the file at path with data, the file
// readable as perm allows. The file is written in path's directory under
// a name that starts with a dot, synced, and renamed over path; on any
// error it is removed and path is left as it was. A symlink and a file
// that is no regular file are written as the package says.
func Write(path string, data []byte, perm fs.FileMode) error {
	return WriteFunc(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is Write of what write writes: the content of a report, say,
// too large to hold in memory.
func WriteFunc(path string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	target, st, err := Target(path)
	if err != nil {
		return err
	}
	if st != nil && !st.Mode().IsRegular() {
		return WriteInto(target, st, write)
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	// CreateTemp makes the file 0600: a secret is never readable by
	// others, not even while it is being written.
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if perm != 0o600 {
		if err := tmp.Chmod(perm); err != nil {
			return err
		}
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}

// maxLinks bounds the symlinks followed to a file, as the system does.
const maxLinks = 40

// Target is the file that a write to path replaces or writes into: path,
// or the file the symlink at path leads to, through as many links as
// there are (one that does not exist yet included), so that the link is
// kept. st is what the target is, nil when it does not exist: a target
// that is no regular file (st.Mode().IsRegular() false) is to be written
// into, never replaced.
func Target(path string) (target string, st fs.FileInfo, err error) {
	target = path
	for range maxLinks {
		st, err := os.Lstat(target)
		if errors.Is(err, fs.ErrNotExist) {
			return target, nil, nil
		}
		if err != nil {
			return "", nil, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return target, st, nil
		}
		link, err := os.Readlink(target)
		if err != nil {
			return "", nil, err
		}
		if !filepath.IsAbs(link) {
			// Not filepath.Join: its cleaning would take "dir/.." away
			// by the name, where the system follows a dir that is a link.
			link = strings.TrimSuffix(filepath.Dir(target), string(filepath.Separator)) + string(filepath.Separator) + link
		}
		target = link
	}
	return "", nil, &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
}

// NoReaderError says that a FIFO has no reader: writing to it would wait
// until one came, for ever if none does.
type NoReaderError struct{ Path string }

func (e *NoReaderError) Error() string {
	return fmt.Sprintf("%s is a FIFO that nothing reads: start its reader first", e.Path)
}

// OpenSpecial opens the file at path, which st says is no regular file
// (a device, a FIFO), for writing into it: without waiting for a FIFO's
// reader (one with none is a *NoReaderError) and without truncating.
func OpenSpecial(path string, st fs.FileInfo) (*os.File, error) {
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	f, err := openNoWait(path, os.O_WRONLY)
	if err != nil && st.Mode()&fs.ModeNamedPipe != 0 && isNoReader(err) {
		return nil, &NoReaderError{Path: path}
	}
	return f, err
}

// WriteInto writes into the special file at path (st says what it is)
// what write writes, opened as OpenSpecial opens it.
func WriteInto(path string, st fs.FileInfo, write func(io.Writer) error) error {
	f, err := OpenSpecial(path, st)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Remove removes the file at path, reporting whether there was one: a
// file that is already gone is no error.
func Remove(path string) (bool, error) {
	err := os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// Package atomicfile replaces a file's content in one step: the new
// content is written beside it and renamed over it, so that a reader (or a
// run that was interrupted) sees the old file or the new one, never half
// of one.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces the content of the file at path with data, the file
// readable as perm allows. The file is written in path's directory under
// a name that starts with a dot, synced, and renamed over path; on any
// error it is removed and path is left as it was.
func Write(path string, data []byte, perm fs.FileMode) (err error) {
	dir, base := filepath.Split(path)
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
	if _, err := tmp.Write(data); err != nil {
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
	return os.Rename(tmp.Name(), path)
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

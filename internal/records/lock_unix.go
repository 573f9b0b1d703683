//go:build unix

package records

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes f's exclusive advisory lock (flock), or fails with
// ErrInUse when another open file holds it. The lock goes with the file's
// last close, or the process.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrInUse
		case errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.ENOSYS), errors.Is(err, syscall.EOPNOTSUPP):
			// A file system without locks (some network ones): write
			// unlocked rather than not at all.
			return nil
		}
		return err
	}
}

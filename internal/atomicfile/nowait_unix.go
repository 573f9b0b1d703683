//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"syscall"
)

// openNoWait opens path without waiting: a FIFO opened to write with no
// reader fails with ENXIO rather than block the thread for ever.
func openNoWait(path string, flag int) (*os.File, error) {
	return os.OpenFile(path, flag|syscall.O_NONBLOCK, 0)
}

func isNoReader(err error) bool { return errors.Is(err, syscall.ENXIO) }

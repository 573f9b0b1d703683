//go:build !unix

package atomicfile

import (
	"os"
)

func openNoWait(path string, flag int) (*os.File, error) { return os.OpenFile(path, flag, 0) }

func isNoReader(error) bool { return false }

//go:build unix

package workspace

import (
	"runtime"
	"syscall"
)

// openNoBlock makes opening a FIFO for writing fail at once (ENXIO) when
// no reader is there, rather than wait for one; it changes nothing for a
// regular file.
const openNoBlock = syscall.O_NONBLOCK

// caseInsensitive says that the usual file system ignores the case of
// names, so that a protected name is reached by any of its cases.
var caseInsensitive = runtime.GOOS == "darwin" || runtime.GOOS == "ios"

//go:build !unix

package workspace

import (
	"runtime"
)

// openNoBlock is 0 where there are no FIFOs to open.
const openNoBlock = 0

// caseInsensitive says that the usual file system ignores the case of
// names, so that a protected name is reached by any of its cases.
var caseInsensitive = runtime.GOOS == "windows"

//go:build unix && !linux

package toolsource

import (
	"syscall"
)

// parentDeathSignal: only Linux has one.
func parentDeathSignal(*syscall.SysProcAttr) {}

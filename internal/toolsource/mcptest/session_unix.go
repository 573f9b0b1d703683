//go:build unix

package mcptest

import (
	"os/exec"
	"syscall"
)

// ownSession starts cmd in a session (and process group) of its own.
func ownSession(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

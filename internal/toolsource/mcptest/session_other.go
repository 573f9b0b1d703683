//go:build !unix

package mcptest

import (
	"os/exec"
)

// ownSession: without sessions, the child is started as any.
func ownSession(*exec.Cmd) {}

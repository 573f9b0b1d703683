//go:build !unix

package toolsource

import (
	"os"
	"os/exec"
)

// Without process groups, the program alone is stopped.

func setGroup(cmd *exec.Cmd) {}

func terminateGroup(pid int) { killGroup(pid) }

func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func signalOf(*os.ProcessState) string { return "" }

func ownGroup(*exec.Cmd) {}

func ignoreStopSignals() {}

//go:build unix

package toolsource

import (
	"os"
	"os/exec"
	"syscall"
)

// setGroup makes cmd the leader of a process group of its own, so that
// the program and every child it starts are stopped together.
func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	parentDeathSignal(cmd.SysProcAttr)
}

// terminateGroup asks the group led by pid to stop.
func terminateGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGTERM) }

// killGroup kills the group led by pid, whatever is left of it.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }

// signalOf names the signal that ended a process, "" when none did.
func signalOf(st *os.ProcessState) string {
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return ""
}

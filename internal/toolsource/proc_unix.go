//go:build unix

package toolsource

import (
	"os"
	"os/exec"
	"os/signal"
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

// ownGroup starts cmd in a process group of its own, and nothing more.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// ignoreStopSignals keeps the guardian alive through the signals a
// terminal sends (it has no terminal to answer to): only its pipe's end
// ends it.
func ignoreStopSignals() { signal.Ignore(syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT) }

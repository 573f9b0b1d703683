package toolsource

import (
	"syscall"
)

// parentDeathSignal has Linux kill the program if kesoku dies without a
// chance to stop it (SIGKILL, a crash): the one way it ends that no
// deferred Close sees.
func parentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

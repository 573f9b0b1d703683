//go:build !linux

package toolsource

import (
	"os"
)

// Elsewhere there is no child subreaper that kesoku uses: a child that
// leaves its program's process group is not found (see
// docs/command-tools.md).

func becomeSubreaper() bool { return false }

type proc struct {
	pid, ppid, pgid int
	zombie          bool
}

func children() []proc { return nil }

func processMark(int) string { return "" }

func markFile(string) *os.File { return nil }

func descendants(int) []proc { return nil }

func marked(string) []int { return nil }

func killOrphan(proc) {}

func reap(int) bool { return true }

func collected(int) bool { return true }

func readProc(int) (proc, bool) { return proc{}, false }

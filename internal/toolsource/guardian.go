package toolsource

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
)

// GuardianEnv, set to 1 in its environment, makes kesoku's binary the
// guardian of another kesoku's process groups (cmd.Main checks it first).
//
// Why a process of its own: a kesoku that is killed outright (SIGKILL, the
// kernel's OOM killer, a pod's eviction after its grace) runs no deferred
// Close. Linux's parent-death signal then ends the programs kesoku started
// itself, but not what those started in turn: a command tool's children
// would outlive kesoku under init. The guardian holds the list of kesoku's
// live process groups; when its pipe from kesoku closes — kesoku exited,
// however — it kills every group still on the list.
const GuardianEnv = "KESOKU_GUARDIAN"

// IsGuardian reports whether this process was started as a guardian.
func IsGuardian() bool { return os.Getenv(GuardianEnv) == "1" }

// RunGuardian is the guardian's whole life, on standard input; it returns
// the exit code.
func RunGuardian() int {
	ignoreStopSignals()
	guard(os.Stdin)
	return 0
}

// guard reads "+PID" (a group started) and "-PID" (a group ended and was
// killed) lines from in, and once in ends kills the groups left.
func guard(in io.Reader) {
	groups := map[int]bool{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		pid, err := strconv.Atoi(line[1:])
		if err != nil || pid <= 0 {
			continue
		}
		switch line[0] {
		case '+':
			groups[pid] = true
		case '-':
			delete(groups, pid)
		}
	}
	for pid := range groups {
		killGroup(pid)
	}
}

// guardian is kesoku's end of the guardian: started with the first
// program, told of every group as it starts and ends.
type guardian struct {
	// exe is the program to start as the guardian, kesoku's own binary;
	// "" runs without one (tests of this package, which have no kesoku to
	// start).
	exe  string
	warn func(string)

	once sync.Once
	mu   sync.Mutex
	w    *os.File // nil when there is none
}

func (g *guardian) started(pid int) { g.send('+', pid) }
func (g *guardian) ended(pid int)   { g.send('-', pid) }

func (g *guardian) send(op byte, pid int) {
	if g == nil || g.exe == "" {
		return
	}
	g.once.Do(g.start)
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w == nil {
		return
	}
	if _, err := fmt.Fprintf(g.w, "%c%d\n", op, pid); err != nil {
		// The guardian is gone: kesoku's own Close still stops the groups.
		g.w.Close()
		g.w = nil
	}
}

func (g *guardian) start() {
	pr, pw, err := os.Pipe()
	if err != nil {
		g.warned(err)
		return
	}
	defer pr.Close()
	cmd := exec.Command(g.exe)
	// Named kesoku whatever the binary's file is called, so that a program
	// that picks its part by its name (a test binary) runs kesoku.
	cmd.Args = []string{"kesoku"}
	cmd.Env = append(os.Environ(), GuardianEnv+"=1")
	cmd.Stdin = pr
	// A group of its own: a Ctrl-C to kesoku's group does not end it
	// before kesoku has stopped its programs.
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		pw.Close()
		g.warned(err)
		return
	}
	go cmd.Wait()
	g.w = pw
}

func (g *guardian) warned(err error) {
	if g.warn != nil {
		g.warn(fmt.Sprintf("no guardian for the programs kesoku starts (%v): should kesoku be killed outright, their children may outlive it", err))
	}
}

// close ends the guardian once every group is stopped: its pipe closes.
func (g *guardian) close() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w != nil {
		g.w.Close()
		g.w = nil
	}
}

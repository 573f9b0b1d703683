package toolsource

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"
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
	guard(&unhurriedReader{r: os.Stdin, pause: 10 * time.Millisecond})
	// The children that left their groups, found by their mark (in
	// their environment, or a descriptor they inherited), with all below
	// them.
	if mark := os.Getenv(guardianMarkEnv); mark != "" {
		for _, pid := range marked(mark + ".") {
			if p, ok := readProc(pid); ok {
				for _, d := range descendants(pid) {
					killOrphan(d)
				}
				killOrphan(p)
			}
		}
	}
	return 0
}

// guardianMarkEnv tells the guardian the mark of kesoku's programs.
const guardianMarkEnv = "KESOKU_GUARDIAN_MARK"

// unhurriedReader pauses after each read. What the guardian reads matters
// only once kesoku is gone, and the pipe keeps what comes meanwhile: read
// as it comes, every program kesoku starts would wake the guardian, which
// cost a run of a thousand command tools a tenth of its time on 2 cores.
type unhurriedReader struct {
	r     io.Reader
	pause time.Duration
}

func (u *unhurriedReader) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if err == nil {
		time.Sleep(u.pause)
	}
	return n, err
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

// guardian is kesoku's end of the guardian: started before the first
// program, told of every group as it starts and ends.
type guardian struct {
	// exe is the program to start as the guardian, kesoku's own binary;
	// "" runs without one (tests of this package, which have no kesoku to
	// start).
	exe  string
	warn func(string)

	// mark begins the marks of the programs kesoku starts (processes):
	// the guardian kills every process that has one, once kesoku is gone.
	mark string

	once sync.Once
	mu   sync.Mutex
	w    *os.File // nil when there is none
	// proc is the guardian's process, nil when there is none.
	proc *os.Process
	// ended holds the "-PID" lines not sent yet: they go with the next
	// "+PID" line, or at close, one write for both (a write wakes the
	// guardian; a call of a command tool would cost two).
	ended []byte
}

// ready starts the guardian if it has not started: before a program
// starts, so that a kesoku killed the moment after leaves a guardian
// behind, which finds the program by its mark should the program's group
// not have been told yet.
func (g *guardian) ready() {
	if g == nil || g.exe == "" {
		return
	}
	g.once.Do(g.start)
}

// started tells the guardian of a group kesoku started, at once.
func (g *guardian) started(pid int) {
	if g == nil || g.exe == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.flush(strconv.AppendInt(append(g.ended, '+'), int64(pid), 10))
}

// finished tells the guardian of a group that ended and was killed; it
// may wait for the next line.
func (g *guardian) finished(pid int) {
	if g == nil || g.exe == "" {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.w != nil {
		g.ended = append(strconv.AppendInt(append(g.ended, '-'), int64(pid), 10), '\n')
	}
}

// flush writes the lines pending and line (without its newline), if any.
func (g *guardian) flush(line []byte) {
	if g.w == nil {
		g.ended = g.ended[:0]
		return
	}
	if len(line) > 0 && line[len(line)-1] != '\n' {
		line = append(line, '\n')
	}
	_, err := g.w.Write(line)
	g.ended = line[:0]
	if err != nil {
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
	cmd.Env = append(os.Environ(), GuardianEnv+"=1", guardianMarkEnv+"="+g.mark)
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
	g.w, g.proc = pw, cmd.Process
}

// pid is the guardian's, 0 when there is none. Called with the lock of
// processes held, as started is: the guardian has started by then, or
// will not.
func (g *guardian) pid() int {
	if g == nil || g.proc == nil {
		return 0
	}
	return g.proc.Pid
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
		// The groups that ended are forgotten first, so that the guardian
		// kills no group whose number another has taken since.
		if len(g.ended) > 0 {
			g.flush(g.ended)
		}
		if g.w != nil {
			g.w.Close()
			g.w = nil
		}
	}
}

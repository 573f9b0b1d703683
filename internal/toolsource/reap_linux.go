package toolsource

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes this process a child subreaper: a process that a
// program of kesoku's started, and that lost its parent (a child that
// left the program's process group with setsid or setpgid and whose
// parent exited, the grandchild of a double fork), becomes kesoku's child
// rather than init's, where kesoku can find it and stop it.
func becomeSubreaper() bool {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == nil
}

// proc is what /proc says of a process.
type proc struct {
	pid, ppid, pgid int
	zombie          bool
}

// readProc reads /proc/PID/stat.
func readProc(pid int) (proc, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	// pid (comm) state ppid pgrp ...: comm may hold anything, ')' too.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return proc{}, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 3 {
		return proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	return proc{pid: pid, ppid: ppid, pgid: pgid, zombie: f[0] == "Z" || f[0] == "X"}, true
}

// children are the processes whose parent is this process: from the
// children files of its threads where the kernel has them, else from a
// walk of /proc.
func children() []proc {
	self := os.Getpid()
	var pids []int
	if tasks, err := os.ReadDir("/proc/self/task"); err == nil && len(tasks) > 0 {
		if data, err := os.ReadFile("/proc/self/task/" + tasks[0].Name() + "/children"); err == nil {
			for _, t := range tasks {
				if t.Name() != tasks[0].Name() {
					more, _ := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
					data = append(append(data, ' '), more...)
				}
			}
			for _, f := range strings.Fields(string(data)) {
				if pid, err := strconv.Atoi(f); err == nil {
					pids = append(pids, pid)
				}
			}
		} else {
			pids = allPids()
		}
	}
	var out []proc
	for _, pid := range pids {
		if p, ok := readProc(pid); ok && p.ppid == self {
			out = append(out, p)
		}
	}
	return out
}

// allPids are the pids /proc lists.
func allPids() []int {
	f, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// processMark is the mark of pid: the value of markVar in its
// environment, else the name of the mark file (markFile) among its open
// descriptors; "" when it has neither (or they cannot be read). A child
// that clears its environment (env -i) still holds the descriptor.
func processMark(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err == nil {
		for _, kv := range bytes.Split(data, []byte{0}) {
			if v, ok := bytes.CutPrefix(kv, []byte(markVar+"=")); ok {
				return string(v)
			}
		}
	}
	return fdMark(pid)
}

// markFilePrefix begins the name of a mark file.
const markFilePrefix = "kesoku-mark:"

// markFile is a file of no content named after mark, for a program to
// inherit as a descriptor (cmd.ExtraFiles) and its children after it: a
// mark that does not live in the environment. nil when none can be made.
func markFile(mark string) *os.File {
	fd, err := unix.MemfdCreate(markFilePrefix+mark, unix.MFD_CLOEXEC)
	if err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), markFilePrefix+mark)
}

// fdMark is the mark of the mark file among the open descriptors of pid,
// "" when it holds none.
func fdMark(pid int) string {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	f, err := os.Open(dir)
	if err != nil {
		return ""
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		target, err := os.Readlink(dir + n)
		if err != nil {
			continue
		}
		if rest, ok := strings.CutPrefix(target, "/memfd:"+markFilePrefix); ok {
			return strings.TrimSuffix(rest, " (deleted)")
		}
	}
	return ""
}

// descendants are the processes below pid, found by their parents in
// /proc: those of an orphan, killed with it in one go rather than one
// generation at a time as each is reparented.
func descendants(pid int) []proc {
	below := map[int][]proc{}
	for _, q := range allPids() {
		if p, ok := readProc(q); ok {
			below[p.ppid] = append(below[p.ppid], p)
		}
	}
	var out []proc
	next := []int{pid}
	seen := map[int]bool{pid: true}
	for len(next) > 0 {
		p := next[0]
		next = next[1:]
		for _, c := range below[p] {
			if !seen[c.pid] {
				seen[c.pid] = true
				out = append(out, c)
				next = append(next, c.pid)
			}
		}
	}
	return out
}

// marked are the processes, kesoku's children or not, whose mark (in
// their environment or a descriptor) begins with prefix: what the
// guardian looks for once kesoku is gone.
func marked(prefix string) []int {
	var out []int
	self := os.Getpid()
	for _, pid := range allPids() {
		if pid != self && strings.HasPrefix(processMark(pid), prefix) {
			out = append(out, pid)
		}
	}
	return out
}

// killOrphan kills p, with its process group when it leads one.
func killOrphan(p proc) {
	if p.pgid == p.pid {
		_ = syscall.Kill(-p.pid, syscall.SIGKILL)
	}
	_ = syscall.Kill(p.pid, syscall.SIGKILL)
}

// collected reports whether pid, a process killed below an orphan, is
// gone: its exit collected once it came to this process (its parent
// killed too, it is reparented here, a zombie until collected), or no
// longer in /proc at all.
func collected(pid int) bool {
	var ws unix.WaitStatus
	if got, _ := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got == pid {
		return true
	}
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return os.IsNotExist(err)
}

// reap collects the exit of pid, a child of this process that os/exec
// does not wait for, if it has ended; it reports whether it had.
func reap(pid int) bool {
	var ws unix.WaitStatus
	got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	return got == pid || err == unix.ECHILD
}

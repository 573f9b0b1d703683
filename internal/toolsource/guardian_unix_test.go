//go:build unix

package toolsource

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestGuardKillsTheGroupsLeft: the groups told as started and not as
// ended are killed once the guardian's input ends; an ended one is left
// alone (its pid may be another's by then).
func TestGuardKillsTheGroupsLeft(t *testing.T) {
	t.Parallel()
	start := func() *exec.Cmd {
		cmd := exec.Command("sleep", "300")
		ownGroup(cmd)
		if err := cmd.Start(); err != nil {
			t.Skipf("no sleep: %v", err)
		}
		t.Cleanup(func() { killGroup(cmd.Process.Pid); cmd.Wait() })
		return cmd
	}
	left, ended := start(), start()
	in := "+" + strconv.Itoa(left.Process.Pid) + "\n+" + strconv.Itoa(ended.Process.Pid) + "\n-" + strconv.Itoa(ended.Process.Pid) + "\nnoise\n+x\n"
	guard(strings.NewReader(in))
	err := left.Wait()
	if ws, ok := left.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the group left: %v, want killed by SIGKILL", err)
	}
	if err := syscall.Kill(ended.Process.Pid, 0); err != nil {
		t.Errorf("the group told as ended was killed too: %v", err)
	}
}

// TestGuardianLines: a group that ended is told with the next start, in
// one write, and before the pipe closes; nothing is lost or reordered.
func TestGuardianLines(t *testing.T) {
	t.Parallel()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	g := &guardian{exe: "kesoku", w: pw}
	g.once.Do(func() {}) // started already: the pipe is the guardian
	g.started(11)
	g.finished(11)
	g.started(12)
	g.finished(12)
	g.close()
	got, err := io.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	if want := "+11\n-11\n+12\n-12\n"; string(got) != want {
		t.Errorf("the guardian was told %q, want %q", got, want)
	}
}

// TestGuardianStartsBeforeTheProgram: the guardian is running before a
// program is tried, so that a kesoku killed just after a program started
// leaves a guardian behind (which finds the program by its mark). A
// program that cannot start shows the order: the guardian was started
// for it all the same.
func TestGuardianStartsBeforeTheProgram(t *testing.T) {
	t.Parallel()
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skipf("no cat: %v", err)
	}
	g := &guardian{exe: cat} // cat reads its pipe until it closes, as a guardian does
	ps := newProcesses(time.Second, g, false)
	if err := ps.start(exec.Command(filepath.Join(t.TempDir(), "missing")), false); err == nil {
		t.Fatal("a program that does not exist started")
	}
	defer g.close()
	if g.pid() == 0 {
		t.Error("no guardian ran when the program was tried: a kesoku killed right after starting one would leave its children behind")
	}
}

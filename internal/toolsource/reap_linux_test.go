package toolsource

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kesoku/kesoku/registry"
)

// These tests make the test binary a child subreaper, and so do not run
// in parallel with the others: the processes they look for are the test
// process's children, and Reap takes every child it did not start for an
// orphan.

// reapSet is a Set with Reap and the command tools of yaml.
func reapSet(t *testing.T, yaml string) *Set {
	t.Helper()
	return setOf(t, context.Background(), Options{Grace: 100 * time.Millisecond, Reap: true}, yaml)
}

// pidIn waits (up to 10s) for a pid in file.
func pidIn(t *testing.T, file string) int {
	t.Helper()
	for range 1000 {
		if data, err := os.ReadFile(file); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 {
				return pid
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

// gone reports whether pid has ended and been collected: /proc has it no
// more (a zombie left uncollected would still be there).
func gone(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return os.IsNotExist(err)
}

// TestOrphansStopped: a command tool's child that leaves its process
// group (setsid; setpgid; a double fork that also clears its environment)
// is stopped once the program ends or is stopped, and collected (no
// zombie is left); the exit statuses of the programs kesoku waits for are
// never taken from them, however many end at once.
func TestOrphansStopped(t *testing.T) {
	if !becomeSubreaper() {
		t.Skip("no child subreaper here")
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("needs setsid")
	}
	dir := t.TempDir()
	set := reapSet(t, fmt.Sprintf(`tools:
  setsid:
    command: [sh, -c, 'setsid -f sh -c "echo \$\$ > %[1]s/setsid.pid; exec sleep 300"; echo started']
  setpgid:
    command: [perl, -e, 'if (fork() == 0) { setpgrp(0, 0); open(F, ">%[1]s/setpgid.pid"); print F $$; close F; exec "sleep", "300" } sleep 300']
  clean:
    command: [sh, -c, '(env -i setsid sh -c "echo \$\$ > %[1]s/clean.pid; exec sleep 300" &) ; echo started']
  fails:
    command: [sh, -c, 'exit 3']
`, dir))
	call := func(name string, ctx context.Context) (any, error) {
		spec, _ := set.Registry.Lookup(name)
		return spec.Call(ctx, &registry.ToolContext{}, map[string]any{})
	}
	// Exit statuses while orphans are swept.
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Go(func() { _, errs[i] = call("fails", context.Background()) })
	}
	if v, err := call("setsid", context.Background()); err != nil || v != "started" {
		t.Fatalf("setsid: %v, %v", v, err)
	}
	wg.Wait()
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "sh exited with status 3") {
			t.Errorf("call %d of a program that exits 3: %v", i, err)
		}
	}
	pid := pidIn(t, filepath.Join(dir, "setsid.pid"))
	// The first end of a program looks for orphans at once; a later one
	// within sweepEvery may not: a stop always does.
	set.procs.sweep(true)
	if !gone(pid) {
		t.Errorf("the setsid child %d of a program that ended still runs (or was not collected)", pid)
	}

	if _, err := exec.LookPath("perl"); err == nil {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { _, err := call("setpgid", ctx); done <- err }()
		pid := pidIn(t, filepath.Join(dir, "setpgid.pid"))
		cancel()
		<-done
		if !gone(pid) {
			t.Errorf("the setpgid child %d of a program stopped still runs (or was not collected)", pid)
		}
	}

	// A child without the mark (its environment cleared) is stopped when
	// kesoku stops.
	if _, err := call("clean", context.Background()); err != nil {
		t.Fatal(err)
	}
	pid = pidIn(t, filepath.Join(dir, "clean.pid"))
	set.Close()
	if !gone(pid) {
		t.Errorf("the child %d with a clean environment outlived kesoku's Close", pid)
	}
}

// TestServerOrphanStopped: an MCP server's child that leaves its group is
// stopped with the server, when kesoku stops.
func TestServerOrphanStopped(t *testing.T) {
	if !becomeSubreaper() {
		t.Skip("no child subreaper here")
	}
	file := filepath.Join(t.TempDir(), "orphan.pid")
	set := fakeServer(t, context.Background(), Options{Reap: true}, "-orphan-pidfile", file)
	if _, err := call(t, set, "fake__echo", map[string]any{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	pid := pidIn(t, file)
	set.Close()
	if !gone(pid) {
		t.Errorf("the server's child %d, in a session of its own, outlived kesoku's Close", pid)
	}
}

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

// TestCleanOrphansStopped: a child that leaves its program's group and
// clears its environment (setsid env -i) is still known for its
// program's: stopped as soon as that program is stopped (a call that
// timed out, as under mcp serve), not only when kesoku stops; and a chain
// of ten such children, each the parent of the next, leaves none alive
// once kesoku stops.
func TestCleanOrphansStopped(t *testing.T) {
	if !becomeSubreaper() {
		t.Skip("no child subreaper here")
	}
	setsid, err1 := exec.LookPath("setsid")
	env, err2 := exec.LookPath("env")
	sh, err3 := exec.LookPath("sh")
	sleep, err4 := exec.LookPath("sleep")
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		t.Skip("needs setsid, env, sh and sleep")
	}
	dir := t.TempDir()
	// chain.sh N: writes its pid, starts N-1 in a session of its own and
	// a clean environment, and sleeps.
	chain := filepath.Join(dir, "chain.sh")
	script := fmt.Sprintf(`echo $$ > %[1]s/chain.$1.pid
if [ "$1" -gt 1 ]; then %[2]s %[3]s -i %[4]s %[5]s $(($1 - 1)) & fi
exec %[6]s 300
`, dir, setsid, env, sh, chain, sleep)
	if err := os.WriteFile(chain, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	set := reapSet(t, fmt.Sprintf(`tools:
  lingers:
    command: [sh, -c, '%[1]s %[2]s -i %[3]s -c "echo \$\$ > %[4]s/clean.pid; exec %[5]s 300" & sleep 300']
  chain:
    command: [sh, -c, '%[1]s %[2]s -i %[3]s %[6]s 10 & while [ ! -s %[4]s/chain.1.pid ]; do sleep 0.01; done; echo started']
`, setsid, env, sh, dir, sleep, chain))
	call := func(name string, ctx context.Context) (any, error) {
		spec, _ := set.Registry.Lookup(name)
		return spec.Call(ctx, &registry.ToolContext{}, map[string]any{})
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := call("lingers", ctx); done <- err }()
	pid := pidIn(t, filepath.Join(dir, "clean.pid"))
	cancel()
	<-done
	if !gone(pid) {
		t.Errorf("the child %d with a clean environment of a program stopped still runs", pid)
	}

	if v, err := call("chain", context.Background()); err != nil || v != "started" {
		t.Fatalf("chain: %v, %v", v, err)
	}
	var pids []int
	for i := 1; i <= 10; i++ {
		pids = append(pids, pidIn(t, filepath.Join(dir, fmt.Sprintf("chain.%d.pid", i))))
	}
	set.Close()
	for i, pid := range pids {
		if !gone(pid) {
			t.Errorf("link %d of the chain (%d) outlived kesoku's Close", i+1, pid)
		}
	}
}

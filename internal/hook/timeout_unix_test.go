//go:build unix

package hook

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTimeout: a hook that outlives its timeout is stopped, the whole of
// its process group, and is a hook error: the call goes on.
func TestTimeout(t *testing.T) {
	t.Parallel()
	yaml := "hooks:\n  PreToolUse:\n    - hooks: [{type: command, command: 'sleep 300 & echo $! > child.pid; wait', timeout: 0.2}]\n"
	r, dir := newRunner(t, yaml)
	o, err := r.Pre(t.Context(), call())
	if err != nil {
		t.Fatal(err)
	}
	if o.Decision != None || len(o.Errors) != 1 || !o.Errors[0].TimedOut || !strings.Contains(o.Errors[0].Error(), "still running after 200ms: stopped") {
		t.Fatalf("decision %q, errors %v; want a hook error that says it timed out", o.Decision, o.Errors)
	}
	data, err := os.ReadFile(filepath.Join(dir, "child.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// Killed, it is gone or a zombie waiting for its new parent to
	// collect it.
	for alive(pid) {
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid is a process that has not ended.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return runtime.GOOS != "linux"
	}
	// pid (comm) S ...: the state follows the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z' && stat[i+2] != 'X'
}

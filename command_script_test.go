package main

import (
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kesoku/kesoku/internal/toolsource/mcptest"
)

func init() {
	scriptCmds["proc"] = cmdProc
	scriptCmds["mcphttp"] = cmdMCPHTTP
	// An MCP server that fails, hangs and crashes on demand (mcptest).
	scriptCommands["fakemcp"] = func() { os.Exit(mcptest.Main(os.Args[1:])) }
}

// cmdProc watches the processes a command tool started, for the scripts
// that prove none outlives kesoku:
//
//	proc started FILE   wait (up to 20s) until FILE holds a pid, written
//	                    by a tool's program in the background
//	proc gone FILE      the process whose pid FILE holds has ended (it may
//	                    wait, up to 20s, for a killed process to die; it
//	                    never passes while the process lives)
//	! proc gone FILE    the process still runs
func cmdProc(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: proc started FILE | proc gone FILE")
	}
	pidOf := func() (int, bool) {
		data, err := os.ReadFile(ts.MkAbs(args[1]))
		if err != nil {
			return 0, false
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		return pid, err == nil && pid > 0
	}
	switch args[0] {
	case "started":
		waitUntil(ts, func() bool { _, ok := pidOf(); return ok },
			func() string { return fmt.Sprintf("proc started: no pid in %s after 20s", args[1]) })
	case "gone":
		pid, ok := pidOf()
		if !ok {
			ts.Fatalf("proc gone: no pid in %s", args[1])
		}
		if neg {
			if !alive(pid) {
				ts.Fatalf("process %d has ended", pid)
			}
			return
		}
		waitUntil(ts, func() bool { return !alive(pid) },
			func() string {
				return fmt.Sprintf("process %d (from %s) still runs 20s after kesoku exited", pid, args[1])
			})
	default:
		ts.Fatalf("usage: proc started FILE | proc gone FILE")
	}
}

// alive reports whether the process pid runs: it exists and is not a
// zombie (dead, waiting for a parent to reap it).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) && !isLinux()
	}
	// pid (comm) S ...: the state follows the last ')'.
	s := string(stat)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

func isLinux() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// cmdMCPHTTP serves the fake MCP server (mcptest) over streamable HTTP on
// loopback for the rest of the script, and sets $MCP_URL to its endpoint:
//
//	mcphttp TOKEN   requests without "Authorization: Bearer TOKEN" get 401
func cmdMCPHTTP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: mcphttp TOKEN")
	}
	srv := httptest.NewServer(mcptest.HTTPHandler(args[0]))
	ts.Defer(srv.Close)
	ts.Setenv("MCP_URL", srv.URL+"/mcp")
}

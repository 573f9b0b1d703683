package main

import (
	"bytes"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["shipped"] = cmdShipped }

// cmdShipped holds a file the repository ships (a cassette under
// testdata/cassettes) to what a script made:
//
//	shipped FILE PATH   FILE, made by the script, is PATH under
//	                    $KESOKU_ROOT byte for byte; with -update, FILE
//	                    is written there
//
// A cassette replays only requests that are the same as those recorded:
// when what a session sends changes (a tool's description, the request a
// provider's SDK writes), the shipped one is recorded again by the script
// that checks it, with go test -run TestScript/NAME -update.
func cmdShipped(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: shipped FILE PATH")
	}
	got, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	path := filepath.Join(ts.Getenv("KESOKU_ROOT"), filepath.FromSlash(args[1]))
	if *update {
		ts.Check(os.MkdirAll(filepath.Dir(path), 0o755))
		ts.Check(os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	ts.Check(err)
	if !bytes.Equal(got, want) {
		ts.Fatalf("%s is not what %s records now: run go test -run 'TestScript/%s' -update to record it again", args[1], args[0], ts.Getenv("SCRIPT_NAME"))
	}
}

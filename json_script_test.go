package main

import (
	"encoding/json"
	"os"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["cmpjson"] = cmdCmpJSON }

// cmdCmpJSON compares two JSON documents by value, whatever their layout:
//
//	cmpjson stdout want.json
//
// The first may be stdout or stderr, as for cmp.
func cmdCmpJSON(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cmpjson FILE|stdout|stderr WANT")
	}
	read := func(name string) any {
		var text string
		switch name {
		case "stdout", "stderr":
			text = ts.ReadFile(name)
		default:
			data, err := os.ReadFile(ts.MkAbs(name))
			ts.Check(err)
			text = string(data)
		}
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			ts.Fatalf("cmpjson: %s is not one JSON document: %v\n%s", name, err, text)
		}
		return v
	}
	got, want := read(args[0]), read(args[1])
	if diff := cmp.Diff(want, got); diff != "" {
		ts.Fatalf("cmpjson: %s differs from %s (-want +got):\n%s", args[0], args[1], diff)
	}
}

package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kesoku/kesoku/internal/jsonschema"
	"github.com/kesoku/kesoku/internal/records"
)

func init() { scriptCmds["checkrecords"] = cmdCheckRecords }

// cmdCheckRecords checks that every line of each file is a Message record
// valid against the records' JSON Schema, the one kesoku schema records
// prints; with --schema FILE, against the schema in FILE:
//
//	checkrecords t.jsonl
//	checkrecords --schema schema.json out.jsonl
func cmdCheckRecords(ts *testscript.TestScript, neg bool, args []string) {
	doc := records.Schema("v0.0.0")
	if len(args) > 1 && args[0] == "--schema" {
		doc = []byte(ts.ReadFile(args[1]))
		args = args[2:]
	}
	if len(args) == 0 {
		ts.Fatalf("usage: checkrecords [--schema FILE] FILE...")
	}
	v, err := jsonschema.Decode(doc)
	ts.Check(err)
	id, _ := v.(map[string]any)["$id"].(string)
	s, err := jsonschema.Compile(id, v, jsonschema.Options{})
	ts.Check(err)
	var problems []string
	for _, name := range args {
		lines := bytes.Split(bytes.TrimRight([]byte(ts.ReadFile(name)), "\n"), []byte("\n"))
		if len(lines) == 1 && len(lines[0]) == 0 {
			problems = append(problems, name+": no records")
			continue
		}
		for i, line := range lines {
			rec, err := jsonschema.Decode(line)
			if err == nil {
				err = s.Validate(rec)
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: %v", name, i+1, err))
			}
		}
	}
	switch {
	case neg && len(problems) == 0:
		ts.Fatalf("every record is valid")
	case !neg && len(problems) > 0:
		ts.Fatalf("records the schema refuses:\n%s", strings.Join(problems, "\n"))
	}
}

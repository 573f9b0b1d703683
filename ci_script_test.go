package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kesoku/kesoku/internal/junit/junittest"
)

func init() {
	scriptCmds["checkjunit"] = cmdCheckJUnit
	scriptCmds["snapshotexample"] = cmdSnapshotExample
}

// cmdCheckJUnit checks that a file is a JUnit report valid against the
// JUnit XSD that Jenkins documents, and, given counts, that its testsuite
// says them:
//
//	checkjunit report.xml tests=3 failures=1
func cmdCheckJUnit(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: checkjunit FILE [ATTR=VALUE...]")
	}
	doc, err := junittest.Check([]byte(ts.ReadFile(args[0])))
	if neg {
		if err == nil {
			ts.Fatalf("%s is a valid report", args[0])
		}
		return
	}
	ts.Check(err)
	if doc.Name != "testsuites" || len(doc.Children) != 1 {
		ts.Fatalf("%s: want one testsuite under testsuites", args[0])
	}
	suite := doc.Children[0]
	for _, a := range args[1:] {
		k, want, _ := strings.Cut(a, "=")
		if got, _ := suite.Attr(k); got != want {
			ts.Fatalf("%s: testsuite %s=%q, want %q", args[0], k, got, want)
		}
	}
}

const snapshotWorkflow = "examples/github-actions/snapshot-test.yml"

// readSnapshotWorkflow reads the example's snapshot job: the script of
// its step with id snapshot, and the report its publishing step reads,
// which must be the file the script's --junit writes.
func readSnapshotWorkflow(path string) (script string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var w ghaWorkflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	published := ""
	for _, s := range w.Jobs["snapshot"].Steps {
		switch {
		case s.ID == "snapshot":
			script = s.Run
		case s.With["reporter"] == "java-junit":
			published = s.With["path"]
		}
	}
	if script == "" || published == "" {
		return "", fmt.Errorf("%s: want a step with id snapshot and one that publishes a JUnit report", path)
	}
	if !strings.Contains(script, "--junit "+published) {
		return "", fmt.Errorf("%s: the report published, %s, is not the one the snapshot step writes", path, published)
	}
	if strings.Contains(script, "${{") {
		return "", fmt.Errorf("%s: an expression the test does not stand in for: %s", path, script)
	}
	return script, nil
}

func TestSnapshotExample(t *testing.T) {
	t.Parallel()
	if _, err := readSnapshotWorkflow(snapshotWorkflow); err != nil {
		t.Error(err)
	}
}

// cmdSnapshotExample writes the script of the example workflow's snapshot
// step, for a test script to run:
//
//	snapshotexample step.sh
func cmdSnapshotExample(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: snapshotexample OUT")
	}
	script, err := readSnapshotWorkflow(filepath.Join(ts.Getenv("KESOKU_ROOT"), snapshotWorkflow))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(script), 0o644))
}

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
	scriptCmds["evalexample"] = cmdEvalExample
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

const (
	snapshotWorkflow = "examples/github-actions/snapshot-test.yml"
	evalWorkflow     = "examples/github-actions/eval.yml"
)

// actionsJob is a job of an example workflow: the scripts of its steps
// by id, the report its publishing step reads, and how it installs
// kesoku.
type actionsJob struct {
	scripts   map[string]string
	published string
	install   string
}

// readActionsJob reads the job of the example workflow at path, and
// checks that the report it publishes is the one its step reportStep
// writes with --junit.
func readActionsJob(path, job, reportStep string) (*actionsJob, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var w ghaWorkflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	j := &actionsJob{scripts: map[string]string{}}
	for _, s := range w.Jobs[job].Steps {
		switch {
		case s.ID != "":
			if strings.Contains(s.Run, "${{") {
				return nil, fmt.Errorf("%s: an expression the test does not stand in for: %s", path, s.Run)
			}
			j.scripts[s.ID] = s.Run
		case s.With["reporter"] == "java-junit":
			j.published = s.With["path"]
		case s.Name == "Install kesoku":
			j.install = s.Run
		}
	}
	script := j.scripts[reportStep]
	if script == "" || j.published == "" {
		return nil, fmt.Errorf("%s: want a step with id %s and one that publishes a JUnit report", path, reportStep)
	}
	if !strings.Contains(script, "--junit "+j.published) {
		return nil, fmt.Errorf("%s: the report published, %s, is not the one the %s step writes", path, j.published, reportStep)
	}
	return j, nil
}

// readSnapshotWorkflow reads the example's snapshot job: the script of
// its step with id snapshot.
func readSnapshotWorkflow(path string) (script string, err error) {
	j, err := readActionsJob(path, "snapshot", "snapshot")
	if err != nil {
		return "", err
	}
	return j.scripts["snapshot"], nil
}

// readEvalWorkflow reads the example's eval job: the scripts of its steps
// with ids validate and eval.
func readEvalWorkflow(path string) (validate, eval string, err error) {
	j, err := readActionsJob(path, "eval", "eval")
	if err != nil {
		return "", "", err
	}
	if j.scripts["validate"] == "" {
		return "", "", fmt.Errorf("%s: want a step with id validate", path)
	}
	return j.scripts["validate"], j.scripts["eval"], nil
}

func TestSnapshotExample(t *testing.T) {
	t.Parallel()
	if _, err := readSnapshotWorkflow(snapshotWorkflow); err != nil {
		t.Error(err)
	}
}

func TestEvalExample(t *testing.T) {
	t.Parallel()
	if _, _, err := readEvalWorkflow(evalWorkflow); err != nil {
		t.Error(err)
	}
}

// TestActionsInstall holds the example workflows to one way of installing
// kesoku, the README's: a clone and go install . in it.
func TestActionsInstall(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ path, job, step string }{
		{snapshotWorkflow, "snapshot", "snapshot"},
		{evalWorkflow, "eval", "eval"},
	} {
		j, err := readActionsJob(c.path, c.job, c.step)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(j.install, "git clone ") || !strings.Contains(j.install, `&& go install .`) {
			t.Errorf("%s installs kesoku with %q, want a clone and go install . in it", c.path, j.install)
		}
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

// cmdEvalExample writes the scripts of the example workflow's validate
// and eval steps, for a test script to run:
//
//	evalexample validate.sh eval.sh
func cmdEvalExample(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: evalexample VALIDATE EVAL")
	}
	validate, eval, err := readEvalWorkflow(filepath.Join(ts.Getenv("KESOKU_ROOT"), evalWorkflow))
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(validate), 0o644))
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(eval), 0o644))
}

package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
// by id, the report its publishing step reads, how it installs kesoku,
// the workflow's environment, and the job's matrix.
type actionsJob struct {
	scripts   map[string]string
	published string
	install   string
	env       map[string]string
	// matrix is the values of each of the matrix's keys, as written.
	matrix map[string][]string
}

// matrixExpr is an expression of a matrix's value, the one expression a
// test stands in for: ${{ matrix.shard }}.
var matrixExpr = regexp.MustCompile(`\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}`)

// readActionsJob reads the job of the example workflow at path, and
// checks that the report it publishes is the one its step reportStep
// writes with --junit ("" for a job that publishes none). A step's
// script may name the matrix's values (${{ matrix.X }}), which script
// stands in for; any other expression is refused.
func readActionsJob(path, job, reportStep string) (*actionsJob, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var w ghaWorkflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// The matrix read apart: ghaWorkflow knows the batch example's alone.
	var m struct {
		Jobs map[string]struct {
			Strategy struct {
				Matrix map[string][]any `yaml:"matrix"`
			} `yaml:"strategy"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, ok := w.Jobs[job]; !ok {
		return nil, fmt.Errorf("%s: no job %s", path, job)
	}
	j := &actionsJob{scripts: map[string]string{}, env: w.Env, matrix: map[string][]string{}}
	for k, vs := range m.Jobs[job].Strategy.Matrix {
		for _, v := range vs {
			j.matrix[k] = append(j.matrix[k], fmt.Sprint(v))
		}
	}
	for _, s := range w.Jobs[job].Steps {
		switch {
		case s.ID != "":
			for _, e := range matrixExpr.FindAllStringSubmatch(s.Run, -1) {
				if len(j.matrix[e[1]]) == 0 {
					return nil, fmt.Errorf("%s: %s names matrix.%s, which the job's matrix does not have", path, s.ID, e[1])
				}
			}
			if strings.Contains(matrixExpr.ReplaceAllString(s.Run, ""), "${{") {
				return nil, fmt.Errorf("%s: an expression the test does not stand in for: %s", path, s.Run)
			}
			j.scripts[s.ID] = s.Run
		case s.With["reporter"] == "java-junit":
			j.published = s.With["path"]
		case s.Name == "Install kesoku":
			j.install = s.Run
		}
	}
	if reportStep == "" {
		return j, nil
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

// script is the script of the step with id, as the job of the matrix's
// values runs it: each ${{ matrix.X }} stood in for by values[X], after
// the workflow's environment, exported.
func (j *actionsJob) script(id string, values map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(j.env)) {
		fmt.Fprintf(&b, "export %s='%s'\n", k, strings.ReplaceAll(j.env[k], "'", `'\''`))
	}
	b.WriteString(matrixExpr.ReplaceAllStringFunc(j.scripts[id], func(e string) string {
		return values[matrixExpr.FindStringSubmatch(e)[1]]
	}))
	return b.String()
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

// evalJobs are the jobs of the example's eval: the eval job, a shard of
// the cases for each value of its matrix, then the report job that
// merges their parts and publishes the report.
type evalJobs struct {
	eval, report *actionsJob
}

// readEvalWorkflow reads the example's eval: the eval job, whose steps
// with ids validate and eval check the cases and run a shard of them, a
// shard for each value of its matrix's shard, 1 to $SHARDS; and the
// report job, after it, whose step with id merge joins the parts and
// writes the report it publishes.
func readEvalWorkflow(path string) (*evalJobs, error) {
	eval, err := readActionsJob(path, "eval", "")
	if err != nil {
		return nil, err
	}
	report, err := readActionsJob(path, "report", "merge")
	if err != nil {
		return nil, err
	}
	if eval.scripts["validate"] == "" || eval.scripts["eval"] == "" {
		return nil, fmt.Errorf("%s: want steps with ids validate and eval", path)
	}
	shards := eval.matrix["shard"]
	if n, _ := strconv.Atoi(eval.env["SHARDS"]); n < 2 || len(shards) != n {
		return nil, fmt.Errorf("%s: the matrix's shards are %v, SHARDS %q: want 1 to SHARDS, at least 2", path, shards, eval.env["SHARDS"])
	}
	for i, k := range shards {
		if k != strconv.Itoa(i+1) {
			return nil, fmt.Errorf("%s: the matrix's shards are %v, want 1 to %d", path, shards, len(shards))
		}
	}
	if !strings.Contains(eval.scripts["eval"], "--shard ") {
		return nil, fmt.Errorf("%s: the eval step runs no shard", path)
	}
	return &evalJobs{eval: eval, report: report}, nil
}

func TestSnapshotExample(t *testing.T) {
	t.Parallel()
	if _, err := readSnapshotWorkflow(snapshotWorkflow); err != nil {
		t.Error(err)
	}
}

func TestEvalExample(t *testing.T) {
	t.Parallel()
	if _, err := readEvalWorkflow(evalWorkflow); err != nil {
		t.Error(err)
	}
}

// TestActionsInstall holds the example workflows to one way of installing
// kesoku, the README's: a clone and go install . in it.
func TestActionsInstall(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ path, job, step string }{
		{snapshotWorkflow, "snapshot", "snapshot"},
		{evalWorkflow, "eval", ""},
		{evalWorkflow, "report", "merge"},
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

// cmdEvalExample writes the scripts of the example's eval into DIR, for
// a test script to run them as the workflow's jobs would: validate.sh
// and eval-K.sh, the validate and eval steps of the eval job whose matrix
// gives shard K, for each K of the matrix; merge.sh, the report job's
// merge step; and steps.sh, the eval and merge steps as written, for the
// README to show:
//
//	evalexample DIR
func cmdEvalExample(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: evalexample DIR")
	}
	w, err := readEvalWorkflow(filepath.Join(ts.Getenv("KESOKU_ROOT"), evalWorkflow))
	ts.Check(err)
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dir, 0o755))
	write := func(name, script string) {
		ts.Check(os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644))
	}
	write("validate.sh", w.eval.script("validate", nil))
	for _, k := range w.eval.matrix["shard"] {
		write("eval-"+k+".sh", w.eval.script("eval", map[string]string{"shard": k}))
	}
	write("merge.sh", w.report.script("merge", nil))
	write("steps.sh", w.eval.scripts["eval"]+w.report.scripts["merge"])
}

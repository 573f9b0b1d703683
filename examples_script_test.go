package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
	"github.com/rogpeppe/go-internal/testscript"
)

func init() { scriptCmds["shardexample"] = cmdShardExample }

// The examples of spreading a batch over machines, checked as far as a
// machine without Kubernetes or GitHub can: their YAML is what the engine
// takes, and the command lines they run, run here, shard by shard, give
// the whole run's records once merged (testdata/script/run_shard_*.txtar).
const (
	k8sJob      = "examples/kubernetes/indexed-job.yaml"
	gha         = "examples/github-actions/sharded-batch.yml"
	k8sShardsEn = "SHARDS"
)

// k8sJobSpec is what the example's Job must say.
type k8sJobSpec struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          int    `yaml:"completions"`
		Parallelism          int    `yaml:"parallelism"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		Template             struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Name    string   `yaml:"name"`
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name  string `yaml:"name"`
						Value string `yaml:"value"`
					} `yaml:"env"`
					VolumeMounts []struct {
						Name      string `yaml:"name"`
						MountPath string `yaml:"mountPath"`
					} `yaml:"volumeMounts"`
				} `yaml:"containers"`
				Volumes []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// readK8sJob reads the example's Job and the name of its claim, and
// checks what Kubernetes requires of an Indexed Job that retries by index.
func readK8sJob(path string) (job *k8sJobSpec, script string, shards int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", 0, err
	}
	claims := map[string]bool{}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var head struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
			Metadata   struct {
				Name string `yaml:"name"`
			} `yaml:"metadata"`
		}
		if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
			return nil, "", 0, fmt.Errorf("%s: %w", path, err)
		}
		switch head.Kind {
		case "PersistentVolumeClaim":
			claims[head.Metadata.Name] = true
		case "Job":
			if head.APIVersion != "batch/v1" {
				return nil, "", 0, fmt.Errorf("the Job is %s, not batch/v1", head.APIVersion)
			}
			job = &k8sJobSpec{}
			if err := yaml.UnmarshalWithOptions([]byte(doc), job); err != nil {
				return nil, "", 0, fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	if job == nil {
		return nil, "", 0, fmt.Errorf("%s has no Job", path)
	}
	s := job.Spec
	switch {
	case s.CompletionMode != "Indexed":
		return nil, "", 0, fmt.Errorf("completionMode %q, want Indexed", s.CompletionMode)
	case s.Completions < 1 || s.Parallelism < 1 || s.Parallelism > s.Completions:
		return nil, "", 0, fmt.Errorf("completions %d, parallelism %d", s.Completions, s.Parallelism)
	case s.BackoffLimitPerIndex != nil && s.Template.Spec.RestartPolicy != "Never":
		return nil, "", 0, fmt.Errorf("backoffLimitPerIndex needs restartPolicy Never, not %q", s.Template.Spec.RestartPolicy)
	case len(s.Template.Spec.Containers) != 1:
		return nil, "", 0, fmt.Errorf("%d containers, want kesoku's", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	if !slices.Equal(c.Command, []string{"sh", "-c"}) || len(c.Args) != 1 {
		return nil, "", 0, fmt.Errorf("the container runs %q %q, want sh -c SCRIPT", c.Command, c.Args)
	}
	for _, e := range c.Env {
		if e.Name == k8sShardsEn {
			shards, _ = strconv.Atoi(e.Value)
		}
	}
	if shards != s.Completions {
		return nil, "", 0, fmt.Errorf("SHARDS is %d, completions %d: they must be one", shards, s.Completions)
	}
	mounted := false
	for _, m := range c.VolumeMounts {
		for _, v := range s.Template.Spec.Volumes {
			if v.Name == m.Name && claims[v.PersistentVolumeClaim.ClaimName] && m.MountPath == "/data" {
				mounted = true
			}
		}
	}
	if !mounted {
		return nil, "", 0, fmt.Errorf("no volume of the manifest's claim is mounted at /data")
	}
	return job, c.Args[0], shards, nil
}

// ghaWorkflow is what the example's workflow must say.
type ghaWorkflow struct {
	Env  map[string]string `yaml:"env"`
	Jobs map[string]struct {
		Needs    any `yaml:"needs"`
		Strategy struct {
			Matrix struct {
				Shard []int `yaml:"shard"`
			} `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Name string            `yaml:"name"`
			ID   string            `yaml:"id"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// readWorkflow reads the example's workflow: the shard step's script and
// the join step's, with GitHub's expressions made shell variables.
func readWorkflow(path string) (shard, join string, shards int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", 0, err
	}
	var w ghaWorkflow
	if err := yaml.Unmarshal(data, &w); err != nil {
		return "", "", 0, fmt.Errorf("%s: %w", path, err)
	}
	shards, _ = strconv.Atoi(w.Env["SHARDS"])
	m := w.Jobs["shard"].Strategy.Matrix.Shard
	if shards < 1 || len(m) != shards {
		return "", "", 0, fmt.Errorf("the matrix is %v, SHARDS %d: the matrix must be 1 to SHARDS", m, shards)
	}
	for i, k := range m {
		if k != i+1 {
			return "", "", 0, fmt.Errorf("the matrix is %v, want 1 to %d", m, shards)
		}
	}
	if w.Jobs["join"].Needs != "shard" {
		return "", "", 0, fmt.Errorf("the join job needs %v, want shard", w.Jobs["join"].Needs)
	}
	expr := strings.NewReplacer("${{ matrix.shard }}", "$MATRIX_SHARD", "${{ github.run_id }}", "$GITHUB_RUN_ID")
	for _, s := range w.Jobs["shard"].Steps {
		if s.ID == "shard" {
			shard = expr.Replace(s.Run)
		}
	}
	uploads := 0
	for _, s := range w.Jobs["join"].Steps {
		switch {
		case s.ID == "join":
			join = expr.Replace(s.Run)
		case strings.HasPrefix(s.Uses, "actions/download-artifact@") && s.With["pattern"] == "part-*":
			uploads++
		}
	}
	if shard == "" || join == "" || uploads != 1 {
		return "", "", 0, fmt.Errorf("want a step with id shard, one with id join, and a download of the parts")
	}
	if strings.Contains(shard+join, "${{") {
		return "", "", 0, fmt.Errorf("an expression the test does not stand in for: %s%s", shard, join)
	}
	return shard, join, shards, nil
}

func TestShardExamples(t *testing.T) {
	t.Parallel()
	if _, _, n, err := readK8sJob(k8sJob); err != nil || n < 2 {
		t.Errorf("%s: %d shards, %v", k8sJob, n, err)
	}
	if _, _, n, err := readWorkflow(gha); err != nil || n < 2 {
		t.Errorf("%s: %d shards, %v", gha, n, err)
	}
}

// cmdShardExample writes the scripts of an example for a test script to
// run, and sets $SHARDS:
//
//	shardexample k8s OUT          the Job's container script, /data made
//	                              $WORK/data
//	shardexample actions SHARD JOIN
//	                              the shard and join steps' scripts, the
//	                              matrix's shard as $MATRIX_SHARD
func cmdShardExample(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: shardexample k8s OUT | actions SHARD JOIN")
	}
	root := ts.Getenv("KESOKU_ROOT")
	switch args[0] {
	case "k8s":
		_, script, n, err := readK8sJob(filepath.Join(root, k8sJob))
		ts.Check(err)
		script = strings.ReplaceAll(script, "/data", ts.MkAbs("data"))
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(script), 0o644))
		ts.Setenv("SHARDS", strconv.Itoa(n))
	case "actions":
		if len(args) != 3 {
			ts.Fatalf("usage: shardexample actions SHARD JOIN")
		}
		shard, join, n, err := readWorkflow(filepath.Join(root, gha))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[1]), []byte(shard), 0o644))
		ts.Check(os.WriteFile(ts.MkAbs(args[2]), []byte(join), 0o644))
		ts.Setenv("SHARDS", strconv.Itoa(n))
	default:
		ts.Fatalf("shardexample: unknown example %q", args[0])
	}
}

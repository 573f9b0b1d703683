package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kesoku/kesoku/cmd"
)

var update = flag.Bool("update", false, "rewrite golden files and the expected output in testdata/script")

// scriptCommands are the programs the scripts can exec besides the usual
// shell tools: kesoku itself, run from this test binary, and helpers that
// other files add (fake provider servers, say).
var scriptCommands = map[string]func(){
	"kesoku": func() { os.Exit(cmd.Main()) },
}

func TestMain(m *testing.M) {
	testscript.Main(m, scriptCommands)
}

// scriptCmds are the commands the scripts have besides testscript's own;
// other files add theirs (fake provider servers, say) in an init.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"exits": cmdExits,
}

// TestScript runs the end-to-end scripts in testdata/script against the
// real binary. Script names start with the command they test.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Cmds:                scriptCmds,
		Setup: func(env *testscript.Env) error {
			// Keys of the developer's shell must never reach a script.
			for _, k := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "NO_COLOR"} {
				env.Setenv(k, "")
			}
			// Nor may its OpenTelemetry settings trace a script.
			for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_TRACES_EXPORTER", "OTEL_SDK_DISABLED", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"} {
				env.Setenv(k, "")
			}
			genScriptEnv(env)
			return nil
		},
	})
}

// cmdExits runs a program like exec and checks its exit status:
//
//	exits 2 kesoku run bad.yaml
//
// The program's standard output and error are kept for stdout and stderr
// as after exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

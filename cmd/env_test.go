package cmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/registry"
)

// envRecorder is an environment of a test's own for a command's runX:
// it notes what the command asked of its environment, and gives it the
// test's tools, or fails as told.
type envRecorder struct {
	asked []app.Options
	tools *registry.Registry
	err   error
}

func (e *envRecorder) prepare(ctx context.Context, o app.Options) (context.Context, *app.Env, error) {
	e.asked = append(e.asked, o)
	if e.err != nil {
		return ctx, nil, e.err
	}
	if o.Tools != nil && e.tools != nil {
		o.Tools = e.tools
	}
	return app.Prepare(ctx, o)
}

// runInEnv runs kesoku with args over the environment e, in dir.
func runInEnv(t *testing.T, e *envRecorder, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var out, errOut bytes.Buffer
	g := &globals{IO: &ioStreams{In: strings.NewReader(stdin), Out: &out, Err: &errOut}, prepare: e.prepare}
	code = run(context.Background(), g, append([]string{"--awd", dir}, args...))
	return out.String(), errOut.String(), code
}

type shoutIn struct {
	Text string `json:"text" description:"what to shout"`
}

// shoutTools is a registry of one tool no other registry has.
func shoutTools(t *testing.T) *registry.Registry {
	t.Helper()
	r := registry.New()
	err := registry.Add(r, "shout", "Shout the text.", func(_ context.Context, _ *registry.ToolContext, in shoutIn) (string, error) {
		return strings.ToUpper(in.Text), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRunInItsEnvironment: kesoku run is one turn over the environment it
// asks for, with its call flags, and runs the requests with the tools the
// environment gives; the -o file is protected from them.
func TestRunInItsEnvironment(t *testing.T) {
	e := &envRecorder{tools: shoutTools(t)}
	dir := t.TempDir()
	stdout, stderr, code := runInEnv(t, e, dir, `{"name": "shout", "args": {"text": "hi"}}`, "run", "-", "-j", "3", "--timeout", "2s", "-q")
	if code != ExitOK || !strings.Contains(stdout, `"content":"HI"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the shout's record", code, stdout, stderr)
	}
	if len(e.asked) != 1 {
		t.Fatalf("%d environments asked for, want 1", len(e.asked))
	}
	o := e.asked[0]
	if !o.OneTurn || o.Tools == nil || o.Calls == nil || o.Calls.Jobs != 3 || o.Calls.Timeout.String() != "2s" || o.ModelRequired || o.AWD != dir || !o.Quiet {
		t.Errorf("run asked for %+v", o)
	}
}

// TestPrepareErrorIsBadUsage: what the environment refuses (a config
// file's mistake, a missing key) is bad usage of every command, before
// anything runs.
func TestPrepareErrorIsBadUsage(t *testing.T) {
	refused := errors.New("refused by the environment")
	for _, tt := range []struct {
		args  []string
		check func(app.Options) bool
	}{
		{[]string{"run", "-"}, func(o app.Options) bool { return o.OneTurn && !o.ModelRequired }},
		{[]string{"session", "hello", "--model", "gemini-2.5-flash"}, func(o app.Options) bool {
			return o.ModelRequired && o.Model.Model == "gemini-2.5-flash" && o.Tools != nil && o.Calls.Jobs == 4
		}},
		{[]string{"mcp", "serve"}, func(o app.Options) bool { return o.WithoutServers && o.Tools != nil && o.Calls.Jobs == 16 }},
		{[]string{"analyze", "photo.png", "what is it", "--model", "claude-sonnet-4-5"}, func(o app.Options) bool {
			return o.ModelRequired && o.Tools == nil && o.Calls == nil
		}},
		{[]string{"batch", "submit", "req.jsonl", "--model", "claude-sonnet-4-5"}, func(o app.Options) bool {
			return o.ModelRequired && o.OneTurn && o.Tools == nil
		}},
		{[]string{"batch", "status", "state.json"}, func(o app.Options) bool {
			return o.OneTurn && o.Tools == nil && o.Model.Model == "" && !o.ModelRequired
		}},
		{[]string{"batch", "collect", "state.json"}, func(o app.Options) bool {
			return o.OneTurn && o.Tools == nil && o.Model.Model == "" && !o.ModelRequired
		}},
		{[]string{"validate", "req.jsonl"}, func(o app.Options) bool {
			return o.Tools != nil && o.Calls == nil && !o.OneTurn && !o.WithoutServers && o.Model.Model == ""
		}},
		{[]string{"tools", "list", "--timeout", "3s"}, func(o app.Options) bool {
			return o.Tools != nil && !o.OneTurn && o.Calls != nil && o.Calls.Timeout.String() == "3s" &&
				o.Calls.Grace == app.DefaultGrace && o.Calls.MaxOutput == app.DefaultMaxOutput
		}},
		{[]string{"tools", "schema", "--timeout", "3s"}, func(o app.Options) bool {
			return o.Tools != nil && !o.OneTurn && o.Calls != nil && o.Calls.Timeout.String() == "3s" &&
				o.Calls.Grace == app.DefaultGrace && o.Calls.MaxOutput == app.DefaultMaxOutput
		}},
		{[]string{"mcp", "login", "corp"}, func(o app.Options) bool {
			return o.OneTurn && o.Tools != nil && !o.WithoutServers && o.OAuth.Login != nil
		}},
		{[]string{"mcp", "logout", "corp"}, func(o app.Options) bool {
			return o.OneTurn && o.Tools != nil && !o.WithoutServers && o.OAuth.Login != nil
		}},
	} {
		t.Run(strings.Join(tt.args[:2], "_"), func(t *testing.T) {
			e := &envRecorder{err: refused}
			stdout, stderr, code := runInEnv(t, e, t.TempDir(), "", tt.args...)
			if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "refused by the environment") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and the refusal", code, stdout, stderr)
			}
			if len(e.asked) != 1 || !tt.check(e.asked[0]) {
				t.Errorf("asked for %+v", e.asked)
			}
		})
	}
}

// TestToolCommandsInTheirEnvironment: tools list, tools schema and
// validate see the tools their environment gives, and no others.
func TestToolCommandsInTheirEnvironment(t *testing.T) {
	dir := t.TempDir()
	req := filepath.Join(dir, "req.jsonl")
	if err := os.WriteFile(req, []byte(`{"name": "shout", "args": {"text": "hi"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"tools", "list"}, "shout"},
		{[]string{"tools", "schema", "shout"}, `"shout"`},
		{[]string{"validate", req}, ""},
	} {
		t.Run(strings.Join(tt.args[:2], "_"), func(t *testing.T) {
			e := &envRecorder{tools: shoutTools(t)}
			stdout, stderr, code := runInEnv(t, e, dir, "", tt.args...)
			if code != ExitOK || !strings.Contains(stdout, tt.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want %q with exit 0", code, stdout, stderr, tt.want)
			}
			if strings.Contains(stdout, "read_file") {
				t.Errorf("stdout %q has a tool the environment did not give", stdout)
			}
			if len(e.asked) != 1 {
				t.Errorf("%d environments asked for, want 1", len(e.asked))
			}
		})
	}
}

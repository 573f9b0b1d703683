// Package app is what every command sets up before it works and takes down
// after.
//
// It owns the signals that interrupt it, the tool set (the Go tools,
// command tools and MCP servers), the model it asks, the files tools never
// write, and the ToolRunner's options made of them. A command's whole
// environment is made by one Prepare and closed by one Close, in the order
// that matters (a file is protected before the runner's options copy the
// list; the signals are watched before an MCP server can start), so that
// each command only says what it does over it. The commands' work runs
// over it too: kesoku run's (Env.Run), an agent session (Env.Session: its
// transcript, its runner, how its turns end), mcp serve (Env.Serve), and
// merge, diff and batch collect; their records go to one Sink (the records
// file or standard output, the JUnit report, the progress cmd draws).
package app

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kesoku/kesoku/internal/cassette"
	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/hook"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/internal/notice"
	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolsource"
	"github.com/kesoku/kesoku/internal/tracing"
	"github.com/kesoku/kesoku/internal/workspace"
	"github.com/kesoku/kesoku/registry"
)

// Calls bound the tool calls of a command that runs them: how many at
// once, each one's time, the grace of an interrupt, and the most output a
// record holds.
type Calls struct {
	Jobs      int
	Timeout   time.Duration
	Grace     time.Duration
	MaxOutput int64
}

// Defaults of a command whose calls are not bounded by flags (tools
// list, validate): an interrupt's grace, and a record's largest output.
const (
	DefaultGrace     = 5 * time.Second
	DefaultMaxOutput = 1 << 20
)

// Options are what a command's environment is made of: the global flags,
// the config files in use, and what the command needs.
type Options struct {
	// AWD is the agent working directory, absolute; Staging the staging
	// directory ("" for the layout's default).
	AWD, Staging string
	// Config is the config files in use (nil for none); MCPConfig the
	// files of MCP servers of --mcp-config.
	Config    *config.Config
	MCPConfig []string
	// Quiet and Verbose are -q and -v: what the work says as it goes
	// without them is not made.
	Quiet, Verbose bool
	// Tell is told what the environment and the work over it have to say
	// to the user as they go (notice.Discard when nil): the command's, who
	// decides what reaches the terminal. Log is where a provider SDK's own
	// log goes with -v.
	Tell notice.Teller
	Log  io.Writer
	// Starting, when set, is told the name of each MCP server as it
	// begins to start (toolsource.Options.Starting).
	Starting func(server string)

	// Signals is where interrupts come from, none when nil. OneTurn makes
	// the whole command one turn: Prepare watches them at once, its
	// context is the turn's, cancelled by the first signal, and the MCP
	// servers start under it. Otherwise they are watched from
	// WatchSignals on, and until then keep their default action.
	Signals SignalSource
	OneTurn bool

	// Tools is the registry of Go tools (registry.Default but in tests);
	// nil makes no tool set. WithoutServers leaves the MCP servers out
	// (toolsource.Options.WithoutServers). Calls bound the calls; nil for
	// a command that makes none.
	Tools          *registry.Registry
	WithoutServers bool
	Calls          *Calls
	// Self is kesoku's own binary, the guardian of the programs tools
	// start ("" for none); Version is kesoku's, as MCP servers are told
	// it; OAuth authorizes the MCP servers over HTTP that ask.
	Self    string
	Version string
	OAuth   toolsource.OAuth

	// Protected are kesoku's own files so far (the config files in use):
	// tools may read them, never write them.
	Protected []workspace.Protected

	// Model is the model the command asks; Model.Model "" for none. Unless
	// ModelRequired, it is the model tools ask (analyze_media), and a key
	// is needed only by the call that asks it. InlineLimit is how large a
	// Gemini request with a file inline may be.
	Model         provider.Config
	ModelRequired bool
	InlineLimit   int64
	// Cassette is the file the model's traffic is recorded to or replayed
	// from (--cassette), "" for none; CassetteMode says which.
	Cassette     string
	CassetteMode cassette.Mode
	// CassetteDir is the directory of an eval's cassettes, one a case and
	// repeat ("" for none); CassetteProbe is the one of them whose header
	// says the model, when the cassettes replay.
	CassetteDir, CassetteProbe string

	// Policy decides each call besides the config files' rules.
	Policy PolicyOptions

	// Secrets are secrets of the command's own that programs must not
	// get and nothing may show (mcp serve's token). Prepare adds the
	// providers' keys, the tool set those of the MCP servers (their
	// headers, a key in a URL, OAuth's secrets and tokens).
	Secrets []string

	// Trace names the span of the whole command ("run", "eval") when
	// traces are on; "" for none (a command whose spans come from
	// elsewhere: mcp serve continues its clients' traces).
	Trace string
	// Getenv reads the OTEL_* variables that turn traces on; nil is the
	// process's environment.
	Getenv func(string) string
}

// Env is a command's environment, made by Prepare. Close it once.
type Env struct {
	opts Options
	// Tools is the tool set, nil when Options.Tools was.
	Tools *toolsource.Set
	// Interrupts are the command's signals as interrupts of its turns:
	// from Prepare with OneTurn, else from WatchSignals; nil before.
	Interrupts *Interrupts
	// Model is the model resolved, nil for none.
	Model *provider.Model
	// Cassette is the cassette its traffic goes on or comes from, nil for
	// none.
	Cassette *cassette.Cassette

	protected []workspace.Protected
	// hooks run the config files' hooks, nil for none; records is the
	// file the command's records go to, their transcript_path.
	hooks   *hook.Runner
	records string
	endTurn func()
	// secrets are every secret the command holds: hidden in what comes
	// back, kept from the programs tools start.
	secrets *secret.Redactor
	// policy decides each call (the runner's decision point); rules are
	// the rules of permissions in it.
	policy *policy.Policy
	rules  policy.Rules
	// traces is the OpenTelemetry SDK when the OTEL_* variables turn it
	// on, nil otherwise; root is the command's span.
	traces *tracing.Provider
	root   *tracing.Span
	// recordingSaid and replayingSaid say once that an eval records
	// cassettes, or replays them.
	recordingSaid, replayingSaid sync.Once
}

// Prepare makes the environment options describe. Every error it returns
// is the user's to fix before anything runs (a config file's mistake, an
// unknown provider, a missing key for a command that calls the model).
// The context it returns is the one to work under: with OneTurn, the
// turn's.
func Prepare(ctx context.Context, o Options) (context.Context, *Env, error) {
	if o.Tell == nil {
		o.Tell = notice.Discard
	}
	if o.CassetteDir != "" {
		// Each case would fail on its own, the same way, before it sent
		// anything: said once, as the user's mistake.
		if st, err := os.Stat(o.CassetteDir); err == nil && !st.IsDir() {
			return ctx, nil, fmt.Errorf("cassettes %s: not a directory: an eval keeps one cassette a case and repeat in a directory", o.CassetteDir)
		}
	}
	e := &Env{opts: o, protected: append([]workspace.Protected(nil), o.Protected...)}
	ctx = e.startTraces(ctx)
	if o.Cassette != "" {
		c, err := cassette.Open(o.Cassette, o.CassetteMode)
		if err != nil {
			return ctx, nil, err
		}
		e.Cassette, o.Model.Cassette = c, c
		// Auto decides by the file: which it did is worth a line.
		switch {
		case !c.Replaying() && !o.Quiet:
			o.Tell.Tell(notice.Warning, "recording the model's traffic to the cassette "+o.Cassette)
		case c.Replaying() && o.Verbose:
			o.Tell.Tell(notice.Info, "replaying the model's traffic from the cassette "+o.Cassette)
		}
		// Tools read it no more than kesoku's other files: a session must
		// not rewrite what it replays, nor what it records.
		e.Protect(o.Cassette, "it is the cassette of this command's model traffic")
	}
	if o.CassetteDir != "" && o.CassetteMode != cassette.Record {
		// Replayed, the cassettes need no key, and say the model: the
		// first case's tells what they were recorded with.
		if _, err := os.Stat(o.CassetteProbe); err != nil {
			// The first case's may be another shard's: any cassette of
			// the directory says the model as well.
			if others, _ := filepath.Glob(filepath.Join(o.CassetteDir, "*.jsonl")); len(others) > 0 {
				o.CassetteProbe = others[0]
			}
		}
		if _, err := os.Stat(o.CassetteProbe); err == nil || o.CassetteMode == cassette.Replay {
			c, err := cassette.Open(o.CassetteProbe, cassette.Replay)
			if err != nil {
				return ctx, nil, err
			}
			o.Model.Cassette = c
		}
	}
	// Every provider's key, not only the model's: a program or a server
	// that prints its environment, or reads a file, may show any of them.
	e.secrets = secret.NewRedactor(provider.Keys()...)
	e.secrets.Add(o.Secrets...)
	if e.traces != nil {
		e.secrets.Add(tracing.HeaderValues(e.getenv)...)
	}
	if o.Model.Model != "" || o.ModelRequired {
		if !o.Quiet {
			o.Model.Notices = notice.Func(o.Tell, notice.Warning)
		}
		resolve := provider.ResolveForTools
		if o.ModelRequired {
			if o.Verbose {
				o.Model.SDKLog = o.Log
			}
			resolve = provider.Resolve
		}
		m, err := resolve(o.Model)
		if err != nil {
			e.Close()
			return ctx, nil, err
		}
		e.Model = m
	}
	if o.OneTurn {
		ctx, e.endTurn = e.WatchSignals(nil).Turn(ctx)
	}
	if o.Tools != nil {
		set, err := toolsource.Build(ctx, o.Tools, e.ToolOptions())
		if err != nil {
			e.Close()
			return ctx, nil, err
		}
		e.Tools = set
		e.hooks = e.newHooks()
	}
	if err := e.buildPolicy(); err != nil {
		e.Close()
		return ctx, nil, err
	}
	e.addHooks()
	return ctx, e, nil
}

// WatchSignals starts watching the signals, as interrupts of the turns
// the command starts; idle, when not nil, is told of a signal between
// turns. Close stops watching.
func (e *Env) WatchSignals(idle func()) *Interrupts {
	e.Interrupts = WatchSignals(e.opts.Signals, idle)
	return e.Interrupts
}

// Layout is where kesoku keeps its own files in the AWD.
func (e *Env) Layout() workspace.Layout { return workspace.LayoutOf(e.opts.AWD) }

// StagingDir is the staging directory: the one given, or the layout's.
func (e *Env) StagingDir() string {
	if e.opts.Staging != "" {
		return e.opts.Staging
	}
	return e.Layout().Staging()
}

// Protect keeps path from the tools, saying why: they may read it, never
// write it. Protect before RunnerOptions, which copies the list.
func (e *Env) Protect(path, why string) { e.protected = Protect(e.protected, path, why) }

// Protect is list with path added, made absolute, and why tools must not
// write it; standard input and output ("-", "") are no file to protect.
func Protect(list []workspace.Protected, path, why string) []workspace.Protected {
	if path == "" || path == "-" {
		return list
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return append(list, workspace.Protected{Path: path, Why: why})
}

// ToolOptions are the options of the tool set (toolsource.Build): the
// config's declarations, bounded by the command's calls.
func (e *Env) ToolOptions() toolsource.Options {
	opts := ToolOptions(e.opts)
	opts.Secrets = e.secrets
	return opts
}

// Secrets are every secret the command holds, as they become known:
// replaced by [redacted] in whatever is shown, written or sent to a model.
func (e *Env) Secrets() *secret.Redactor { return e.secrets }

// ToolOptions are the options of the tool set that o describes, for a
// command that builds one of its own (mcp login).
func ToolOptions(o Options) toolsource.Options {
	opts := toolsource.Options{
		WithoutServers: o.WithoutServers,
		Config:         o.Config,
		MCPConfig:      o.MCPConfig,
		AWD:            o.AWD,
		Grace:          DefaultGrace,
		MaxOutput:      DefaultMaxOutput,
		OutputDir:      workspace.LayoutOf(o.AWD).Outputs(),
		Version:        o.Version,
		Guardian:       o.Self,
		Reap:           o.Self != "",
		OAuth:          o.OAuth,
		Starting:       o.Starting,
	}
	tell := o.Tell
	if tell == nil {
		tell = notice.Discard
	}
	opts.Warn = func(msg string) {
		if !o.Quiet {
			tell.Tell(notice.Warning, msg)
		}
	}
	if o.Verbose {
		opts.Note = notice.Func(tell, notice.Info)
	}
	if c := o.Calls; c != nil {
		opts.Grace, opts.MaxOutput, opts.Timeout = c.Grace, c.MaxOutput, c.Timeout
		if opts.Grace == 0 {
			// No grace for calls; a program still gets a moment to die of
			// SIGTERM before SIGKILL.
			opts.Grace = 10 * time.Millisecond
		}
	}
	return opts
}

// RunnerOptions are the ToolRunner's options of the environment: the
// calls' bounds, the workspace and its protected files, and the model
// tools ask. The caller adds what is its own (the session, the store, how
// its turns are interrupted).
func (e *Env) RunnerOptions() runner.Options {
	var c Calls
	if e.opts.Calls != nil {
		c = *e.opts.Calls
	}
	o := runner.Options{
		Jobs:      c.Jobs,
		Timeout:   c.Timeout,
		Grace:     c.Grace,
		MaxOutput: c.MaxOutput,
		OutputDir: e.Layout().Outputs(),
		AWD:       e.opts.AWD,
		Staging:   e.StagingDir(),
		Protected: append([]workspace.Protected(nil), e.protected...),
		Model:     e.ToolModel(),
		Secrets:   e.secrets,
	}
	if e.policy != nil && len(e.policy.Steps) > 0 {
		// No step, no decision: a run without rules pays nothing for them.
		o.Policy = e.policy
	}
	o.After = e.hooks.After(e.records)
	return o
}

// ToolModel is the model as tools see it: built on first use, carrying
// the media options, so that analyze_media follows the inline limit and
// tells what it does. No model is nil.
func (e *Env) ToolModel() toolset.Model {
	if e.Model == nil {
		return nil
	}
	return media.WithOptions(e.Model.Lazy(), e.MediaOptions(nil))
}

// MediaOptions are how files go to the model and what analyze_media tells
// of them: deleted uploads when verbose, a deletion that failed unless
// quiet. tally, when set, counts its requests.
func (e *Env) MediaOptions(tally *llm.Tally) media.Options {
	o := media.Options{InlineLimit: e.opts.InlineLimit}
	if tally != nil {
		o.OnUsage, o.Allow = tally.Add, tally.Allow
	}
	if e.opts.Verbose {
		o.OnNotice = notice.Func(e.opts.Tell, notice.Info)
	}
	if !e.opts.Quiet {
		o.OnWarning = func(msg string) { e.opts.Tell.Tell(notice.Warning, "warning: "+msg) }
	}
	return o
}

// Close takes the environment down: the tool set stops what its tools
// started, the turn ends, the signals go back to their default action.
func (e *Env) Close() error {
	var err error
	if e.Tools != nil {
		err = e.Tools.Close()
	}
	if e.endTurn != nil {
		e.endTurn()
	}
	if e.Interrupts != nil {
		e.Interrupts.Stop()
	}
	if e.Cassette != nil {
		if cerr := e.Cassette.Close(); err == nil {
			err = cerr
		}
	}
	e.endTraces()
	return err
}

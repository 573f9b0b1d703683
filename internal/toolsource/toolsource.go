package toolsource

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kesoku/kesoku/internal/secret"
	"github.com/kesoku/kesoku/internal/workspace"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

// Options say where the tools come from and how their programs run.
type Options struct {
	// Config is the config files in use: their tools: and mcpServers:
	// sections, the user's first, a project's entry winning on a name.
	Config *config.Config
	// MCPConfig are files of MCP servers in the shape of .mcp.json and
	// Claude Desktop's config (--mcp-config), read as they are; their
	// entries win over the config files'.
	MCPConfig []string
	// AWD is where programs run.
	AWD string
	// Grace is how long a program gets between SIGTERM and SIGKILL.
	Grace time.Duration
	// MaxOutput is --max-output: a command tool's standard output is
	// held up to it, and past it written to a file under OutputDir as it
	// comes, only its head and tail held (0: held whole, up to 64 MiB).
	MaxOutput int64
	// OutputDir is where whole outputs are saved, as the runner saves
	// them (default .kesoku/outputs under the AWD).
	OutputDir string
	// Note, when set, is told what a -v reader wants to know: which
	// declaration replaced which, which server started.
	Note func(string)
	// Starting, when set, is told the name of each MCP server as it
	// begins to start, before it answers: what a command then waits for
	// (a server run by npx may first download its package).
	Starting func(server string)
	// Warn, when set, is told what went wrong outside any call: a server
	// whose tool cannot be offered, say.
	Warn func(string)
	// Version is kesoku's, as an MCP client names itself to servers.
	Version string
	// WithoutServers leaves the MCP servers out of the registry: they are
	// read and checked as ever (a mistake is an error), none is ever
	// started, and Set.Servers names them. kesoku mcp serve serves
	// kesoku's own tools (the Go and command tools); a served
	// kesoku that started the servers of its config would start itself
	// again when its config names it as a server.
	WithoutServers bool
	// Reap makes kesoku a child subreaper (on Linux) once it starts a
	// program: a child that leaves its program's process group (setsid,
	// setpgid, a double fork) becomes kesoku's when its parent exits, and
	// is stopped when its program ends and when kesoku stops. Only
	// kesoku's own binary sets it: it takes every child of the process
	// that toolsource did not start for such an orphan, which in a test
	// binary is not so.
	Reap bool
	// Guardian is kesoku's own binary, started (with GuardianEnv) as the
	// guardian of the programs kesoku starts, to stop them should kesoku
	// be killed outright; "" starts none.
	Guardian string
	// Timeout is --timeout: it bounds each call of a server's tools (as
	// the runner's bound), and also how long a server may take to start
	// and list its tools, unless the server's own timeout: says
	// otherwise. 0: the server's timeout:, else StartTimeout.
	Timeout time.Duration
	// StartTimeout bounds an MCP server's start and listing when neither
	// its timeout: nor Timeout does (default 60s: npx may download a
	// server first); KeepAlive is how often a server is pinged (default
	// 10s): one that stops answering is given up. Tests shorten them.
	StartTimeout, KeepAlive time.Duration
	// MaxMessage bounds a message from a server: a line of its standard
	// output, an HTTP body, an event of a stream (default 64 MiB, or twice
	// MaxOutput when that is more); tests lower it.
	MaxMessage int
	// OAuth says how the servers over HTTP are authorized when they ask.
	OAuth OAuth
	// Secrets are the secrets kesoku holds (the providers' keys); Build
	// adds those of the MCP servers declared (their headers' values, a
	// key in a URL, OAuth's secrets, and the tokens of a login as they
	// come). No program a tool starts gets one in its environment, and
	// Note, Warn and what the servers send are hidden of them; nil: the
	// set's own.
	Secrets *secret.Redactor
}

// Set is the tools a command uses, and the programs they started.
type Set struct {
	// Registry holds every tool: the Go tools, the command tools, and the
	// MCP servers' tools, each server started when first needed.
	Registry *toolset.Set

	opts                    Options
	procs                   *processes
	servers                 []*server
	declared                []string
	awd, version            string
	startTimeout, keepAlive time.Duration
	maxMessage              int
	secrets                 *secret.Redactor
}

func (s *Set) note(msg string) {
	if s.opts.Note != nil {
		s.opts.Note(msg)
	}
}

func (s *Set) warn(msg string) {
	if s.opts.Warn != nil {
		s.opts.Warn(msg)
	}
}

// Build makes the registry a command uses: the tools of base (the Go
// tools: registry.Default, which stays as it was filled), then the
// command tools and MCP servers the config files and --mcp-config
// declare. Every mistake in a declaration is an error (a *config.Error,
// with the file's line) before anything runs; no program starts here.
func Build(ctx context.Context, base *registry.Registry, opts Options) (*Set, error) {
	grace := opts.Grace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	if opts.Secrets == nil {
		opts.Secrets = secret.NewRedactor()
	}
	// What is said of the tools (a server's standard error under -v, a
	// warning quoting what a server sent) hides every secret.
	opts.Note, opts.Warn = opts.Secrets.Func(opts.Note), opts.Secrets.Func(opts.Warn)
	s := &Set{
		secrets:      opts.Secrets,
		Registry:     toolset.New(),
		opts:         opts,
		procs:        newProcesses(grace, &guardian{exe: opts.Guardian, warn: opts.Warn}, opts.Reap),
		awd:          opts.AWD,
		version:      opts.Version,
		startTimeout: opts.StartTimeout,
		keepAlive:    opts.KeepAlive,
	}
	if s.startTimeout <= 0 {
		s.startTimeout = defaultStartTimeout
	}
	if s.keepAlive <= 0 {
		s.keepAlive = defaultKeepAlive
	}
	if s.maxMessage = opts.MaxMessage; s.maxMessage <= 0 {
		s.maxMessage = int(max(defaultMaxMessage, 2*opts.MaxOutput))
	}
	if s.version == "" {
		s.version = "dev"
	}
	for _, spec := range base.All() {
		if err := s.Registry.Register(toolset.FromSpec(spec)); err != nil {
			return nil, err
		}
	}
	tools, err := declaredTools(opts)
	if err != nil {
		return nil, err
	}
	outputDir := opts.OutputDir
	if outputDir == "" {
		outputDir = workspace.LayoutOf(opts.AWD).Outputs()
	}
	run := &commandRunner{procs: s.procs, awd: opts.AWD, limit: opts.MaxOutput, outputDir: outputDir, capture: noLimitCapture, secrets: s.secrets}
	for _, t := range tools {
		if prev, ok := base.Lookup(t.name); ok {
			return nil, &config.Error{Pos: t.pos, Msg: fmt.Sprintf("tools.%s: a Go tool has this name (%s): a command tool needs a name of its own", t.name, prev.Source)}
		}
		if err := s.Registry.Register(t.spec(run.run)); err != nil {
			return nil, &config.Error{Pos: t.pos, Msg: fmt.Sprintf("tools.%s: %v", t.name, err)}
		}
	}
	servers, err := declaredServers(opts)
	if err != nil {
		return nil, err
	}
	for _, d := range servers {
		// Known before anything starts: no program gets them.
		s.secrets.Add(d.secrets()...)
	}
	for _, d := range servers {
		// A command tool named like a server's tool would make the name
		// mean two tools.
		for _, t := range tools {
			if strings.HasPrefix(t.name, d.name+"__") {
				return nil, &config.Error{Pos: t.pos, Msg: fmt.Sprintf("tools.%s: the name begins with %s__, the names of the tools of %s", t.name, d.name, d.where())}
			}
		}
		s.declared = append(s.declared, d.name)
		if opts.WithoutServers {
			continue
		}
		srv := &server{decl: d, set: s, ctx: ctx}
		if err := s.Registry.AddSource(srv); err != nil {
			return nil, &config.Error{Pos: d.pos, Msg: err.Error()}
		}
		s.servers = append(s.servers, srv)
	}
	return s, nil
}

// Servers returns the names of the MCP servers declared, in the order
// declared, whether or not their tools are in the registry
// (Options.WithoutServers).
func (s *Set) Servers() []string { return s.declared }

// Close stops every MCP server the tools started and every program still
// running, with whatever they started: no child outlives kesoku. The
// servers stop at once, each first given the chance to exit on its own.
func (s *Set) Close() error {
	var wg sync.WaitGroup
	for _, srv := range s.servers {
		wg.Go(srv.close)
	}
	wg.Wait()
	s.procs.close()
	return nil
}

// declaredTools reads the command tools of the config files, a later
// file's declaration replacing an earlier one of the same name.
func declaredTools(opts Options) ([]*commandTool, error) {
	if opts.Config == nil {
		return nil, nil
	}
	byName := map[string]*commandTool{}
	var errs []error
	for _, sec := range opts.Config.Sections("tools") {
		file := sec.File.Path
		es, err := entries(file, sec.Node, "tools", nil)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			t, err := parseCommandTool(file, e.key, e.keyN, e.value)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if prev := byName[t.name]; prev != nil && opts.Note != nil {
				opts.Note(fmt.Sprintf("tools.%s: %s replaces %s", t.name, t.pos, prev.pos))
			}
			byName[t.name] = t
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	out := make([]*commandTool, 0, len(byName))
	for _, t := range byName {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

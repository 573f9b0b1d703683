// Package cmd holds kesoku's commands: flags, exit codes, the terminal,
// progress, signal wiring, the help, its topics and the man pages made from
// them. It parses and hands over; the work itself is done in internal/.
package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kesoku/kesoku/internal/workspace"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolsource"
	"github.com/kesoku/kesoku/registry"
)

// globals are the flags every command has.
type globals struct {
	IO *ioStreams

	AWD     string
	Staging string
	Config  string
	Quiet   bool
	Verbose bool
	// MCPConfig are the files --mcp-config names.
	MCPConfig []string

	// Signals is where interrupts come from: the process's own signals in
	// Main, a channel of the test's in tests, none when nil.
	Signals app.SignalSource
	// Browser opens a URL in a person's browser for an OAuth login; nil
	// is $BROWSER, else the system's opener. Tests give their own.
	Browser func(ctx context.Context, url string) error
	// Self is kesoku's own binary, started again as the guardian of the
	// programs command tools and MCP servers run (toolsource.GuardianEnv);
	// "" for none.
	Self string
	// HardStop, when set, ends the process once the second signal of a
	// run has come and the run has not ended by then (hardStop); nil in
	// tests, whose process is not kesoku's.
	HardStop func(grace <-chan struct{}, log io.Writer) (stop func())

	// protected are kesoku's own files, which tools never write: the
	// config files, the -o file, a transcript (see protect).
	protected []workspace.Protected
	// config is the config files in use, loaded by setUp; nil for a
	// command that reads none.
	config *config.Config
	// prepare makes a command's environment: app.Prepare, but in tests
	// that give an environment of their own.
	prepare func(context.Context, app.Options) (context.Context, *app.Env, error)
	// teller says what the work below tells the user (tell).
	teller *teller
	// goTools is the registry of Go tools whose clashes stop a command
	// (checkClashes): registry.Default, but in tests.
	goTools *registry.Registry
}

// env makes the environment of a command that needs what o asks: o is
// completed with the globals (the AWD, the config files, the streams,
// the signals, the files protected so far), and a mistake it meets is
// bad usage, worded with how to approve a config file. Close it once.
func (g *globals) env(ctx context.Context, o app.Options) (context.Context, *app.Env, error) {
	prepare := g.prepare
	if prepare == nil {
		prepare = app.Prepare
	}
	ctx, env, err := prepare(ctx, g.appOptions(o))
	if err != nil {
		return ctx, nil, configErr(modelErr(err))
	}
	return ctx, env, nil
}

// appOptions are o completed with the globals.
func (g *globals) appOptions(o app.Options) app.Options {
	o.AWD, o.Staging = g.AWD, g.Staging
	o.Config, o.MCPConfig = g.config, g.MCPConfig
	o.Quiet, o.Verbose, o.Tell, o.Log = g.Quiet, g.Verbose, g.tell(), g.IO.Err
	o.Signals, o.Self = g.Signals, g.Self
	o.Version = readBuildVersion().Version
	if o.OAuth.Login == nil {
		// A command that always logs in (mcp login) says so itself.
		o.OAuth = g.oauth(false)
	}
	o.Protected = g.protected
	return o
}

// StagingDir is the staging directory: --staging, or .kesoku/staging under
// the AWD.
func (g *globals) StagingDir() string {
	if g.Staging != "" {
		return g.Staging
	}
	return workspace.LayoutOf(g.AWD).Staging()
}

// Main runs kesoku with the process's arguments and streams and returns
// the exit code. Only here are errors printed.
func Main() int {
	if toolsource.IsGuardian() {
		return toolsource.RunGuardian()
	}
	// Tests build their globals without it: a test binary started again
	// would run the tests, not kesoku.
	self, _ := os.Executable()
	return run(context.Background(), &globals{IO: systemStreams(), Signals: notifySignals, Self: self, HardStop: hardStop(exitNow)}, os.Args[1:])
}

// run runs kesoku with args and returns the exit code.
func run(ctx context.Context, g *globals, args []string) int {
	io := g.IO
	root := newRootCmd(g)
	root.SetArgs(args)
	started := false
	pre := root.PersistentPreRunE
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		// Cobra checks flag groups (-q with -v) only after this hook, when
		// the command has begun: check them first, as the bad usage they
		// are, in words rather than Cobra's "if any flags in the group
		// [quiet verbose] are set none of the others can be".
		if c.Flags().Changed("quiet") && c.Flags().Changed("verbose") {
			return usageErrf("-q (--quiet) and -v (--verbose) cannot be given together")
		}
		if err := c.ValidateFlagGroups(); err != nil {
			return usageErr(err)
		}
		started = true
		return pre(c, args)
	}
	err := root.ExecuteContext(ctx)
	if err != nil && !started {
		// Cobra rejected the command line (an unknown command, a wrong
		// number of arguments, a missing required flag) before any command
		// began: that is bad usage.
		err = usageErr(err)
	}
	code, silent := exitCode(err)
	if err != nil && !silent {
		// Errors quote config values, tool names and what servers said.
		fmt.Fprintf(io.Err, "kesoku: %s\n", termtext.Lines(errorText(err)))
	}
	return code
}

// newRootCmd builds the whole command tree over g.
func newRootCmd(g *globals) *cobra.Command {
	io := g.IO
	root := &cobra.Command{
		Use:   "kesoku",
		Short: "Turn Go functions into LLM tools and run their calls",
		Long: `kesoku turns Go functions, programs and MCP servers into tools a model can
call, and runs the calls: singly, in batches, or in sessions with any model.`,
		Version:       versionLine(readBuildVersion()),
		Args:          subcommandArgs,
		RunE:          func(c *cobra.Command, _ []string) error { return c.Help() },
		Annotations:   map[string]string{noConfig: "yes", withClashes: "yes"},
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			if err := g.checkClashes(c); err != nil {
				return err
			}
			return g.setUp(c)
		},
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	root.SetFlagErrorFunc(flagError)
	root.SetHelpFunc(func(c *cobra.Command, _ []string) { _ = writeHelp(c.OutOrStdout(), c) })
	root.SetHelpCommand(newHelpCmd())
	root.SetVersionTemplate("{{.Version}}\n")

	pf := root.PersistentFlags()
	pf.StringVar(&g.AWD, "awd", "", "the agent working `DIR` (default: the current one)")
	pf.StringVar(&g.Staging, "staging", "", "the agent's inputs `DIR` (default: .kesoku/staging)")
	pf.StringVar(&g.Config, "config", "", "the config `FILE` (default: kesoku.yaml in the AWD)")
	pf.StringArrayVar(&g.MCPConfig, "mcp-config", nil, "a `FILE` of MCP servers, as .mcp.json; repeatable")
	pf.BoolVarP(&g.Quiet, "quiet", "q", false, "print nothing but results and errors")
	pf.BoolVarP(&g.Verbose, "verbose", "v", false, "say what is being done on standard error")
	root.MarkFlagsMutuallyExclusive("quiet", "verbose")
	root.Flags().Bool("version", false, "print the version, as kesoku version does")

	root.AddCommand(
		newToolsCmd(g),
		newRunCmd(g, nil),
		newValidateCmd(g, nil),
		newDiffCmd(g, nil),
		newSessionCmd(g, nil),
		newEvalCmd(g, nil),
		newAnalyzeCmd(g, nil),
		newBatchCmd(g),
		newMergeCmd(g, nil),
		newApproveCmd(g, nil),
		newMCPCmd(g),
		newGenCmd(g, nil),
		newInitCmd(g, nil),
		newTrustCmd(g, nil),
		newSchemaCmd(g),
		newVersionCmd(g, nil),
		newGenManCmd(g),
	)
	// Cobra adds its completion command only when the program runs. Add it
	// now, so that it states its exit status like the others, and an
	// unknown shell is bad usage rather than help and success.
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.Short = "Print a shell's completion script (bash, zsh, fish, powershell)"
		c.Long = strings.TrimRight(c.Long, "\n") + "\n\nBash's script needs the bash-completion package (apt install\nbash-completion; brew install bash-completion@2); zsh, fish and PowerShell\nneed nothing more.\n" + completionExitStatus
		c.Args = subcommandArgs
		c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		// A shell's completion script does not depend on any setting.
		// Nor on two tools of one name (checkClashes): it uses no tool.
		c.Annotations = map[string]string{noConfig: "yes", withClashes: "yes"}
		for _, sub := range c.Commands() {
			sub.Annotations = map[string]string{noConfig: "yes", withClashes: "yes"}
			sub.Long = fitWidth(sub.Long) + completionScriptExitStatus
		}
	}
	for _, c := range root.Commands() {
		// A command whose exit codes differ from the usual ones says so
		// in its own EXIT STATUS section.
		if !strings.Contains(c.Long, "EXIT STATUS") {
			c.Long = longOr(c) + "\n" + exitStatusHelp
		}
	}
	for _, t := range helpTopics {
		root.AddCommand(newTopicCmd(t))
	}
	completeToolNames(root)
	return root
}

// completeToolNames has the shells complete the flags that name tools
// (--tools, --allow, --ask, --deny), on every command that has them,
// with the names of the Go tools built in: what a config file adds
// (command tools, MCP servers) would start programs to tell.
func completeToolNames(c *cobra.Command) {
	for _, name := range []string{"tools", "allow", "ask", "deny"} {
		if c.Flags().Lookup(name) != nil {
			directive := cobra.ShellCompDirectiveNoFileComp
			if name == "tools" {
				// A list: the user goes on with a comma.
				directive |= cobra.ShellCompDirectiveNoSpace
			}
			_ = c.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, typed string) ([]string, cobra.ShellCompDirective) {
				return toolCompletions(name, typed, toolset.Of(registry.Default).Names()), directive
			})
		}
	}
	for _, sub := range c.Commands() {
		completeToolNames(sub)
	}
}

// toolCompletions are the completions of typed, a value of the flag
// called flag, among the tools called names: --tools is a list (A,B, or
// +A,-B on the defaults, or all), each part completed after what is
// typed before it; a rule names one tool.
func toolCompletions(flag, typed string, names []string) []string {
	head, part, signs := "", typed, []string{""}
	if flag == "tools" {
		if i := strings.LastIndexByte(typed, ','); i >= 0 {
			head, part = typed[:i+1], typed[i+1:]
		}
		switch bare := strings.TrimLeft(part, "+-"); {
		case len(bare) < len(part):
			head, part = head+part[:len(part)-len(bare)], bare
		case head == "":
			names = append([]string{"all"}, names...)
		case strings.ContainsAny(head[:1], "+-"):
			// A list of changes to the defaults goes on as one: plain
			// names mixed in are refused.
			signs = []string{"+", "-"}
		}
	}
	var out []string
	for _, sign := range signs {
		for _, n := range names {
			if strings.HasPrefix(n, part) {
				out = append(out, head+sign+n)
			}
		}
	}
	return out
}

// fitWidth fits Cobra's own help text to helpWidth: a line of prose that
// is longer is filled, and indenting tabs become two spaces.
func fitWidth(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if t := strings.TrimLeft(l, "\t"); t != l {
			l = strings.Repeat("  ", len(l)-len(t)) + t
		}
		if len(l) > helpWidth && !strings.HasPrefix(l, " ") {
			l = strings.TrimSuffix(wrapText(l, helpWidth), "\n")
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

func longOr(c *cobra.Command) string {
	if c.Long != "" {
		return c.Long
	}
	return c.Short
}

// setUp resolves the AWD, loads the config files and applies their
// defaults to every flag the command line left unset.
func (g *globals) setUp(c *cobra.Command) error {
	if g.AWD == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("find the current directory: %w", err)
		}
		g.AWD = wd
	}
	abs, err := filepath.Abs(g.AWD)
	if err != nil {
		return usageErrf("--awd %s: %w", g.AWD, err)
	}
	// Every file tool would fail on a working directory that is not
	// there: say so once, before anything runs.
	if fi, err := os.Stat(abs); err != nil {
		return usageErrf("--awd: %w", err)
	} else if !fi.IsDir() {
		return usageErrf("--awd %s: not a directory", g.AWD)
	}
	g.AWD = abs
	if g.Staging != "" {
		if g.Staging, err = filepath.Abs(g.Staging); err != nil {
			return usageErrf("--staging: %w", err)
		}
	}
	if c.Annotations[noConfig] != "" {
		return nil
	}
	cfg, applied, err := g.loadConfig(c)
	if err != nil {
		return err
	}
	g.config = cfg
	if g.Verbose {
		files := "none"
		if len(cfg.Files) > 0 {
			files = strings.Join(cfg.Paths(), " and ")
		}
		fmt.Fprintf(g.IO.Err, "kesoku: working directory %s, staging %s, config %s\n", termtext.Escape(g.AWD), termtext.Escape(g.StagingDir()), termtext.Escape(files))
		for _, a := range applied {
			fmt.Fprintf(g.IO.Err, "kesoku: config: %s\n", termtext.Escape(a.String()))
		}
	}
	return nil
}

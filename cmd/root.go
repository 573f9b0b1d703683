// Package cmd holds kesoku's commands: flags, exit codes, the terminal,
// progress and signal wiring. It parses and hands over; the work itself is
// done in internal/.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Globals are the flags every command has (SPEC §1).
type Globals struct {
	IO *IOStreams

	AWD     string
	Staging string
	Config  string
	Quiet   bool
	Verbose bool

	// Signals is where interrupts come from: the process's own signals in
	// Main, a channel of the test's in tests, none when nil.
	Signals signalSource
}

// StagingDir is the staging directory: --staging, or .kesoku/staging under
// the AWD.
func (g *Globals) StagingDir() string {
	if g.Staging != "" {
		return g.Staging
	}
	return filepath.Join(g.AWD, ".kesoku", "staging")
}

// Main runs kesoku with the process's arguments and streams and returns
// the exit code. Only here are errors printed.
func Main() int {
	return run(context.Background(), &Globals{IO: System(), Signals: notifySignals}, os.Args[1:])
}

// run runs kesoku with args and returns the exit code.
func run(ctx context.Context, g *Globals, args []string) int {
	io := g.IO
	root := newRootCmd(g)
	root.SetArgs(args)
	started := false
	pre := root.PersistentPreRunE
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		// Cobra checks flag groups (-q with -v) only after this hook, when
		// the command has begun: check them first, as the bad usage they are.
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
		fmt.Fprintf(io.Err, "kesoku: %v\n", err)
	}
	return code
}

// newRootCmd builds the whole command tree over g.
func newRootCmd(g *Globals) *cobra.Command {
	io := g.IO
	root := &cobra.Command{
		Use:   "kesoku",
		Short: "Turn Go functions into LLM tools and run their calls",
		Long: `kesoku turns Go functions into tools a large language model can call, and
runs those calls: singly, in large batches from YAML, JSON or JSON Lines
files, or inside agent sessions with Gemini and Claude. Every result is
written as one JSON line, a Message record.`,
		Example: `  kesoku tools list
  kesoku tools schema --format claude
  kesoku run testdata/requests.yaml
  kesoku session "what is 12345+67890? use the tool" --model gemini-2.5-flash
  kesoku analyze photo.png "describe" --model claude-sonnet-4-5`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			return g.setUp(c)
		},
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.Err)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr(err) })

	pf := root.PersistentFlags()
	pf.StringVar(&g.AWD, "awd", "", "agent working directory: file tools are confined to it (default: the current directory)")
	pf.StringVar(&g.Staging, "staging", "", "where inputs handed to the agent wait (default: .kesoku/staging under the AWD)")
	pf.StringVar(&g.Config, "config", "", "YAML file of flag defaults, keyed by flag name (default: kesoku.yaml in the AWD when it exists)")
	pf.BoolVarP(&g.Quiet, "quiet", "q", false, "print nothing but results and errors")
	pf.BoolVarP(&g.Verbose, "verbose", "v", false, "print what is being done on standard error")
	root.MarkFlagsMutuallyExclusive("quiet", "verbose")

	root.AddCommand(
		newToolsCmd(g),
		newRunCmd(g, nil),
		newValidateCmd(g, nil),
		newSessionCmd(g, nil),
		newAnalyzeCmd(g, nil),
		newGenCmd(g, nil),
		newVersionCmd(g, nil),
	)
	// Cobra adds its completion command only when the program runs. Add it
	// now, so that it states its exit status like the others, and an
	// unknown shell is bad usage rather than help and success.
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.Long += completionExitStatus
		c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
	for _, c := range root.Commands() {
		// A command whose exit codes differ from the usual ones says so
		// in its own EXIT STATUS section.
		if !strings.Contains(c.Long, "EXIT STATUS") {
			c.Long = longOr(c) + "\n" + exitStatusHelp
		}
	}
	return root
}

func longOr(c *cobra.Command) string {
	if c.Long != "" {
		return c.Long
	}
	return c.Short
}

// setUp resolves the AWD and applies the config file's defaults to every
// flag the command line left unset.
func (g *Globals) setUp(c *cobra.Command) error {
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
	config, err := g.applyConfig(c)
	if err != nil {
		return err
	}
	if g.Verbose {
		if config == "" {
			config = "none"
		}
		fmt.Fprintf(g.IO.Err, "kesoku: working directory %s, staging %s, config %s\n", g.AWD, g.StagingDir(), config)
	}
	return nil
}

// applyConfig applies the config file's defaults and returns its path, ""
// when there is none.
func (g *Globals) applyConfig(c *cobra.Command) (string, error) {
	path, explicit := g.Config, g.Config != ""
	if !explicit {
		path = filepath.Join(g.AWD, "kesoku.yaml")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, os.ErrNotExist) {
			return "", nil
		}
		return "", usageErrf("read config: %w", err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(data, &values); err != nil {
		return "", usageErrf("config %s: %s", path, yaml.FormatError(err, false, true))
	}
	for key, v := range values {
		switch key {
		case "awd", "config":
			// The config file is found through them: too late to change.
			return "", usageErrf("config %s: %s: give --%s on the command line; the config file cannot set it", path, key, key)
		}
		f := c.Flags().Lookup(key)
		if f == nil {
			// A key for another command's flag is not an error: one file
			// serves every command.
			continue
		}
		if f.Changed || v == nil {
			// "key:" with no value leaves the flag's own default, rather
			// than setting it to the text "<nil>".
			continue
		}
		if err := setFlagFromConfig(f, v); err != nil {
			return "", usageErrf("config %s: %s: %w", path, key, err)
		}
		if key == "staging" && !filepath.IsAbs(g.Staging) {
			// A path written in the file means the same wherever kesoku
			// runs from: it is relative to the file's directory.
			abs, err := filepath.Abs(path)
			if err != nil {
				return "", usageErrf("config %s: %w", path, err)
			}
			g.Staging = filepath.Join(filepath.Dir(abs), g.Staging)
		}
	}
	return path, nil
}

func setFlagFromConfig(f *pflag.Flag, v any) error {
	if list, ok := v.([]any); ok {
		for _, item := range list {
			if err := f.Value.Set(fmt.Sprint(item)); err != nil {
				return err
			}
		}
		return nil
	}
	return f.Value.Set(fmt.Sprint(v))
}

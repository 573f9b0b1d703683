package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/config"
)

// noConfig is the annotation of a command that reads no config file:
// version, completion, and trust, which reads the file it approves.
const noConfig = "kesoku_no_config"

// loadConfig reads the user's and the project's config files, applies
// them to c's flags, and protects them from the tools: a tool that could
// write kesoku.yaml would choose the next command's settings.
func (g *globals) loadConfig(c *cobra.Command) (*config.Config, []config.Applied, error) {
	userDir := config.UserDir()
	g.protect(filepath.Join(g.AWD, config.FileName), "it is kesoku's config file: a later command would load it")
	if g.Config != "" {
		abs, err := filepath.Abs(g.Config)
		if err != nil {
			return nil, nil, usageErrf("--config: %w", err)
		}
		g.protect(abs, "it is kesoku's config file in use")
	}
	if userDir != "" {
		g.protect(userDir, "it is the user's kesoku config directory, which says which config files are approved")
	}
	cfg, err := config.Load(config.Options{AWD: g.AWD, Named: g.Config, UserDir: userDir, Keys: flagNames(c.Root())})
	var mistakes *config.MistakesError
	if errors.As(err, &mistakes) {
		// The values of the keys that are right are checked too: a file
		// with mistakes of both kinds is fixed in one go.
		_, valueErr := mistakes.Config.Apply(c.Flags(), []string{"quiet", "verbose"})
		err = config.JoinByPlace(err, valueErr, checkOthers(mistakes.Config, c))
	}
	if err != nil {
		return nil, nil, configErr(err)
	}
	// Every value refused is told at once, this command's and the others'.
	applied, err := cfg.Apply(c.Flags(), []string{"quiet", "verbose"})
	if err := config.JoinByPlace(err, checkOthers(cfg, c)); err != nil {
		return nil, nil, usageErr(err)
	}
	for _, f := range g.MCPConfig {
		g.protect(f, "it is a file of MCP servers in use: a later command would start them")
	}
	return cfg, applied, nil
}

// checkSettings applies cfg to the flags of every command, as loading it
// for that command would, in a command tree of its own (the settings must
// not become trust's own flags): a value one command refuses is refused
// here. It returns the files of MCP servers that the settings name
// (mcp-config), as a command would read them.
func checkSettings(cfg *config.Config) ([]string, error) {
	tg := &globals{IO: &ioStreams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}}
	var errs []error
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		// Merges the parents' persistent flags into c.Flags(), as parsing
		// the command line does.
		c.InheritedFlags()
		if _, err := cfg.Apply(c.Flags(), []string{"quiet", "verbose"}); err != nil {
			errs = append(errs, err)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(tg))
	// Every value some command refuses, each once.
	if err := config.JoinByPlace(errs...); err != nil {
		return nil, err
	}
	return tg.MCPConfig, nil
}

// checkOthers checks the settings of cfg that c has no flag for, as the
// commands that have one would take them: a value that cannot be right
// (jobs: eight) is refused by every command, at its line, rather than by
// the next command that uses it. The tree of every command is built only
// when there is such a setting.
func checkOthers(cfg *config.Config, c *cobra.Command) error {
	for _, f := range cfg.Files {
		for _, s := range f.Settings {
			if c.Flags().Lookup(s.Key) == nil {
				_, err := checkSettings(cfg)
				return err
			}
		}
	}
	return nil
}

// configErr is bad usage, saying how to approve a file that needs it.
func configErr(err error) error {
	err = configWords(err)
	var ue *config.UnapprovedError
	if errors.As(err, &ue) {
		hint := fmt.Sprintf("review it, then approve it with:\n  kesoku trust %s\nor name it with --config %s", ue.File.Path, ue.File.Path)
		if ue.NoStore {
			hint = fmt.Sprintf("there is no config directory to record an approval in (set HOME or XDG_CONFIG_HOME); name it with --config %s", ue.File.Path)
		} else if x := os.Getenv("XDG_CONFIG_HOME"); x == "" || !filepath.IsAbs(x) {
			// An MCP client may start kesoku with less of the environment
			// than the shell that approved the file had: say which store
			// was read, and why that one.
			hint += "\nXDG_CONFIG_HOME is not set to an absolute path here, so the approvals are those of the home directory; an approval made where it is set is kept under it, and a program that starts kesoku (an MCP client) may have left it out of the environment"
		}
		return usageErrf("%w\n%s", err, hint)
	}
	return usageErr(err)
}

// configWords words the config package's errors that are about flags:
// a key no config file may set, a file of MCP servers (--mcp-config) that
// cannot be read.
func configWords(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		// Every mistake of a file, each worded.
		errs := slices.Clone(j.Unwrap())
		for i, e := range errs {
			errs[i] = configWords(e)
		}
		return errors.Join(errs...)
	}
	var (
		refused *config.RefusedKeyError
		servers *config.ServersFileError
		syntax  *config.Error
	)
	switch {
	case errors.As(err, &syntax) && syntax.Snippet != "":
		// The line, and a caret under the place.
		return reword(err, "%v\n%s", err, syntax.Snippet)
	case errors.As(err, &refused) && err == error(refused):
		why := map[config.Refusal]string{
			config.FindsTheFile:  "the config file is found through --" + refused.Key + ": give it on the command line",
			config.OneRun:        "--" + refused.Key + " is about one run: give it on the command line",
			config.NoSetting:     "--" + refused.Key + " is not a setting",
			config.OneAction:     "--" + refused.Key + " chooses what one command does: give it on the command line",
			config.InPermissions: "a config file's rules go under permissions: (permissions: {" + refused.Key + ": [RULE...]})",
		}[refused.Why]
		return reword(err, "%s: %s: not a setting: %s", refused.Pos, refused.Key, why)
	case errors.As(err, &servers) && err == error(servers):
		return reword(err, "--mcp-config %s: %v", servers.Path, servers.Err)
	}
	return err
}

// flagNames are the names of every flag of every command: the keys a
// config file may set.
func flagNames(root *cobra.Command) []string {
	var names []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		add := func(f *pflag.Flag) { names = append(names, f.Name) }
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return names
}

// protect keeps path from the tools, saying why: they may read it, never
// write it.
func (g *globals) protect(path, why string) { g.protected = app.Protect(g.protected, path, why) }

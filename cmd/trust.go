package cmd

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/config"
)

// trustOptions are what `kesoku trust` was asked to do.
type trustOptions struct {
	g      *Globals
	File   string
	Revoke bool
	// keys are the flag names a config file may set.
	keys []string
}

// newTrustCmd builds `kesoku trust`; tests pass runF.
func newTrustCmd(g *Globals, runF func(*trustOptions) error) *cobra.Command {
	opts := &trustOptions{g: g}
	c := &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Approve a project's kesoku.yaml, so that kesoku loads it",
		Long: `trust approves a config file found in a working directory (default: the
AWD's kesoku.yaml), as direnv allow does. A kesoku.yaml that comes with a
directory (a cloned repository, a file a tool wrote) is not consent: one
that sets where records are written (output), which directory tools may
read (staging) or where requests and the API key go (base-url), or that
starts programs (tools, mcpServers), is loaded only once approved, and
otherwise refused (exit 2). A file that sets none of these needs no
approval.

trust checks the file, shows what it sets that needed approval, and
records its SHA-256 with its path under the user's config directory
($XDG_CONFIG_HOME/kesoku/trusted, or ~/.config/kesoku/trusted). A change to
the file, or the same file at another path, needs approval again.
--revoke forgets an approval. A file named with --config needs none: it
is approved by being named.

EXIT STATUS
  0  the file was approved (or, with --revoke, is no longer)
  2  bad usage, or a file that cannot be read or is not a valid config
     file; nothing was approved`,
		Example: `  git clone https://example.com/project && cd project
  cat kesoku.yaml          # read it first
  kesoku trust             # then approve it
  kesoku trust --revoke    # and forget it again`,
		Args: cobra.MaximumNArgs(1),
		// trust reads the file it approves itself: loading it first would
		// refuse it for want of the very approval asked for.
		Annotations: map[string]string{noConfig: "yes"},
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			opts.keys = flagNames(c.Root())
			if runF != nil {
				return runF(opts)
			}
			return runTrust(opts)
		},
	}
	c.Flags().BoolVar(&opts.Revoke, "revoke", false, "forget the file's approval instead")
	return c
}

func runTrust(o *trustOptions) error {
	g := o.g
	path := o.File
	switch {
	case path != "":
	case g.Config != "":
		path = g.Config
	default:
		path = filepath.Join(g.AWD, config.FileName)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return usageErrf("%s: %w", path, err)
	}
	approvals := config.ApprovalsOf(config.UserDir())
	if o.Revoke {
		had, err := approvals.Revoke(abs)
		if err != nil {
			return err
		}
		if !g.Quiet {
			if had {
				fmt.Fprintf(g.IO.Err, "kesoku: %s is no longer approved\n", abs)
			} else {
				fmt.Fprintf(g.IO.Err, "kesoku: %s was not approved\n", abs)
			}
		}
		return nil
	}
	// The same checks as loading it: a file that could not be loaded is
	// not worth approving.
	f, err := config.ReadFile(abs, config.Found, o.keys)
	if err != nil {
		return usageErr(err)
	}
	if err := approvals.Approve(f); err != nil {
		return usageErr(err)
	}
	if g.Quiet {
		return nil
	}
	keys := f.Consequential()
	if len(keys) == 0 {
		fmt.Fprintf(g.IO.Err, "kesoku: approved %s (sha256 %s); it sets nothing that needs approval yet\n", abs, f.Sum[:12])
		return nil
	}
	fmt.Fprintf(g.IO.Err, "kesoku: approved %s (sha256 %s), which sets:\n", abs, f.Sum[:12])
	for _, s := range f.Settings {
		if config.NeedsApproval(s.Key) {
			fmt.Fprintf(g.IO.Err, "  %s: %s  (%s)\n", s.Key, s.Value(), s.KeyPos)
		}
	}
	for _, key := range config.SectionKeys() {
		if s := f.Sections[key]; s != nil {
			fmt.Fprintf(g.IO.Err, "  %s: ...  (%s)\n", key, s.Pos)
		}
	}
	fmt.Fprintln(g.IO.Err, "kesoku loads it until it changes.")
	return nil
}

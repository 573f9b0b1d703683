package cmd

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set with -ldflags "-X github.com/kesoku/kesoku/cmd.version=v1.2.3"
// by release builds; otherwise the module version from the build info is used.
var version = ""

// versionOptions are what `kesoku version` was asked to do.
type versionOptions struct {
	IO *IOStreams
}

// newVersionCmd builds `kesoku version`; tests pass runF.
func newVersionCmd(g *Globals, runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{}
	return &cobra.Command{
		Use:   "version",
		Short: "Print kesoku's version",
		Long: `version prints kesoku's version: the one a release was built with, or
the module version and VCS revision the Go toolchain stamped.

EXIT STATUS
  0  the version was printed
  2  bad usage (an argument, an unknown flag)`,
		Args: cobra.NoArgs,
		// The version does not depend on any setting, and must print
		// whatever the directory holds.
		Annotations: map[string]string{noConfig: "yes"},
		RunE: func(c *cobra.Command, _ []string) error {
			opts.IO = g.IO
			if runF != nil {
				return runF(opts)
			}
			return runVersion(opts)
		},
	}
}

func runVersion(opts *versionOptions) error {
	_, err := fmt.Fprintln(opts.IO.Out, "kesoku", versionString())
	return err
}

func versionString() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

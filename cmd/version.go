package cmd

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set with -ldflags "-X github.com/kesoku/kesoku/cmd.version=v1.2.3"
// by release builds; otherwise the module version from the build info is used.
var version = ""

// versionOptions are what `kesoku version` was asked to do.
type versionOptions struct {
	IO   *IOStreams
	JSON bool
}

// newVersionCmd builds `kesoku version`; tests pass runF.
func newVersionCmd(g *Globals, runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{}
	c := &cobra.Command{
		Use:   "version",
		Short: "Print kesoku's version",
		Long: `version prints kesoku's version: the one a release was built with, or
the module version and VCS revision the Go toolchain stamped.

--json prints one JSON document instead:

  {"version": "v1.2.3", "go": "go1.26.0", "platform": "linux/amd64",
   "revision": "0123456789abcdef...", "time": "2026-11-30T12:00:00Z",
   "modified": false}

revision, time and modified describe the VCS checkout the binary was built
from, and are left out when the build did not record them.

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
	c.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document instead")
	return c
}

// buildVersion is what version --json prints.
type buildVersion struct {
	Version  string `json:"version"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified *bool  `json:"modified,omitempty"`
}

func runVersion(opts *versionOptions) error {
	if !opts.JSON {
		_, err := fmt.Fprintln(opts.IO.Out, "kesoku", versionString())
		return err
	}
	data, err := json.Marshal(readBuildVersion())
	if err != nil {
		return err
	}
	_, err = opts.IO.Out.Write(append(data, '\n'))
	return err
}

// readBuildVersion gathers the version and what the toolchain stamped.
func readBuildVersion() buildVersion {
	v := buildVersion{Version: version, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		if v.Version == "" {
			v.Version = "(devel)"
		}
		return v
	}
	if v.Version == "" {
		v.Version = info.Main.Version
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			m := s.Value == "true"
			v.Modified = &m
		}
	}
	return v
}

// versionString is the version on one line: the version and, for a build
// from a checkout, the revision's first 12 digits.
func versionString() string {
	v := readBuildVersion()
	if version == "" && len(v.Revision) >= 12 {
		return v.Version + " " + v.Revision[:12]
	}
	return v.Version
}

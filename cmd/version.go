package cmd

import (
	"encoding/json"
	"fmt"
	"path"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set with -ldflags "-X github.com/kesoku/kesoku/cmd.version=v1.2.3"
// by release builds; otherwise the module version from the build info is used.
var version = ""

// versionOptions are what `kesoku version` was asked to do.
type versionOptions struct {
	IO   *ioStreams
	JSON bool
}

// newVersionCmd builds `kesoku version`; tests pass runF.
func newVersionCmd(g *globals, runF func(*versionOptions) error) *cobra.Command {
	opts := &versionOptions{}
	c := &cobra.Command{
		Use:   "version",
		Short: "Print kesoku's version (also: kesoku --version)",
		Long: `version prints the program's name and version, as kesoku --version does:
the version a release build was stamped with (-ldflags -X
github.com/kesoku/kesoku/cmd.version=v1.2.3), or else the module version
the Go toolchain recorded (v1.2.3 for go install ...@v1.2.3), and, for a
build from a checkout, the first 12 digits of its VCS revision and
"(modified)" when the checkout had changes. A program of one's own built
over cmd.Main (see kesoku help go-tools) says its own name and version,
then kesoku's, as in "mytools v0.2.0 (kesoku v1.2.3)".

--json prints one JSON document instead:

  {"name": "kesoku", "version": "v1.2.3", "go": "go1.26.0",
   "platform": "linux/amd64", "revision": "0123456789abcdef...",
   "time": "2026-11-30T12:00:00Z", "modified": false}

revision, time and modified describe the VCS checkout the binary was built
from, and are left out when the build did not record them; kesoku, in a
program of one's own, is the version of the kesoku module it was built
with.

EXIT STATUS
  0  the version was printed
  2  bad usage (an argument, an unknown flag)`,
		Example: `  kesoku --version
  kesoku version --json | jq -r .revision`,
		Args: noArgs,
		// The version does not depend on any setting, and must print
		// whatever the directory holds.
		Annotations: map[string]string{noConfig: "yes", withClashes: "yes"},
		RunE: func(c *cobra.Command, _ []string) error {
			opts.IO = g.IO
			if runF != nil {
				return runF(opts)
			}
			return runVersion(opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, "print one JSON document instead of a line")
	return c
}

// buildVersion is what version --json prints.
type buildVersion struct {
	// Name is the program's: kesoku, or the name of a program of one's
	// own built over cmd.Main (examples/mytools).
	Name     string `json:"name"`
	Version  string `json:"version"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
	Revision string `json:"revision,omitempty"`
	Time     string `json:"time,omitempty"`
	Modified *bool  `json:"modified,omitempty"`
	// Kesoku is, in a program of one's own, the version of the kesoku
	// module it was built with ("v0.0.0 => ../.." when replaced).
	Kesoku string `json:"kesoku,omitempty"`
}

func runVersion(opts *versionOptions) error {
	v := readBuildVersion()
	if !opts.JSON {
		_, err := fmt.Fprintln(opts.IO.Out, versionLine(v))
		return err
	}
	enc := json.NewEncoder(opts.IO.Out)
	enc.SetEscapeHTML(false) // "v0.0.0 => ../..", not "=\u003e"
	return enc.Encode(v)
}

// kesokuModule is kesoku's module path.
const kesokuModule = "github.com/kesoku/kesoku"

// readBuildVersion gathers the version and what the toolchain stamped.
func readBuildVersion() buildVersion {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return describeBuild(info, version)
}

// describeBuild is what info, the binary's build info (nil when it has
// none), says of its version; stamped is the version -ldflags set, which
// wins over the module's.
func describeBuild(info *debug.BuildInfo, stamped string) buildVersion {
	v := buildVersion{Name: "kesoku", Version: stamped, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info == nil {
		if v.Version == "" {
			v.Version = "(devel)"
		}
		return v
	}
	if info.Main.Path != kesokuModule {
		// A program of one's own: its name is its main package's, and
		// kesoku is one of its modules.
		if name := path.Base(info.Path); info.Path != "" && name != "." && name != "/" {
			v.Name = name
		} else if info.Main.Path != "" {
			v.Name = path.Base(info.Main.Path)
		}
		for _, d := range info.Deps {
			if d.Path != kesokuModule {
				continue
			}
			v.Kesoku = d.Version
			if r := d.Replace; r != nil {
				v.Kesoku += " => " + r.Path
				if r.Version != "" && r.Version != "(devel)" {
					v.Kesoku += " " + r.Version
				}
			}
		}
	}
	if v.Version == "" {
		v.Version = info.Main.Version
	}
	if v.Version == "" {
		v.Version = "(devel)"
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

// versionLine is the version on one line: the program's name and
// version (versionString) and, in a program of one's own, kesoku's.
func versionLine(v buildVersion) string {
	line := v.Name + " " + v.revised()
	if v.Kesoku != "" {
		line += " (kesoku " + v.Kesoku + ")"
	}
	return line
}

// versionString is the program's version on one line, as an MCP client
// is told it.
func versionString() string { return readBuildVersion().revised() }

// revised is the version and, for a build from a checkout, the revision's
// first 12 digits and whether the checkout had changes.
func (v buildVersion) revised() string {
	s := v.Version
	if rev := v.Revision; len(rev) >= 12 && !strings.Contains(v.Version, rev[:12]) {
		s += " " + rev[:12]
	}
	if v.Modified != nil && *v.Modified && !strings.HasSuffix(v.Version, "+dirty") {
		s += " (modified)"
	}
	return s
}

package cmd

import (
	"context"
	"fmt"
	"time"

	"github.com/kesoku/kesoku/internal/toolsource"
	"github.com/kesoku/kesoku/registry"
)

// toolSet builds the registry a command uses: the Go tools of base
// (registry.Default, but in tests), the command tools and the MCP servers
// that the config files and --mcp-config declare (toolsource.Build). Every
// command that lists, checks or runs tools gets its registry here, so
// that all of them see the same tools; the caller closes the set, which
// stops whatever its tools started. calls, when the command has them,
// bound the programs the tools run.
func (g *Globals) toolSet(ctx context.Context, base *registry.Registry, calls *callFlags) (*toolsource.Set, error) {
	opts := toolsource.Options{
		Config:    g.config,
		MCPConfig: g.MCPConfig,
		AWD:       g.AWD,
		Grace:     defaultGrace,
		MaxOutput: defaultMaxOutput,
		Version:   readBuildVersion().Version,
		Warn: func(msg string) {
			if !g.Quiet {
				fmt.Fprintf(g.IO.Err, "kesoku: %s\n", msg)
			}
		},
	}
	if g.Verbose {
		opts.Note = func(msg string) { fmt.Fprintf(g.IO.Err, "kesoku: %s\n", msg) }
	}
	if calls != nil {
		opts.Grace, opts.MaxOutput = calls.Grace, int64(calls.MaxOutput)
		if opts.Grace == 0 {
			// --grace 0: no grace for calls; a program still gets a
			// moment to die of SIGTERM before SIGKILL.
			opts.Grace = 10 * time.Millisecond
		}
	}
	set, err := toolsource.Build(ctx, base, opts)
	if err != nil {
		return nil, configErr(err)
	}
	return set, nil
}

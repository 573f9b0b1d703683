package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/toolsource"

	"github.com/kesoku/kesoku/internal/toolset"
)

// toolChoice is --tools of the commands that offer tools to someone else:
// a model (session) or MCP clients (mcp serve). Both choose in the one
// way offeredTools has.
type toolChoice struct {
	Tools []string
	// named is whether --tools was given: "" names no tool, where no
	// flag means the default offering.
	named bool
	// notDefault are tools left out of the default offering (mcp serve's
	// analyze_media when no model is configured: every call would fail);
	// named, they are offered.
	notDefault []string
}

func (t *toolChoice) register(f *pflag.FlagSet) {
	f.StringSliceVar(&t.Tools, "tools", nil, "tools offered: A,B; +A,-B on the defaults; all")
}

// set notes whether --tools was given; RunE calls it.
func (t *toolChoice) set(c *cobra.Command) { t.named = c.Flags().Changed("tools") }

// offering is what a command offers, and the tool set it comes from.
type offering struct {
	// Set holds every tool and stops what they started: the environment
	// closes it.
	Set *toolsource.Set
	// Specs are the tools offered, in the order named (by name when
	// --tools was not given); Registry holds them and no others.
	Specs    []*toolset.Tool
	Registry *toolset.Set
}

// offeredTools chooses from the tool set of a command that offers tools
// what --tools asks (llm.Offer): without --tools, every tool that only
// reads — the Go tools that do not write, the command tools declared
// read_only, the MCP tools whose annotations say readOnlyHint, every
// server started to say which (one that cannot start is left out, and
// said so); with --tools NAME,..., the tools named; with +NAME and -NAME,
// the first set with those added and taken away. A list that mixes the
// two kinds, or an unknown name, is bad usage, said before any server
// starts for the first (the set starts its servers only when asked); a
// named MCP tool whose server could not start is not.
//
// withServers false is a set without the MCP servers (mcp serve): a name
// under one of them says so rather than that it is unknown.
func (g *globals) offeredTools(set *toolsource.Set, choice toolChoice, withServers bool) (*offering, error) {
	return offerTools(set, choice, withServers, g.notOffered)
}

// notOffered says, unless quiet, that the servers in err could not start
// and their tools are not offered.
func (g *globals) notOffered(err error) {
	if !g.Quiet {
		fmt.Fprintf(g.IO.Err, "kesoku: some tools are not offered:\n%s\n", termtext.Lines(err.Error()))
	}
}

// offerTools is offeredTools, which tells unstarted servers to notOffered
// (validate's document says them elsewhere, or not at all).
func offerTools(set *toolsource.Set, choice toolChoice, withServers bool, notOffered func(error)) (*offering, error) {
	want, err := llm.ParseChoice(choice.Tools, choice.named)
	if err != nil {
		return nil, usageErr(&toolsErr{errors.New(termtext.Lines(err.Error()))})
	}
	if want.Defaults() {
		for _, name := range choice.notDefault {
			_, known := set.Registry.Lookup(name)
			if known && !slices.Contains(want.Add, name) && !slices.Contains(want.Remove, name) {
				want.Remove = append(want.Remove, name)
			}
		}
	}
	if want.Defaults() && withServers {
		if err := set.Registry.Load(); err != nil {
			notOffered(err)
		}
	}
	specs, offered, err := llm.Offer(set.Registry, want)
	if err != nil {
		var unknown *toolset.UnknownToolError
		if !errors.As(err, &unknown) {
			// A server named by --tools that could not start.
			return nil, &toolsErr{err}
		}
		for _, srv := range set.Servers() {
			if !withServers && strings.HasPrefix(unknown.Name, srv+"__") {
				return nil, usageErr(&toolsErr{fmt.Errorf("%s is a tool of the MCP server %s: kesoku serves its own tools (Go and command tools), not those of the servers it uses", unknown.Name, srv)})
			}
		}
		return nil, usageErr(&toolsErr{err})
	}
	return &offering{Set: set, Specs: specs, Registry: offered}, nil
}

// toolsErr is a mistake in the tools asked for, said as one of --tools;
// validate says it of an eval case's tools: instead.
type toolsErr struct{ err error }

func (e *toolsErr) Error() string { return "--tools: " + e.err.Error() }
func (e *toolsErr) Unwrap() error { return e.err }

// unknownTool says that name, which an eval case's expect names, is no
// tool kesoku has: a check of it could go only one way whatever the model
// does (a typo in tools_not_called always passes). A tool that is not
// offered but exists is a check on purpose; an MCP tool's name
// (SERVER__TOOL) is taken as it is, as knowing it would start its server.
func unknownTool(set *toolsource.Set, offer *offering, name string) error {
	if strings.Contains(name, "__") {
		return nil
	}
	if _, ok := set.Registry.Lookup(name); ok {
		return nil
	}
	return &toolset.UnknownToolError{Name: name, Suggestion: english.Suggest(name, offer.Registry.Names())}
}

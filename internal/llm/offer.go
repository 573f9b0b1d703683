package llm

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kesoku/kesoku/internal/toolset"
)

// Choice is which tools are offered, as a list of names asks it (the
// --tools of session and mcp serve): the default offering (every tool that
// does not write), the tools named in place of it, or the default offering
// with tools added (+name) and taken away (-name). ParseChoice makes one.
type Choice struct {
	// Replace is whether the tools are Names alone, in place of the
	// default offering; All, every tool.
	Replace, All bool
	// Names are the tools offered when Replace.
	Names []string
	// Add and Remove change the default offering when not Replace.
	Add, Remove []string
}

// ChoiceError is a list of names that asks for no one offering: plain
// names (which replace the default tools) mixed with +name or -name
// (which change them), a + or - with no name, or one name both added and
// taken away.
type ChoiceError struct {
	// Plain and Relative are the first of each kind, when mixed.
	Plain, Relative string
	// Bare is a + or - alone.
	Bare string
	// Both is a name given as +name and as -name.
	Both string
}

func (e *ChoiceError) Error() string {
	switch {
	case e.Bare != "":
		return fmt.Sprintf("%q names no tool: write %sNAME", e.Bare, e.Bare)
	case e.Both != "":
		return fmt.Sprintf("%s is both added (+%[1]s) and taken away (-%[1]s)", e.Both)
	}
	return fmt.Sprintf("%q and %q mixed: plain names are the tools offered, in place of the default ones; +NAME adds a tool to the default tools and -NAME takes one away; give one kind or the other", e.Plain, e.Relative)
}

// ParseChoice reads a list of names as Offer takes it. Unless named,
// the choice is the default offering. Named, blank names are ignored
// (none at all offers no tool), the one name "all" offers every tool,
// other plain names are the tools offered, and names that all start with
// + or - change the default offering. Whether the names are tools is for
// Offer, which has the registry.
func ParseChoice(names []string, named bool) (Choice, error) {
	if !named {
		return Choice{}, nil
	}
	want := nonBlank(names)
	var c Choice
	var plain, relative string
	for _, n := range want {
		sign, name := n[:1], strings.TrimSpace(n[1:])
		if sign != "+" && sign != "-" {
			if plain == "" {
				plain = n
			}
			c.Names = append(c.Names, n)
			continue
		}
		if relative == "" {
			relative = n
		}
		if name == "" {
			return Choice{}, &ChoiceError{Bare: sign}
		}
		if sign == "+" {
			c.Add = append(c.Add, name)
		} else {
			c.Remove = append(c.Remove, name)
		}
	}
	if plain != "" && relative != "" {
		return Choice{}, &ChoiceError{Plain: plain, Relative: relative}
	}
	for _, n := range c.Add {
		if slices.Contains(c.Remove, n) {
			return Choice{}, &ChoiceError{Both: n}
		}
	}
	if relative == "" {
		c.Replace = true
		c.All = len(c.Names) == 1 && c.Names[0] == "all"
	}
	return c, nil
}

// Defaults reports whether the choice starts from the default offering,
// which needs to know of every tool whether it writes.
func (c Choice) Defaults() bool { return !c.Replace }

// Offer returns the tools a session offers the model, and a registry that
// holds them and no others. The session's runner runs calls from that
// registry alone: a model that names a tool it was not given (write_file,
// when only the tools that read were offered) gets an unknown_tool error
// listing the tools it has, never the tool's effect.
//
// The default offering is every tool of reg that does not write
// (Spec.Writes): tools that change files only when they are named. The
// tools are in the order of reg, those added after them in the order
// named; those named in place of the defaults, in the order named. A name
// that is no tool of reg is a *toolset.UnknownToolError, added, taken
// away or named alike.
func Offer(reg *toolset.Set, c Choice) ([]*toolset.Tool, *toolset.Set, error) {
	var specs []*toolset.Tool
	switch {
	case c.All:
		specs = reg.All()
	case c.Replace:
		var err error
		if specs, err = reg.Select(c.Names); err != nil {
			return nil, nil, err
		}
	default:
		for _, n := range c.Remove {
			if _, ok := reg.Lookup(n); !ok {
				return nil, nil, reg.UnknownTool(n)
			}
		}
		added, err := reg.Select(c.Add)
		if err != nil {
			return nil, nil, err
		}
		for _, s := range reg.All() {
			if !s.Writes && !slices.Contains(c.Remove, s.Name) {
				specs = append(specs, s)
			}
		}
		for _, s := range added {
			if !slices.Contains(specs, s) {
				specs = append(specs, s)
			}
		}
	}
	offered := toolset.New()
	for _, s := range specs {
		if err := offered.Register(s); err != nil {
			return nil, nil, fmt.Errorf("offered tools: %w", err)
		}
	}
	return specs, offered, nil
}

func nonBlank(names []string) []string {
	var out []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

package llm

import (
	"fmt"
	"strings"

	"github.com/kesoku/kesoku/registry"
)

// Offer returns the tools a session offers the model, and a registry that
// holds them and no others. The session's runner runs calls from that
// registry alone: a model that names a tool it was not given (write_file,
// when only the tools that read were offered) gets an unknown_tool error
// listing the tools it has, never the tool's effect.
//
// Unless named, every tool of reg that does not write (Spec.Writes) is
// offered: tools that change files only when they are named. Named, the
// tools are those of names (blank ones ignored, none for none), or every
// tool for the one name "all".
func Offer(reg *registry.Registry, names []string, named bool) ([]*registry.Spec, *registry.Registry, error) {
	var specs []*registry.Spec
	switch want := nonBlank(names); {
	case !named:
		for _, s := range reg.All() {
			if !s.Writes {
				specs = append(specs, s)
			}
		}
	case len(want) == 1 && want[0] == "all":
		specs = reg.All()
	default:
		var err error
		if specs, err = reg.Select(want); err != nil {
			return nil, nil, err
		}
	}
	offered := registry.New()
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

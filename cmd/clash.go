package cmd

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/registry"
)

// withClashes is the annotation of a command that runs even when two Go
// tools of the program have one name: gen, which is the way out once one
// is renamed, and the help and the version, which use no tool.
const withClashes = "kesoku_with_clashes"

// checkClashes refuses to start a command while two tools compiled into
// the program have one name: whichever init registered first holds it,
// and a run, a list or a server would use one tool where the user meant
// the other, the built-in one or their own. Generated code keeps such a
// clash aside (genimpl.Register) so that it can be said here, once.
func (g *globals) checkClashes(c *cobra.Command) error {
	switch {
	case c.Annotations[withClashes] != "",
		// A command of commands only prints its help.
		c.HasSubCommands(),
		// A request of the shell's completion uses no tool: a shell
		// that sources the script must not fail at every start, and
		// gen's way out completes too. Cobra adds __complete when the
		// program runs, past any annotation.
		c.Name() == cobra.ShellCompRequestCmd, c.Name() == cobra.ShellCompNoDescRequestCmd:
		return nil
	}
	tools := g.goTools
	if tools == nil {
		tools = registry.Default
	}
	clashes := toolspec.Clashes(tools)
	if len(clashes) == 0 {
		return nil
	}
	return usageErr(&clashErr{clashes: clashes, gen: genCommand([]string{"./..."})})
}

// clashErr is the tools whose names clash, and the command that
// regenerates the registrations once one is renamed.
type clashErr struct {
	clashes []toolspec.Clash[registry.ToolContext]
	gen     string
}

func (e *clashErr) Error() string {
	var b strings.Builder
	clashes := slices.Clone(e.clashes)
	slices.SortStableFunc(clashes, func(a, b toolspec.Clash[registry.ToolContext]) int {
		return strings.Compare(a.Kept.Name, b.Kept.Name)
	})
	// "Yours" is the user's tool when every clash is with one of kesoku's.
	yours := true
	for _, c := range clashes {
		// The user's tool first, kesoku's own second, whatever the order
		// of init that decided which one holds the name.
		one, other := c.Refused, c.Kept
		if kesokuOwn(one) && !kesokuOwn(other) {
			one, other = other, one
		}
		yours = yours && !kesokuOwn(one) && kesokuOwn(other)
		fmt.Fprintf(&b, "tool name %q is taken twice: by %s and by %s", c.Kept.Name, toolOf(one), toolOf(other))
		if kesokuOwn(other) {
			b.WriteString(", one of kesoku's own tools")
		}
		b.WriteString("\n")
	}
	rename := "rename one of them"
	if yours {
		rename = "rename yours"
	}
	// A tool added with registry.Add is renamed where it is added; a
	// generated one in its doc comment, and gen writes it again.
	fmt.Fprintf(&b, "%s (//kesoku:tool name=NEW_NAME in its doc comment, then run %s; or where registry.Add names it)", rename, e.gen)
	if !strings.HasPrefix(e.gen, "go run ") {
		b.WriteString(" and build the program again")
	}
	b.WriteString("; until then only gen, help and version run")
	return b.String()
}

// toolOf names where a tool comes from: its package and its file:line.
func toolOf(s *toolspec.Spec[registry.ToolContext]) string {
	return fmt.Sprintf("%s (%s)", cmp.Or(s.Package, "a package"), cmp.Or(s.Source, "unknown place"))
}

// kesokuOwn reports whether s is one of kesoku's built-in tools.
func kesokuOwn(s *toolspec.Spec[registry.ToolContext]) bool {
	return strings.HasPrefix(s.Package, kesokuModule+"/")
}

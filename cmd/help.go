package cmd

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/english"
)

// Help is kesoku's own layout of a command's help, as gh and restic lay
// theirs out: a short description, usage, examples, flags and the exit
// status, each command's on about a screen of 80 columns. What takes
// longer to say is a help topic (help_topics.go), shown by `kesoku help
// TOPIC` and made into a man page from the same text (man.go).

// helpWidth is the width help is written for, a terminal's classic 80
// columns; TestHelpFitsAScreen holds every help and topic to it.
const helpWidth = 80

// Annotations that help reads.
const (
	// topicAnnotation marks a help topic: a command with text and
	// nothing to run.
	topicAnnotation = "kesoku_help_topic"
	// seeAlsoAnnotation names, space-separated, the topics a command's
	// help points to.
	seeAlsoAnnotation = "kesoku_see_also"
)

// isTopic reports whether c is a help topic.
func isTopic(c *cobra.Command) bool { return c.Annotations[topicAnnotation] != "" }

// seeAlso points c's help to topics.
func seeAlso(c *cobra.Command, topics ...string) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[seeAlsoAnnotation] = strings.Join(topics, " ")
	return c
}

// seeAlsoTopics are the topics c's help points to.
func seeAlsoTopics(c *cobra.Command) []string {
	return strings.Fields(c.Annotations[seeAlsoAnnotation])
}

// exitStatusHeading begins the EXIT STATUS section of a command's Long.
const exitStatusHeading = "EXIT STATUS\n"

// splitExitStatus cuts a command's Long into its description and its
// EXIT STATUS section (without the heading), which help shows last.
func splitExitStatus(long string) (desc, status string) {
	if strings.HasPrefix(long, exitStatusHeading) {
		return "", strings.TrimPrefix(long, exitStatusHeading)
	}
	desc, status, _ = strings.Cut(long, "\n"+exitStatusHeading)
	return strings.TrimRight(desc, "\n"), strings.TrimRight(status, "\n")
}

// writeHelp writes c's help to w.
func writeHelp(w io.Writer, c *cobra.Command) error {
	// Cobra adds --help only to the command it runs: kesoku help run
	// shows run's help all the same.
	c.InitDefaultHelpFlag()
	var b strings.Builder
	section := func(title, body string) {
		if body = strings.TrimRight(body, "\n"); body == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		if title != "" {
			b.WriteString(title + "\n")
		}
		b.WriteString(body + "\n")
	}
	desc, status := splitExitStatus(longOr(c))
	section("", desc)
	if isTopic(c) {
		_, err := io.WriteString(w, b.String())
		return err
	}
	if c.HasParent() {
		section("Usage:", "  "+commandUsage(c))
	} else {
		// The index's usage is one line: its lines are the commands'.
		section("", "Usage: "+commandUsage(c))
	}
	section("Examples:", c.Example)
	commands := "Available Commands:"
	if !c.HasParent() {
		// The root's help is the index: each list says how to read more,
		// in its heading, rather than in a line of its own.
		commands = fmt.Sprintf("Available Commands (%s COMMAND --help):", c.Name())
	}
	section(commands, commandList(c, func(sub *cobra.Command) bool { return !isTopic(sub) }))
	if !c.HasParent() {
		section(fmt.Sprintf("Help Topics (%s help TOPIC):", c.Name()), commandList(c, isTopic))
	}
	local, grouped := localFlags(c)
	section("Flags:", flagUsages(local, helpWidth))
	// The groups, told elsewhere, are one block: a line each saved for
	// what only this command has.
	var groups []string
	for _, g := range flagGroups {
		if names := grouped[g.name]; len(names) > 0 {
			// The title and its flags on one line, as far as it goes.
			groups = append(groups, strings.TrimRight(wrapHanging(g.title+" "+strings.Join(names, ", "), helpWidth, "  "), "\n"))
		}
	}
	section("", strings.Join(groups, "\n"))
	section("Global Flags ("+c.Root().Name()+" --help):", globalFlags(c))
	section(strings.TrimSuffix(exitStatusHeading, "\n"), status)
	var more []string
	if topics := seeAlsoTopics(c); len(topics) > 0 {
		more = append(more, fmt.Sprintf("Help %s: %s (%s help TOPIC).", english.Plural(len(topics), "topic", "topics"), strings.Join(topics, ", "), c.Root().Name()))
	}
	switch {
	case !c.HasParent():
	case c.HasAvailableSubCommands():
		more = append(more, fmt.Sprintf("Run %q for more about a command.", c.CommandPath()+" COMMAND --help"))
	}
	section("", wrapText(strings.Join(more, " "), helpWidth))
	_, err := io.WriteString(w, b.String())
	return err
}

// commandUsage is how c is called: a command that groups others is called
// with one of them.
func commandUsage(c *cobra.Command) string {
	if c.HasAvailableSubCommands() {
		line := c.CommandPath() + " COMMAND"
		if c.HasAvailableFlags() {
			line += " [flags]"
		}
		return line
	}
	return c.UseLine()
}

// commandList lists the subcommands of c that keep says, with their
// summaries, in columns.
func commandList(c *cobra.Command, keep func(*cobra.Command) bool) string {
	var subs []*cobra.Command
	width := 0
	for _, sub := range c.Commands() {
		if sub.Hidden || !keep(sub) || !(sub.IsAvailableCommand() || isTopic(sub)) {
			continue
		}
		subs = append(subs, sub)
		width = max(width, len(sub.Name()))
	}
	var b strings.Builder
	for _, sub := range subs {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, sub.Name(), sub.Short)
	}
	return b.String()
}

// flagGroupAnnotation puts a flag in a group of flags that several
// commands share and a topic explains: their help names them, the topic
// shows them.
const flagGroupAnnotation = "kesoku_flag_group"

// flagGroups are the groups of flags, in the order help names them.
var flagGroups = []struct{ name, title string }{
	{"model", "Model Flags (kesoku help providers):"},
	{"budget", "Budget Flags (kesoku help budgets):"},
	{"cassette", "Cassette Flags (kesoku help cassettes):"},
	{"permissions", "Permission Flags (kesoku help permissions):"},
}

// inGroup puts the flags named in group.
func inGroup(fs *pflag.FlagSet, group string, names ...string) {
	for _, n := range names {
		if err := fs.SetAnnotation(n, flagGroupAnnotation, []string{group}); err != nil {
			panic(err) // a flag that is not there is kesoku's own mistake
		}
	}
}

// localFlags are c's own flags that its help shows whole, and, by group,
// the names of those a topic explains. --help is among the global flags.
func localFlags(c *cobra.Command) (*pflag.FlagSet, map[string][]string) {
	shown := pflag.NewFlagSet(c.Name(), pflag.ContinueOnError)
	grouped := map[string][]string{}
	c.LocalFlags().VisitAll(func(f *pflag.Flag) {
		switch group := f.Annotations[flagGroupAnnotation]; {
		case f.Hidden:
		case f.Name == "help":
			// Every help says how to get another.
		case f.Name == "version" && !c.HasParent():
			// The version command's help names it.
		case len(group) > 0:
			grouped[group[0]] = append(grouped[group[0]], "--"+f.Name)
		default:
			shown.AddFlag(f)
		}
	})
	return shown, grouped
}

// maxFlagColumn is where a flag's usage begins at the most: a flag whose
// name and type are longer has them on a line of their own, its usage
// below in the column, rather than pushing every other flag's usage right
// and onto more lines.
const maxFlagColumn = 28

// flagUsages lays out the flags of fs in two columns within width, each
// line as pflag writes it (the name, the type, the usage, the default).
func flagUsages(fs *pflag.FlagSet, width int) string {
	type row struct{ left, usage string }
	var rows []row
	col := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		one := pflag.NewFlagSet("", pflag.ContinueOnError)
		one.AddFlag(f)
		line := strings.TrimRight(one.FlagUsagesWrapped(0), "\n")
		// "      --name type   usage (default x)": pflag puts three
		// spaces between the columns of a set of one flag.
		i := 6 + strings.Index(line[6:], "   ")
		r := row{left: line[:i], usage: strings.TrimSpace(line[i:])}
		rows = append(rows, r)
		if len(r.left)+3 <= maxFlagColumn {
			col = max(col, len(r.left)+3)
		}
	})
	if col == 0 {
		// Every flag's name is too long for the column: each has a line
		// of its own, its usage below in the widest column.
		col = maxFlagColumn
	}
	var b strings.Builder
	for _, r := range rows {
		line := r.left + strings.Repeat(" ", max(col-len(r.left), 0))
		if len(r.left) > col-2 {
			b.WriteString(r.left + "\n")
			line = strings.Repeat(" ", col)
		}
		started := false // a word is on the line
		for _, word := range strings.Fields(r.usage) {
			if started && len(line)+1+len(word) > width {
				b.WriteString(line + "\n")
				line, started = strings.Repeat(" ", col), false
			}
			if started {
				line += " "
			}
			line, started = line+word, true
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// globalFlags names the flags c inherits, which the root's help
// describes: one line, not a screen of them under every command.
func globalFlags(c *cobra.Command) string {
	names := []string{"-h"}
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if f.Shorthand != "" {
			names = append(names, "-"+f.Shorthand)
		} else {
			names = append(names, "--"+f.Name)
		}
	})
	if len(names) == 1 {
		return ""
	}
	return wrapText(strings.Join(names, ", "), helpWidth, "  ")
}

// wrapText fills s into lines of at most width columns, each after
// prefix (the first of prefixes, "" without).
func wrapText(s string, width int, prefixes ...string) string {
	prefix := ""
	if len(prefixes) > 0 {
		prefix = prefixes[0]
	}
	var b strings.Builder
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(prefix)+len(line)+1+len(word) > width {
			b.WriteString(prefix + line + "\n")
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		b.WriteString(prefix + line + "\n")
	}
	return b.String()
}

// wrapHanging is wrapText with every line but the first indented by
// prefix.
func wrapHanging(s string, width int, prefix string) string {
	first, rest, _ := strings.Cut(wrapText(s, width), "\n")
	if rest == "" {
		return first + "\n"
	}
	return first + "\n" + wrapText(rest, width, prefix)
}

// newHelpCmd builds `kesoku help [COMMAND | TOPIC]`, in place of Cobra's,
// which shows the root's help with exit status 0 for a topic it does
// not know and completes no topics.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND | TOPIC]",
		Short: "Show the help of a command, or a help topic",
		Long: `help shows the help of a command (kesoku help run, kesoku help mcp serve),
as --help does, or a help topic: the longer explanations that the
commands' help leaves out. kesoku help alone lists the commands and the
topics; kesoku gen-man DIR writes them all as man pages.

EXIT STATUS
  0  the help was printed
  2  no command or topic of that name`,
		Example: `  kesoku help config
  kesoku help run`,
		Annotations:       map[string]string{noConfig: "yes", withClashes: "yes"},
		ValidArgsFunction: completeHelp,
		RunE: func(c *cobra.Command, args []string) error {
			target, rest, err := c.Root().Find(args)
			if err != nil {
				return usageErr(err)
			}
			if len(rest) > 0 {
				if !target.HasParent() {
					return unknownTopic(target, rest[0])
				}
				return unknownCommand(target, rest[0])
			}
			return target.Help()
		},
	}
}

// unknownTopic is the error for `kesoku help NAME` of no command or topic.
func unknownTopic(root *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown help topic %q", name)
	if s := suggestCommand(root, name); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return usageErrf("%s; %s help lists the commands and topics", msg, root.Name())
}

// completeHelp completes `kesoku help`'s arguments: the commands and, at
// the top, the topics.
func completeHelp(c *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	target, rest, err := c.Root().Find(args)
	if err != nil || len(rest) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, sub := range target.Commands() {
		if sub.Hidden || !(sub.IsAvailableCommand() || isTopic(sub)) || !strings.HasPrefix(sub.Name(), toComplete) {
			continue
		}
		out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// newTopicCmd is a help topic as a command of its own kind: text, no
// flags, nothing to run. Cobra lists such a command as an "additional
// help topic" and runs none; `kesoku help NAME` (and `kesoku NAME`) show
// it.
func newTopicCmd(t helpTopic) *cobra.Command {
	c := &cobra.Command{
		Use:         t.name,
		Aliases:     topicAliases[t.name],
		Short:       t.short,
		Annotations: map[string]string{topicAnnotation: "yes", noConfig: "yes", withClashes: "yes"},
		// A topic takes no flags but --help; unknown words after it are
		// no error (cobra shows the topic), as for any help.
		DisableFlagsInUseLine: true,
	}
	c.SetHelpFunc(func(c *cobra.Command, _ []string) {
		if c.Long == "" {
			c.Long = t.text(c.Root())
		}
		_ = writeHelp(c.OutOrStdout(), c)
	})
	return c
}

// topicNames are the names of the topics under root, sorted.
func topicNames(root *cobra.Command) []string {
	var names []string
	for _, c := range root.Commands() {
		if isTopic(c) {
			names = append(names, c.Name())
		}
	}
	slices.Sort(names)
	return names
}

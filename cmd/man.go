package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"
	"golang.org/x/mod/module"

	"github.com/kesoku/kesoku/internal/termtext"
)

// genManOptions are what `kesoku gen-man` was asked to do.
type genManOptions struct {
	g   *globals
	Dir string
}

// newGenManCmd builds `kesoku gen-man DIR`: the man pages of every
// command and topic, from the text their help shows.
func newGenManCmd(g *globals) *cobra.Command {
	opts := &genManOptions{g: g}
	return &cobra.Command{
		Use:   "gen-man DIR",
		Short: "Write the man pages of the commands and topics under DIR",
		Long: `gen-man writes the man pages of every command (DIR/man1/kesoku.1,
kesoku-run.1, ...) and of every help topic (DIR/man7/kesoku-config.7, ...)
from the same text as their help. DIR is a directory of man pages, such
as ~/.local/share/man, which man reads: man kesoku-run, man 7 kesoku-config.
man reads a directory of its own only when it is on MANPATH (export
MANPATH="DIR:$(manpath)"); gen-man says so when it is not. SOURCE_DATE_EPOCH,
when set, is the date the pages carry.

EXIT STATUS
  0  the pages were written
  1  a page could not be written
  2  bad usage`,
		Example: `  kesoku gen-man ~/.local/share/man && man kesoku-run`,
		Args:    argSpec{what: "DIR", min: 1, max: 1, hint: "the directory of man pages to write to"}.args,
		// The pages say what kesoku does, whatever the directory holds.
		// It writes the help, which uses no tool.
		Annotations: map[string]string{noConfig: "yes", withClashes: "yes"},
		RunE: func(_ *cobra.Command, args []string) error {
			opts.Dir = args[0]
			return runGenMan(opts)
		},
	}
}

func runGenMan(o *genManOptions) error {
	n, err := writeManPages(newRootCmd(&globals{IO: o.g.IO}), o.Dir)
	if err != nil {
		return err
	}
	if !o.g.Quiet {
		fmt.Fprintf(o.g.IO.Err, "kesoku: wrote %d man pages under %s\n", n, termtext.Escape(o.Dir))
		if !onManPath(o.Dir, os.Getenv("MANPATH")) {
			abs, _ := filepath.Abs(o.Dir)
			fmt.Fprintf(o.g.IO.Err, "kesoku: man reads them once the directory is on MANPATH, unless it is one man searches already (~/.local/share/man on most systems):\n  export MANPATH=\"%s:$(manpath)\"\n", termtext.Escape(abs))
		}
	}
	return nil
}

// onManPath reports whether dir is one of the directories of manpath, a
// MANPATH value.
func onManPath(dir, manpath string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for _, p := range filepath.SplitList(manpath) {
		if p != "" && filepath.Clean(p) == abs {
			return true
		}
	}
	return false
}

// writeManPages writes the man pages of root, a command tree of its own
// that it rewrites for roff, under dir, and returns how many it wrote:
// the commands' in man1 (cobra/doc), the topics' in man7.
func writeManPages(root *cobra.Command, dir string) (int, error) {
	date, err := manDate()
	if err != nil {
		return 0, err
	}
	source := manSource(readBuildVersion())
	header := &doc.GenManHeader{Date: &date, Source: source, Manual: "kesoku Manual"}
	fillTopics(root)
	topics := topicNames(root)
	n := 0
	var prepare func(c *cobra.Command)
	prepare = func(c *cobra.Command) {
		c.DisableAutoGenTag = true
		desc, status := splitExitStatus(longOr(c))
		long := manMarkdown(desc)
		if t := seeAlsoTopics(c); len(t) > 0 {
			// Markdown of its own, after the help's text is escaped: the
			// references are bold.
			long += "\nSee also " + manRefs(t) + ".\n"
		}
		if status != "" {
			long += "\n" + manMarkdown(exitStatusHeading+status)
		}
		if !c.HasParent() {
			long += "\n\n# HELP TOPICS\n" + manRefs(topics) + "\n"
		}
		c.Long = long
		c.Flags().VisitAll(func(f *pflag.Flag) { f.Usage = manEscape(f.Usage, "`") })
		c.PersistentFlags().VisitAll(func(f *pflag.Flag) { f.Usage = manEscape(f.Usage, "`") })
		for _, sub := range c.Commands() {
			if sub.IsAvailableCommand() && !isTopic(sub) {
				n++
				prepare(sub)
			}
		}
	}
	n++
	prepare(root)
	man1 := filepath.Join(dir, "man1")
	if err := os.MkdirAll(man1, 0o755); err != nil {
		return 0, err
	}
	if err := doc.GenManTree(root, header, man1); err != nil {
		return 0, fmt.Errorf("write the man pages: %w", err)
	}
	man7 := filepath.Join(dir, "man7")
	if err := os.MkdirAll(man7, 0o755); err != nil {
		return 0, err
	}
	for _, c := range root.Commands() {
		if !isTopic(c) {
			continue
		}
		page := topicManPage(root.Name(), c, date, source)
		if err := os.WriteFile(filepath.Join(man7, root.Name()+"-"+c.Name()+".7"), page, 0o644); err != nil {
			return 0, fmt.Errorf("write the man pages: %w", err)
		}
		n++
	}
	return n, nil
}

// maxManVersion is the longest version a page's footer shows: the
// footer puts the source on the left and the date in the middle of an 80
// columns line, and a longer one runs into the date.
const maxManVersion = 24

// manSource is the program and its version, as a page's footer shows
// them: a pseudo-version (a build from a checkout) is its revision's
// first 12 digits, and the kesoku a program of one's own is built with
// is left to its version command.
func manSource(v buildVersion) string {
	ver := v.Version
	dirty := strings.HasSuffix(ver, "+dirty")
	if base := strings.TrimSuffix(ver, "+dirty"); module.IsPseudoVersion(base) {
		if rev, err := module.PseudoVersionRev(base); err == nil {
			ver = "devel " + rev
			if dirty {
				ver += "+dirty"
			}
		}
	}
	if r := []rune(ver); len(r) > maxManVersion {
		ver = string(r[:maxManVersion-1]) + "…"
	}
	return strings.TrimSpace(v.Name + " " + ver)
}

// manDate is the date the pages carry: SOURCE_DATE_EPOCH's when it is
// set, so that a package build writes the same pages every time.
func manDate() (time.Time, error) {
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		return time.Now(), nil
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return time.Time{}, usageErrf("SOURCE_DATE_EPOCH %q: want seconds since 1970", epoch)
	}
	return time.Unix(sec, 0).UTC(), nil
}

// topicManPage is topic's page of section 7, in cobra/doc's layout.
func topicManPage(prog string, topic *cobra.Command, date time.Time, source string) []byte {
	name := prog + "-" + topic.Name()
	var b strings.Builder
	fmt.Fprintf(&b, "%% %q %q %q %q %q\n", strings.ToUpper(name), "7", date.Format("Jan 2006"), source, "kesoku Manual")
	fmt.Fprintf(&b, "# NAME\n%s \\- %s\n\n", name, manEscape(topic.Short, ""))
	fmt.Fprintf(&b, "# SYNOPSIS\n**%s help %s**\n\n", prog, topic.Name())
	fmt.Fprintf(&b, "# DESCRIPTION\n%s\n\n", manMarkdown(topic.Long))
	fmt.Fprintf(&b, "# SEE ALSO\n**%s(1)**\n", prog)
	return md2man.Render([]byte(b.String()))
}

// manRefs is the topics as references to their pages.
func manRefs(topics []string) string {
	refs := make([]string, len(topics))
	for i, t := range topics {
		refs[i] = "**kesoku-" + t + "(7)**"
	}
	return strings.Join(refs, ", ")
}

// headingLine is a line of help text that heads a section: capitals and
// spaces (EXIT STATUS, WHICH FILES).
var headingLine = regexp.MustCompile(`^[A-Z][A-Z0-9 /'-]*[A-Z0-9]$`)

// manMarkdown turns help text into the Markdown cobra/doc and md2man
// read: prose is escaped (a flag's -- and a <server>__<tool> are no
// Markdown), indented lines stay as they are, a line in capitals heads a
// section (EXIT STATUS one of the page's own).
func manMarkdown(text string) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	inCode := false
	setCode := func(on bool) {
		if on != inCode {
			b.WriteString("```\n")
			inCode = on
		}
	}
	for i, l := range lines {
		indented := strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")
		switch {
		case l == "":
			// A blank line inside an indented block keeps the block.
			if inCode && i+1 < len(lines) && (strings.HasPrefix(lines[i+1], " ") || strings.HasPrefix(lines[i+1], "\t")) {
				b.WriteString("\n")
				continue
			}
			setCode(false)
			b.WriteString("\n")
		case indented:
			setCode(true)
			b.WriteString(l + "\n")
		case headingLine.MatchString(l):
			setCode(false)
			level := "## "
			if l == strings.TrimSuffix(exitStatusHeading, "\n") {
				level = "# "
			}
			b.WriteString("\n" + level + l + "\n")
		default:
			setCode(false)
			b.WriteString(manEscape(l, "") + "\n")
		}
	}
	setCode(false)
	return b.String()
}

// manEscapes are the characters Markdown could take for its own.
const manEscapes = "\\`*_[]<>#|~"

// manEscape escapes the Markdown in a line of prose, but for the
// characters of keep.
func manEscape(s, keep string) string {
	var b strings.Builder
	for i, r := range s {
		if strings.ContainsRune(manEscapes, r) && !strings.ContainsRune(keep, r) ||
			i == 0 && strings.ContainsRune("+-=", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/secret"
)

// The sizes help is held to: every command's help fits a screen of 50
// lines; the root's, the index of every command and topic, 55; a topic
// two screens.
const (
	maxRootHelpLines    = 55
	maxCommandHelpLines = 50
	maxTopicLines       = 100
)

// testRoot is the command tree over streams of the test's.
func testRoot(t *testing.T) *cobra.Command {
	t.Helper()
	root := newRootCmd(&globals{IO: &ioStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &bytes.Buffer{}}})
	fillTopics(root)
	return root
}

// allCommands is every command of root that help shows: the hidden ones
// too (gen-man), but not Cobra's own completion requests.
func allCommands(root *cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		out = append(out, c)
		for _, sub := range c.Commands() {
			if !strings.HasPrefix(sub.Name(), "__") {
				walk(sub)
			}
		}
	}
	walk(root)
	return out
}

// helpOf is c's help as --help prints it.
func helpOf(t *testing.T, c *cobra.Command) string {
	t.Helper()
	c.InitDefaultHelpFlag()
	var b bytes.Buffer
	if err := writeHelp(&b, c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestHelpFitsAScreen holds every command's help and every topic to its
// number of lines and to 80 columns.
func TestHelpFitsAScreen(t *testing.T) {
	t.Parallel()
	root := testRoot(t)
	for _, c := range allCommands(root) {
		limit := maxCommandHelpLines
		switch {
		case c == root:
			limit = maxRootHelpLines
		case isTopic(c):
			limit = maxTopicLines
		}
		help := helpOf(t, c)
		lines := strings.Split(strings.TrimSuffix(help, "\n"), "\n")
		if len(lines) > limit {
			t.Errorf("%s: the help is %d lines, more than %d:\n%s", c.CommandPath(), len(lines), limit, help)
		}
		for i, l := range lines {
			if w := columns(l); w > helpWidth {
				t.Errorf("%s: line %d is %d columns wide, more than %d:\n%s", c.CommandPath(), i+1, w, helpWidth, l)
			}
		}
		if !isTopic(c) && c.Short != "" && len(c.Short)+len(c.Name())+4 > helpWidth {
			t.Errorf("%s: the summary %q does not fit the list of commands", c.CommandPath(), c.Short)
		}
	}
}

// columns is how wide l shows on a terminal, tabs at every 8 columns.
func columns(l string) int {
	w := 0
	for _, r := range l {
		if r == '\t' {
			w += 8 - w%8
			continue
		}
		w++
	}
	return w
}

// TestHelpProseIsFilled: no line of a help's prose stops mid-sentence
// while the next line's first word would have fitted on it.
func TestHelpProseIsFilled(t *testing.T) {
	t.Parallel()
	root := testRoot(t)
	for _, c := range allCommands(root) {
		if c.Parent() != nil && c.Parent().Name() == "completion" {
			continue // Cobra's own text
		}
		for _, l := range raggedBreaks(longOr(c)) {
			t.Errorf("%s: a line breaks mid-sentence before its end:\n%s", c.CommandPath(), l)
		}
	}
}

// raggedWidth is the column within which the next line's first word
// would have fitted: a line that leaves it out stopped early.
const raggedWidth = 68

// labelled is a line of a list whose text begins after a label: an exit
// code, a field, a provider ("  1    at least one ...").
var labelled = regexp.MustCompile(`^( +\S+ {2,})\S`)

// raggedBreaks returns the lines of text that break a sentence early: a
// line of prose (unindented, or the text of a labelled list and its
// continuations) that does not end a sentence, whose next line goes on
// in the same column with a word that would have fitted on it.
func raggedBreaks(text string) []string {
	var bad []string
	col := -1 // the column the prose of the previous line is at; -1: none
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		indent := len(l) - len(strings.TrimLeft(l, " "))
		cur := -1
		switch {
		case strings.TrimSpace(l) == "" || strings.HasPrefix(l, "\t") || headingLine.MatchString(l):
		case indent == 0:
			cur = 0
		case col > 0 && indent == col:
			cur = col
		default:
			if m := labelled.FindStringSubmatch(l); m != nil {
				cur = len(m[1])
			}
		}
		if cur >= 0 && i+1 < len(lines) {
			next := lines[i+1]
			nextIndent := len(next) - len(strings.TrimLeft(next, " "))
			words := strings.Fields(next)
			ends := strings.ContainsAny(l[len(l)-1:], ".:;!?")
			if len(words) > 0 && nextIndent == cur && !headingLine.MatchString(next) && !ends &&
				len(l)+1+len(words[0]) <= raggedWidth {
				bad = append(bad, l+"\n"+next)
			}
		}
		col = cur
	}
	return bad
}

// TestRaggedBreaks: the check finds the breaks the help had.
func TestRaggedBreaks(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		text string
		bad  int
	}{
		// The session help broke so ("Rate" alone before "limits").
		{"http://localhost:11434/v1; OPENAI_BASE_URL is read when --base-url is not\ngiven), and no key is needed. Rate\nlimits (429), server errors (5xx), dropped connections and a request or", 1},
		// And mcp serve's EXIT STATUS.
		{"  2    bad usage: an unknown tool in --tools, a mistake in a command\n       tool's declaration, --mcp-config, an\n       address that is not loopback", 1},
		{"a line that ends a sentence.\nThen another", 0},
		{"  session_id: demo\n  requests:\n    - id: call_1", 0},
		{"WHICH FILES\nThe user's config", 0},
		{"a line that is long enough to hold no more of the next line's words at\nall", 0},
	} {
		if got := raggedBreaks(tt.text); len(got) != tt.bad {
			t.Errorf("raggedBreaks(%q) = %q, want %d", tt.text, got, tt.bad)
		}
	}
}

// TestHelpTopics: kesoku help lists the topics, shows one, and refuses a
// name it does not know, suggesting the nearest; every topic a command
// points to is there.
func TestHelpTopics(t *testing.T) {
	t.Parallel()
	root := testRoot(t)
	names := topicNames(root)
	for _, want := range []string{"config", "records", "safety", "environment", "exit-codes", "providers", "requests", "resume", "shards", "mcp-server"} {
		if !slices.Contains(names, want) {
			t.Errorf("no help topic %q; topics: %v", want, names)
		}
	}
	code, stdout, stderr := runArgs("help")
	if code != ExitOK || stderr != "" {
		t.Errorf("kesoku help: exit %d, stderr %q", code, stderr)
	}
	for _, args := range [][]string{{"--help"}, {}} {
		if _, other, _ := runArgs(args...); other != stdout {
			t.Errorf("kesoku %s prints another help than kesoku help:\n%s", strings.Join(args, " "), other)
		}
	}
	if _, run, _ := runArgs("help", "run"); !strings.Contains(run, "-h, --awd") {
		t.Errorf("kesoku help run does not name --help among the global flags:\n%s", run)
	}
	for _, name := range names {
		// kesoku help NAME finds a command before a topic of its name.
		if _, help, _ := runArgs("help", name); !strings.HasPrefix(help, longOr(findTopic(t, root, name))[:20]) {
			t.Errorf("kesoku help %s does not show the topic %s (a command of that name?):\n%s", name, name, help)
		}
	}
	for _, c := range root.Commands() {
		if isTopic(c) && !regexp.MustCompile(`(?m)^  `+regexp.QuoteMeta(c.Name())+` +`+regexp.QuoteMeta(c.Short)+`$`).MatchString(stdout) {
			t.Errorf("kesoku help does not list the topic %s:\n%s", c.Name(), stdout)
		}
	}
	for _, c := range allCommands(root) {
		for _, topic := range seeAlsoTopics(c) {
			if !slices.Contains(names, topic) {
				t.Errorf("%s points to the topic %q, which is not there", c.CommandPath(), topic)
			}
		}
		if isTopic(c) && (c.Runnable() || c.HasAvailableFlags() || c.HasSubCommands()) {
			t.Errorf("the topic %s runs something, has flags or subcommands", c.Name())
		}
	}

	// Every "kesoku help NAME" a help names is there.
	mention := regexp.MustCompile(`kesoku help ([a-z][a-z-]*)`)
	for _, c := range allCommands(root) {
		for _, m := range mention.FindAllStringSubmatch(helpOf(t, c), -1) {
			if sub, _, err := root.Find([]string{m[1]}); err != nil || sub == root {
				t.Errorf("%s names kesoku help %s, which is neither a topic nor a command", c.CommandPath(), m[1])
			}
		}
	}

	// The README names every topic.
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "## Help, topics and man pages")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, name := range names {
		if !strings.Contains(section, "`"+name+"`") {
			t.Errorf("README.md's help section does not name the topic %s", name)
		}
	}

	code, stdout, _ = runArgs("help", "config")
	if code != ExitOK || !strings.HasPrefix(stdout, "A config file is a YAML mapping") || strings.Contains(stdout, "Usage:") {
		t.Errorf("kesoku help config: exit %d:\n%s", code, stdout)
	}
	if code, stdout2, _ := runArgs("config", "--help"); code != ExitOK || stdout2 != stdout {
		t.Errorf("kesoku config --help: exit %d, not the topic:\n%s", code, stdout2)
	}
	// The README's hooks are a part of the topic permissions, which
	// kesoku help hooks shows.
	if code, hooks, _ := runArgs("help", "hooks"); code != ExitOK || !strings.HasPrefix(hooks, "Which calls a model may make") || !strings.Contains(hooks, "\nHOOKS\n") {
		t.Errorf("kesoku help hooks: exit %d:\n%s", code, hooks)
	}
	if code, stdout, _ := runArgs("help", "mcp", "serve"); code != ExitOK || !strings.HasPrefix(stdout, "serve offers kesoku's tools") {
		t.Errorf("kesoku help mcp serve: exit %d:\n%s", code, stdout)
	}
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"help", "confg"}, `^kesoku: unknown help topic "confg" \(did you mean "config"\?\); kesoku help lists the commands and topics\n$`},
		{[]string{"help", "tools", "lst"}, `^kesoku: unknown command "lst" for "kesoku tools" \(did you mean "list"\?\)\n$`},
		{[]string{"help", "nothing-like-it"}, `^kesoku: unknown help topic "nothing-like-it"; `},
	} {
		if code, stdout, stderr := runArgs(tt.args...); code != ExitUsage || stdout != "" || !regexp.MustCompile(tt.stderr).MatchString(stderr) {
			t.Errorf("kesoku %s: exit %d, stdout %q, stderr %q; want exit 2 and %s", strings.Join(tt.args, " "), code, stdout, stderr, tt.stderr)
		}
	}
}

// TestHelpCompletesTopics: the shell completes kesoku help's topics.
func TestHelpCompletesTopics(t *testing.T) {
	t.Parallel()
	code, stdout, _ := runArgs("__complete", "help", "")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"config\t", "environment\t", "run\t", "mcp\t"} {
		if !strings.Contains(stdout, "\n"+want) && !strings.HasPrefix(stdout, want) {
			t.Errorf("help completes no %q:\n%s", strings.TrimSpace(want), stdout)
		}
	}
	_, stdout, _ = runArgs("__complete", "help", "ex")
	if !strings.HasPrefix(stdout, "exit-codes\t") {
		t.Errorf("help ex<TAB> does not complete exit-codes:\n%s", stdout)
	}
}

// TestFlagsCompleteToolNames: the shell completes the flags that name
// tools, on every command that has them: --tools as a list (all, A,B, or
// +A,-B), a rule's tool.
func TestFlagsCompleteToolNames(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"session", "--tools", "calc"}, []string{"calculate_sum"}},
		{[]string{"eval", "x.yaml", "--tools", "al"}, []string{"all"}},
		{[]string{"mcp", "serve", "--tools", "glob,re"}, []string{"glob,read_file"}},
		{[]string{"session", "--tools", "+glob,-wr"}, []string{"+glob,-write_file"}},
		{[]string{"session", "--tools", "+glob,wr"}, []string{"+glob,+write_file", "+glob,-write_file"}},
		{[]string{"run", "r.yaml", "--deny", "write_"}, []string{"write_file"}},
		{[]string{"eval", "x.yaml", "--ask", "read_f"}, []string{"read_file"}},
		{[]string{"session", "--allow", "cur"}, []string{"current_time"}},
	} {
		code, stdout, _ := runArgs(append([]string{"__complete"}, tt.args...)...)
		var got []string
		for _, l := range strings.Split(stdout, "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				got = append(got, l)
			}
		}
		if code != ExitOK || !slices.Equal(got, tt.want) {
			t.Errorf("kesoku %s<TAB>: exit %d, %q; want %q", strings.Join(tt.args, " "), code, got, tt.want)
		}
	}
}

// TestManPages: gen-man writes a page for every command and topic, from
// the text their help shows, with the sections man readers look for.
func TestManPages(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := run(context.Background(), &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}}, []string{"gen-man", dir})
	if code != ExitOK {
		t.Fatalf("gen-man: exit %d: %s", code, errOut.String())
	}
	root := testRoot(t)
	want := 0
	for _, c := range allCommands(root) {
		if c.Hidden || c.Name() == "help" || !c.IsAvailableCommand() && !isTopic(c) && c != root {
			continue
		}
		want++
		page := filepath.Join(dir, "man1", strings.ReplaceAll(c.CommandPath(), " ", "-")+".1")
		if isTopic(c) {
			page = filepath.Join(dir, "man7", "kesoku-"+c.Name()+".7")
		}
		data, err := os.ReadFile(page)
		if err != nil {
			t.Errorf("%s: %v", c.CommandPath(), err)
			continue
		}
		text := string(data)
		for _, section := range []string{".TH ", ".SH NAME", ".SH DESCRIPTION"} {
			if !strings.Contains(text, section) {
				t.Errorf("%s has no %s", page, section)
			}
		}
		if !isTopic(c) && c != root && !strings.Contains(text, `.SH EXIT STATUS`) {
			t.Errorf("%s has no EXIT STATUS section", page)
		}
	}
	if !strings.Contains(errOut.String(), "kesoku: wrote ") {
		t.Errorf("gen-man says nothing of what it wrote: %q", errOut.String())
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "man1")); len(entries)+countDir(t, filepath.Join(dir, "man7")) != want {
		t.Errorf("gen-man wrote %d pages in man1 and %d in man7, want %d in all", len(entries), countDir(t, filepath.Join(dir, "man7")), want)
	}
	// What Markdown would take for its own comes through as written.
	config, err := os.ReadFile(filepath.Join(dir, "man7", "kesoku-config.7"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<server>__<tool>", "${VAR:-default}", "command: [python3, scripts/wc.py"} {
		if !strings.Contains(string(config), want) {
			t.Errorf("kesoku-config.7 lost %q:\n%s", want, config)
		}
	}
	// The topics a command's help names are references, in bold, not
	// Markdown shown as it is.
	runPage, err := os.ReadFile(filepath.Join(dir, "man1", "kesoku-run.1"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(runPage), `\fBkesoku-records(7)\fP`) || strings.Contains(string(runPage), "**") {
		t.Errorf("kesoku-run.1: the topics are not references in bold:\n%s", runPage)
	}
	if !strings.Contains(errOut.String(), "MANPATH") {
		t.Errorf("gen-man says nothing of MANPATH for a directory not on it: %q", errOut.String())
	}
	if code := run(context.Background(), &globals{IO: &ioStreams{In: strings.NewReader(""), Out: &out, Err: &errOut}}, []string{"gen-man"}); code != ExitUsage {
		t.Errorf("gen-man without DIR: exit %d, want 2", code)
	}
}

func countDir(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// TestEnvironmentTopicNamesWhatProgramsGet: kesoku help environment names
// every variable a program kesoku starts gets of kesoku's environment, as
// the code gives them (on Windows too).
func TestEnvironmentTopicNamesWhatProgramsGet(t *testing.T) {
	t.Parallel()
	words := strings.FieldsFunc(environmentTopic, func(r rune) bool {
		return !(r == '_' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	})
	for _, name := range append(secret.BaseNamesOf("windows"), "LC_") {
		if !slices.Contains(words, strings.TrimSuffix(name, "_")) && !strings.Contains(environmentTopic, name) {
			t.Errorf("kesoku help environment does not name %s, which every program gets", name)
		}
	}
}

// TestRecordsTopicNamesTheSchema: kesoku help records names every field of
// the records' schema and every value its enums allow (roles, types,
// statuses, error kinds), so that a record kind added later is told too.
func TestRecordsTopicNamesTheSchema(t *testing.T) {
	t.Parallel()
	var schema struct {
		Properties map[string]json.RawMessage
	}
	doc := records.Schema("test")
	if err := json.Unmarshal(doc, &schema); err != nil {
		t.Fatal(err)
	}
	words := strings.FieldsFunc(recordsTopic, func(r rune) bool {
		return !(r == '_' || 'a' <= r && r <= 'z')
	})
	for name := range schema.Properties {
		if !slices.Contains(words, name) {
			t.Errorf("kesoku help records does not name the field %s", name)
		}
	}
	for _, m := range regexp.MustCompile(`"enum":\s*\[([^\]]*)\]`).FindAllSubmatch(doc, -1) {
		var values []string
		if err := json.Unmarshal([]byte("["+string(m[1])+"]"), &values); err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			if !slices.Contains(words, v) {
				t.Errorf("kesoku help records does not name %q, a value of the schema's enum %s", v, m[1])
			}
		}
	}
}

// TestFlagGroupsShownByTheirTopics: a command's help names the flags of a
// group and sends the reader to a topic. That topic names each of them,
// and shows the flags that have bounds as their help would (the type, the
// default, the bounds), or those bounds are told nowhere.
func TestFlagGroupsShownByTheirTopics(t *testing.T) {
	t.Parallel()
	root := testRoot(t)
	topicOf := map[string]string{}
	for _, g := range flagGroups {
		m := regexp.MustCompile(`kesoku help (\S+)\)`).FindStringSubmatch(g.title)
		if m == nil {
			t.Fatalf("flag group %s: its title %q names no topic", g.name, g.title)
		}
		topicOf[g.name] = m[1]
	}
	for _, c := range allCommands(root) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			group := f.Annotations[flagGroupAnnotation]
			if len(group) == 0 || f.Hidden {
				return
			}
			name := topicOf[group[0]]
			topic, _, err := root.Find([]string{name})
			if err != nil || !isTopic(topic) {
				t.Errorf("%s --%s: no topic %q", c.CommandPath(), f.Name, name)
				return
			}
			flag := regexp.QuoteMeta("--"+f.Name) + `\b`
			if !regexp.MustCompile(flag).MatchString(topic.Long) {
				t.Errorf("%s --%s: kesoku help %s, where its help sends the reader, does not name the flag", c.CommandPath(), f.Name, name)
			}
			_, bounded := f.Value.(interface{ bounds() string })
			if bounded && !regexp.MustCompile(`(?m)^ +(-\w, )?`+flag).MatchString(topic.Long) {
				t.Errorf("%s --%s: kesoku help %s, where its help sends the reader, does not show the flag's bounds", c.CommandPath(), f.Name, name)
			}
		})
	}
}

// TestFlagUsagesAligned: every flag's usage begins in the one column, a
// flag too long for it included (its name and type on a line of their
// own, as mcp serve's --session-timeout).
func TestFlagUsagesAligned(t *testing.T) {
	t.Parallel()
	fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
	fs.Duration("grace", 0, "MARKA calls' grace")
	fs.Duration("session-timeout", 0, "MARKB how long an older HTTP client's session lasts without a request, and more words to wrap")
	fs.String("http", "", "MARKC serve at `ADDR`")
	text := flagUsages(fs, helpWidth)
	col := -1
	for _, word := range []string{"MARKA", "MARKB", "MARKC"} {
		for _, l := range strings.Split(text, "\n") {
			if i := strings.Index(l, word); i >= 0 {
				if col < 0 {
					col = i
				}
				if i != col {
					t.Errorf("%s's usage begins at column %d, not %d:\n%s", word, i, col, text)
				}
			}
		}
	}
	// Flags whose names are all too long for the column (the budget
	// flags, which a topic shows alone) still have their usage indented.
	long := pflag.NewFlagSet("y", pflag.ContinueOnError)
	long.Duration("session-timeout", 0, "how long an older HTTP client's session lasts without a request")
	long.Int("max-budget-tokens", 0, "send no model request once this many tokens are used")
	for _, text := range []string{text, flagUsages(long, helpWidth)} {
		for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if strings.TrimSpace(l) != "" && !strings.HasPrefix(l, "  ") {
				t.Errorf("line %q", l)
			}
			if len(l) > helpWidth {
				t.Errorf("line of %d columns: %q", len(l), l)
			}
		}
	}
}

// TestManSource: a page's footer holds the program and a version short
// enough not to run into the date in the middle of the line.
func TestManSource(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		v    buildVersion
		want string
	}{
		{buildVersion{Name: "kesoku", Version: "v1.2.3"}, "kesoku v1.2.3"},
		{buildVersion{Name: "kesoku", Version: "(devel)"}, "kesoku (devel)"},
		{buildVersion{Name: "kesoku", Version: "v0.0.0-20261207031234-e4b0c70a1b2c+dirty", Kesoku: "v1.0.0"}, "kesoku devel e4b0c70a1b2c+dirty"},
		{buildVersion{Name: "mytools", Version: "v1.4.0-rc.1.0.20261207031234-e4b0c70a1b2c"}, "mytools devel e4b0c70a1b2c"},
		{buildVersion{Name: "kesoku", Version: "v1.2.3-a-very-long-prerelease-name"}, "kesoku v1.2.3-a-very-long-prer…"},
	} {
		got := manSource(tt.v)
		if got != tt.want {
			t.Errorf("manSource(%+v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestOnManPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		manpath string
		want    bool
	}{
		{"", false},
		{"/usr/share/man", false},
		{"/usr/share/man:" + dir, true},
		{dir + "/:/usr/share/man", true},
	} {
		if got := onManPath(dir, tt.manpath); got != tt.want {
			t.Errorf("onManPath(%q) = %v, want %v", tt.manpath, got, tt.want)
		}
	}
}

// findTopic is the topic of root named name.
func findTopic(t *testing.T, root *cobra.Command, name string) *cobra.Command {
	t.Helper()
	for _, c := range root.Commands() {
		if isTopic(c) && c.Name() == name {
			return c
		}
	}
	t.Fatalf("no topic %s", name)
	return nil
}

package cmd

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/schema"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/toolset"
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/registry"
)

// newToolsCmd builds `kesoku tools` and its subcommands.
func newToolsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "tools",
		Short: "List the tools and print their declarations for a provider",
		Long: `tools shows the tools kesoku knows: the built-in ones, every function
registered by kesoku gen, the command tools of the config files (tools:),
and the tools of the MCP servers they declare (mcpServers:, or a file
named with --mcp-config), named <server>__<tool>. "tools list" names
them; "tools schema" prints their declarations exactly as a provider's
API takes them. Listing every tool starts every MCP server.

EXIT STATUS
  0  the help was printed
  2  an unknown subcommand`,
		Example: `  kesoku tools list
  kesoku tools list --json | jq -r '.[].name'
  kesoku tools schema calculate_sum --format gemini`,
		// Without Args, an unknown subcommand would print the help and
		// succeed; it is bad usage.
		Args: subcommandArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(newToolsListCmd(g, nil), newToolsSchemaCmd(g, nil))
	return seeAlso(c, "config", "go-tools")
}

// toolsListOptions are what `kesoku tools list` was asked to do.
type toolsListOptions struct {
	IO *ioStreams
	// Registry holds the Go tools; registry.Default but in tests. Tools
	// is the set listed: they and the declared ones.
	Registry *registry.Registry
	Tools    *toolset.Set
	JSON     bool
	// Width is the terminal's width, 0 when the output is no terminal.
	Width int
	// Starting, when set, are the MCP servers to be started to list
	// their tools, told on standard error before the wait.
	Starting []string
	// Rules are the rules of permissions in force (the config's, the
	// flags'): with any, each tool's decision is shown.
	Rules policy.Rules
	// Hooked, when set, is the events whose hooks run for a tool's calls
	// (PreToolUse, PostToolUse): a tool that PreToolUse hooks decide too
	// says so with its decision.
	Hooked func(tool string) []string
}

func newToolsListCmd(g *globals, runF func(*toolsListOptions) error) *cobra.Command {
	opts := &toolsListOptions{Registry: registry.Default}
	var timeout time.Duration
	var perms permissionFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List every registered tool: name, summary, parameters",
		Long: `list prints every registered tool, sorted by name: its name, the first
sentence of its description, and its parameters as name:type, optional
ones in brackets ([mode:string]). On a terminal, long summaries are
shortened to fit its width.

With --json it prints a JSON array instead, one object per tool with its
name, summary, description, whether it writes files (sessions offer such
tools only when named), and its parameters (name, type, required,
description, enum, default).

Under rules (permissions: in a config file, or --allow, --ask, --deny
here) a DECISION column (in JSON: decision) says what they decide of each
tool's calls: allow, ask or deny, and what some calls get by their
arguments ("allow; some calls deny"). Under hooks it says which tools'
calls PreToolUse hooks decide too ("allow; PreToolUse hooks"; in JSON,
hooks lists the events of a tool's hooks).

An MCP server that cannot start is named on standard error with what
happened; the other tools are listed.

EXIT STATUS
  0  the tools were listed
  1  an MCP server could not start: its tools are missing
  2  bad usage (an argument, an unknown flag, a mistake in a declaration)`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.IO = g.IO
			if g.IO.OutTTY {
				opts.Width = terminalWidth(g.IO.Out)
			}
			pol, err := perms.options(nil)
			if err != nil {
				return err
			}
			_, env, err := g.env(c.Context(), app.Options{Tools: opts.Registry, Calls: listing(timeout), Policy: pol})
			if err != nil {
				return err
			}
			defer env.Close()
			opts.Tools, opts.Rules, opts.Hooked = env.Tools.Registry, env.Rules(), env.Hooked
			if !g.Quiet && (g.IO.ErrTTY || g.Verbose) {
				opts.Starting = env.Tools.Servers()
			}
			if runF != nil {
				return runF(opts)
			}
			return runToolsList(opts)
		},
	}
	c.Flags().BoolVar(&opts.JSON, "json", false, "print a JSON array instead of a table")
	listTimeoutVar(c.Flags(), &timeout)
	perms.register(c.Flags(), false)
	return seeAlso(c, "permissions")
}

func runToolsList(opts *toolsListOptions) error {
	// The tools of the MCP servers that start are listed; those of a
	// server that cannot are missing, and the exit status says so.
	tellStarting(opts.IO.Err, opts.Starting)
	loadErr := sourcesErr(opts.Tools.Load())
	specs := opts.Tools.All()
	if opts.JSON {
		if err := writeToolsJSON(opts.IO.Out, specs, opts.decisions(specs)); err != nil {
			return err
		}
		return loadErr
	}
	if err := writeToolsTable(opts.IO.Out, opts.Width, specs, opts.decisions(specs)); err != nil {
		return err
	}
	return loadErr
}

// writeToolsTable writes the table of the tools specs to out, for a
// terminal width columns wide (0: not a terminal), with each tool's
// decision when decisions are not nil.
func writeToolsTable(out io.Writer, width int, specs []*toolset.Tool, decisions []decision) error {
	// A plain table, on a terminal and in a pipe alike: columns that
	// scripts can cut, and nothing to strip. On a terminal, summaries are
	// shortened so that rows fit its width where they can; parameters are
	// never shortened, they are what a call needs.
	rows := make([][3]string, len(specs))
	nameW, paramsW := len("NAME"), len("PARAMETERS")
	for i, s := range specs {
		// Names and summaries may come from a config file or a server.
		rows[i] = [3]string{termtext.Escape(s.Name), termtext.Escape(oneLine(s.Summary)), termtext.Escape(paramsText(s.Params))}
		nameW, paramsW = max(nameW, columnsOf(rows[i][0])), max(paramsW, columnsOf(rows[i][2]))
	}
	// Under rules or hooks, each tool's decision goes with its name.
	if decisions != nil {
		decW := len("DECISION")
		for _, d := range decisions {
			decW = max(decW, len(d.text))
		}
		nameW += decW + tableGap
	}
	params := make([][]string, len(rows))
	for i, r := range rows {
		params[i] = []string{r[2]}
	}
	if width > 0 {
		least := minSummary
		if fit := width - nameW - minSummary - 2*tableGap; paramsW > fit && paramsW > minParams {
			least = minWrappedSummary
			// Parameters too long for the terminal go on below, in their
			// own column, rather than wrap across the others.
			paramsW = len("PARAMETERS")
			for i, r := range rows {
				params[i] = wrapWords(r[2], max(fit, minParams))
				for _, l := range params[i] {
					paramsW = max(paramsW, columnsOf(l))
				}
			}
		}
		room := max(width-nameW-paramsW-2*tableGap, least)
		for i := range rows {
			rows[i][1] = shorten(rows[i][1], room)
		}
	}
	w := tabwriter.NewWriter(out, 0, 0, tableGap, ' ', 0)
	decided := decisions != nil
	if decided {
		fmt.Fprintln(w, "NAME\tDECISION\tSUMMARY\tPARAMETERS")
	} else {
		fmt.Fprintln(w, "NAME\tSUMMARY\tPARAMETERS")
	}
	for i, r := range rows {
		name, pad := r[0], ""
		if decided {
			name, pad = r[0]+"\t"+decisions[i].text, "\t"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", name, r[1], params[i][0])
		for _, more := range params[i][1:] {
			fmt.Fprintf(w, "%s\t\t%s\n", pad, more)
		}
	}
	return w.Flush()
}

// sourcesErr is what went wrong in starting the tools' sources (MCP
// servers), for a command that goes on without their tools.
func sourcesErr(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("some tools could not be listed:\n%w", err)
}

const (
	// tableGap is the space between columns.
	tableGap = 2
	// minSummary is as short as a summary gets on a narrow terminal.
	minSummary = 30
	// minParams is as narrow as the parameters column gets, and
	// minWrappedSummary as short as a summary gets beside it.
	minParams         = 20
	minWrappedSummary = 12
)

// tellStarting says which MCP servers are started, and why the wait: a
// server run by npx or uvx may first download its package.
func tellStarting(w io.Writer, servers []string) {
	if len(servers) == 0 || w == nil {
		return
	}
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = termtext.Escape(s)
	}
	fmt.Fprintf(w, "kesoku: starting %s %s to list %s tools (one run by npx or uvx may first download its package)…\n",
		english.Plural(len(servers), "the MCP server", "the MCP servers"), strings.Join(names, ", "), english.Plural(len(servers), "its", "their"))
}

// startNotes say, on a terminal or with -v, each MCP server as a run or a
// session starts it, and why the wait, as tools list does: a command that
// needs a server's tools may wait on it for long with nothing else to
// show. Nil says nothing.
type startNotes struct {
	mu sync.Mutex
	w  io.Writer
}

// startNotes are the notes of a command that starts servers as it needs
// them: none with -q, nor in a log without -v.
func (g *globals) startNotes() *startNotes {
	if g.Quiet || !(g.IO.ErrTTY || g.Verbose) {
		return nil
	}
	return &startNotes{w: g.IO.Err}
}

// tell says that server starts.
func (n *startNotes) tell(server string) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	tellStarting(n.w, []string{server})
}

// to sends the notes to w from now on: around the progress bar, once it
// is drawn.
func (n *startNotes) to(w io.Writer) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.w = w
}

// columnsOf is how many columns s takes: one a character.
func columnsOf(s string) int { return utf8.RuneCountInString(s) }

// wrapWords breaks s at its spaces into lines of at most width columns
// (a word longer than width is a line of its own).
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case columnsOf(line)+1+columnsOf(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// shorten cuts s to at most n characters, marking the cut with "…".
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// terminalWidth is the width of the terminal out writes to, 0 when it is
// not a terminal or the width cannot be told.
func terminalWidth(out io.Writer) int {
	f, ok := out.(*os.File)
	if !ok {
		return 0
	}
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return w
}

// paramsText is the parameters column: `a:integer b:integer [mode:string]`,
// or "-" for none.
func paramsText(params []*toolspec.Property) string {
	if len(params) == 0 {
		return "-"
	}
	parts := make([]string, len(params))
	for i, p := range params {
		parts[i] = p.Name + ":" + typeText(p.Schema)
		if !p.Required {
			parts[i] = "[" + parts[i] + "]"
		}
	}
	return strings.Join(parts, " ")
}

// typeText names a schema's type briefly: string, integer, string[],
// map[string]integer, object.
func typeText(s *toolspec.Schema) string {
	switch {
	case s == nil:
		return "any"
	case s.Type == toolspec.TypeArray && s.Items != nil:
		return typeText(s.Items) + "[]"
	case s.Type == toolspec.TypeObject && s.AdditionalProperties != nil:
		return "map[string]" + typeText(s.AdditionalProperties)
	}
	return string(s.Type)
}

// oneLine keeps a table row on one line whatever a summary holds.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// toolJSON is one tool in `kesoku tools list --json`.
type toolJSON struct {
	Name        string      `json:"name"`
	Summary     string      `json:"summary"`
	Description string      `json:"description"`
	Writes      bool        `json:"writes"`
	Parameters  []paramJSON `json:"parameters"`
	// Decision is what the rules in force decide of its calls; absent
	// under none. Hooks are the events whose hooks run for its calls.
	Decision string   `json:"decision,omitempty"`
	Hooks    []string `json:"hooks,omitempty"`
}

// decision is what the rules and hooks in force make of a tool's calls.
type decision struct {
	text  string
	hooks []string
}

// decisions are those of specs, one a tool; nil when no rule is in force
// and no hook decides a call.
func (opts *toolsListOptions) decisions(specs []*toolset.Tool) []decision {
	out := make([]decision, len(specs))
	decided := len(opts.Rules) > 0
	for i, s := range specs {
		out[i].text = opts.Rules.ForTool(s.Name).String()
		if opts.Hooked != nil {
			out[i].hooks = opts.Hooked(s.Name)
		}
		if slices.Contains(out[i].hooks, config.PreToolUse) {
			out[i].text += "; PreToolUse hooks"
		}
		decided = decided || len(out[i].hooks) > 0
	}
	if !decided {
		return nil
	}
	return out
}

type paramJSON struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Required    bool            `json:"required"`
	Description string          `json:"description,omitempty"`
	Enum        []string        `json:"enum,omitempty"`
	Default     json.RawMessage `json:"default,omitempty"`
}

func writeToolsJSON(w io.Writer, specs []*toolset.Tool, decisions []decision) error {
	out := make([]toolJSON, len(specs))
	for i, s := range specs {
		t := toolJSON{Name: s.Name, Summary: s.Summary, Description: s.Description, Writes: s.Writes, Parameters: []paramJSON{}}
		if decisions != nil {
			t.Decision, t.Hooks = decisions[i].text, decisions[i].hooks
		}
		for _, p := range s.Params {
			pj := paramJSON{Name: p.Name, Type: typeText(p.Schema), Required: p.Required}
			if p.Schema != nil {
				pj.Description, pj.Enum = p.Schema.Description, p.Schema.Enum
				if json.Valid(p.Schema.Default) {
					pj.Default = p.Schema.Default
				}
			}
			t.Parameters = append(t.Parameters, pj)
		}
		out[i] = t
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// defaultSchemaFormat is the provider-neutral format: plain JSON Schema,
// which any client can read, when no provider is named.
const defaultSchemaFormat = schema.FormatJSONSchema

// toolsSchemaOptions are what `kesoku tools schema` was asked to do.
type toolsSchemaOptions struct {
	IO *ioStreams
	// Registry and Tools are as for tools list.
	Registry *registry.Registry
	Tools    *toolset.Set
	Format   string
	Names    []string
	// Starting is as for tools list: the servers started to list every
	// tool, told before the wait.
	Starting []string
}

func newToolsSchemaCmd(g *globals, runF func(*toolsSchemaOptions) error) *cobra.Command {
	opts := &toolsSchemaOptions{Registry: registry.Default}
	var timeout time.Duration
	c := &cobra.Command{
		Use:   "schema [NAME...] [--format FORMAT]",
		Short: "Print the tools' declarations exactly as a provider's API takes them",
		Long: fmt.Sprintf(`schema prints the declarations of the tools named (default: every tool,
sorted by name) as indented JSON, exactly as the provider's API takes them:

  gemini      the "tools" field of a generateContent request:
              [{"functionDeclarations": [...]}], from the Gemini SDK's types;
              each schema in "parameters" when Gemini's OpenAPI subset can
              say it exactly, otherwise in "parametersJsonSchema" (a
              command tool's or MCP server's schema always, its $refs
              inlined: Gemini refuses them)
  claude      the "tools" field of a Messages request:
              [{"name", "description", "input_schema"}], from the
              Anthropic SDK's types
  openai      the "tools" field of a Chat Completions request:
              [{"type": "function", "function": {...}}], as the OpenAI
              SDK sends it
  mcp         the "tools" of an MCP tools/list result:
              [{"name", "description", "inputSchema"}]
  jsonschema  one JSON Schema (draft 2020-12) per tool, titled with its name

The default format is %s, which names no provider. Every format is a
JSON array, in the order the tools are named.

EXIT STATUS
  0  the declarations were printed
  1  an MCP server whose tools were asked for could not start; nothing was
     printed
  2  an unknown format or tool name; nothing was printed`, defaultSchemaFormat),
		Example: `  kesoku tools schema --format claude
  kesoku tools schema calculate_sum read_file --format gemini
  kesoku tools schema --format openai | jq '.[0].function.parameters'`,
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return toolset.Of(opts.Registry).Names(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			opts.IO, opts.Names = g.IO, args
			_, env, err := g.env(c.Context(), app.Options{Tools: opts.Registry, Calls: listing(timeout)})
			if err != nil {
				return err
			}
			defer env.Close()
			opts.Tools = env.Tools.Registry
			if !g.Quiet && (g.IO.ErrTTY || g.Verbose) {
				opts.Starting = env.Tools.Servers()
			}
			if runF != nil {
				return runF(opts)
			}
			return runToolsSchema(opts)
		},
	}
	c.Flags().StringVarP(&opts.Format, "format", "f", defaultSchemaFormat, "one of "+strings.Join(schema.Formats, ", "))
	listTimeoutVar(c.Flags(), &timeout)
	_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(schema.Formats, cobra.ShellCompDirectiveNoFileComp))
	// format: in a config file is the request files' format.
	_ = c.Flags().SetAnnotation("format", config.CommandLineOnly, []string{"true"})
	return c
}

func runToolsSchema(opts *toolsSchemaOptions) error {
	if !slices.Contains(schema.Formats, opts.Format) {
		return usageErr(&schema.UnknownFormatError{Format: opts.Format, Suggestion: english.Suggest(opts.Format, schema.Formats)})
	}
	var specs []*toolset.Tool
	if len(opts.Names) == 0 {
		tellStarting(opts.IO.Err, opts.Starting)
		if err := sourcesErr(opts.Tools.Load()); err != nil {
			return err
		}
		specs = opts.Tools.All()
	} else {
		var err error
		// A name given twice is declared once: providers refuse
		// duplicate declarations.
		if specs, err = opts.Tools.Select(uniq(opts.Names)); err != nil {
			var ute *toolset.UnknownToolError
			if errors.As(err, &ute) {
				return usageErr(err)
			}
			return err
		}
	}
	out, err := schema.JSON(opts.Format, specs)
	if err != nil {
		return err
	}
	_, err = opts.IO.Out.Write(out)
	return err
}

// uniq drops repeated names, keeping the first of each.
func uniq(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// listTimeoutVar adds --timeout to a command that lists tools: how long an
// MCP server may take to start and list its tools.
func listTimeoutVar(fs *pflag.FlagSet, p *time.Duration) {
	durationVar(fs, p, "timeout", 0, 0, maxTimeout, "the longest an MCP server may take to start and list its tools, e.g. 10s; 0 for its own timeout or 60s")
}

// listing is the call flags of a command that lists tools and calls none:
// only --timeout, which bounds the servers' starts.
func listing(timeout time.Duration) *app.Calls {
	return &app.Calls{Timeout: timeout, Grace: defaultGrace, MaxOutput: defaultMaxOutput}
}

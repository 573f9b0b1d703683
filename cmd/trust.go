package cmd

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/toolsource"
	"github.com/kesoku/kesoku/registry"
)

// trustOptions are what `kesoku trust` was asked to do.
type trustOptions struct {
	g      *globals
	File   string
	Revoke bool
	// Registry holds the Go tools that the file's command tools must not
	// be named like.
	Registry *registry.Registry
	// keys are the flag names a config file may set.
	keys []string
}

// newTrustCmd builds `kesoku trust`; tests pass runF.
func newTrustCmd(g *globals, runF func(*trustOptions) error) *cobra.Command {
	opts := &trustOptions{g: g, Registry: registry.Default}
	c := &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Approve a project's kesoku.yaml, so that kesoku loads it",
		Long: `trust approves a config file found in a working directory (default: the
AWD's kesoku.yaml), as direnv allow does. A kesoku.yaml that comes with a
directory (a cloned repository, a file a tool wrote) is not consent: one
that starts programs (tools, mcpServers, mcp-config, hooks) or sets where
records, reports, model requests and keys go, what models cost or which
calls run is loaded only once approved, and otherwise refused (exit 2).
kesoku help approval lists every such key.

trust checks the file as every command would load it, shows what it lets
kesoku do (the commands it runs, the servers it reaches; never a header's
value or a secret), and records its SHA-256 with its path under the
user's config directory, with the files it names (mcp-config). A change to
any of them, or the file at another path, needs approval again; a program
it runs by its path (scripts/hello.sh) is not covered. --revoke forgets an
approval. A file named with --config or --mcp-config needs none.

EXIT STATUS
  0  the file was approved (or, with --revoke, is no longer)
  2  bad usage, or a file that cannot be read or is not a valid config
     file; nothing was approved`,
		Example: `  git clone https://example.com/project && cd project
  cat kesoku.yaml          # read it first
  kesoku trust             # then approve it
  kesoku trust --revoke    # and forget it again`,
		Args: argSpec{what: "FILE", max: 1}.args,
		// trust reads the file it approves itself: loading it first would
		// refuse it for want of the very approval asked for.
		Annotations: map[string]string{noConfig: "yes"},
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			opts.keys = flagNames(c.Root())
			if runF != nil {
				return runF(opts)
			}
			return runTrust(opts)
		},
	}
	c.Flags().BoolVar(&opts.Revoke, "revoke", false, "forget the file's approval instead")
	return seeAlso(c, "approval", "config")
}

func runTrust(o *trustOptions) error {
	g := o.g
	abs, err := o.path()
	if err != nil {
		return err
	}
	userDir := config.UserDir()
	approvals := config.ApprovalsOf(userDir)
	if o.Revoke {
		return o.revoke(approvals, abs)
	}
	f, declared, err := o.load(abs, userDir)
	if err != nil {
		return err
	}
	if err := approvals.Approve(f); err != nil {
		return usageErr(err)
	}
	if !g.Quiet {
		showApproved(g.IO.Err, f, declared)
		// A command reads approvals from here alone: one started with
		// another HOME or XDG_CONFIG_HOME does not see this one.
		fmt.Fprintf(g.IO.Err, "kesoku: the approval is kept in %s\n", termtext.Escape(approvals.Dir))
	}
	return nil
}

// path is the file to approve: the one named, --config's, or the AWD's
// kesoku.yaml; as given, made absolute, no link resolved: a file is
// approved where it is found.
func (o *trustOptions) path() (string, error) {
	path := o.File
	switch {
	case path != "":
	case o.g.Config != "":
		path = o.g.Config
	default:
		path = filepath.Join(o.g.AWD, config.FileName)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", usageErrf("%s: %w", path, err)
	}
	return abs, nil
}

// revoke takes back the approval of the file at abs, and says so.
func (o *trustOptions) revoke(approvals config.Approvals, abs string) error {
	had, err := approvals.Revoke(abs)
	if err != nil {
		return err
	}
	if !o.g.Quiet {
		if had {
			fmt.Fprintf(o.g.IO.Err, "kesoku: %s is no longer approved\n", termtext.Escape(abs))
		} else {
			fmt.Fprintf(o.g.IO.Err, "kesoku: %s was not approved\n", termtext.Escape(abs))
		}
	}
	return nil
}

// load loads the file at abs with the same checks as loading it for
// every command (a file that could not be loaded is not worth approving),
// and checks what it declares as kesoku trust shows it.
func (o *trustOptions) load(abs, userDir string) (*config.File, []toolsource.Declared, error) {
	cfg, err := config.Load(config.Options{AWD: filepath.Dir(abs), Named: abs, Approving: true, UserDir: userDir, Keys: o.keys})
	if mistakes, ok := errors.AsType[*config.MistakesError](err); ok {
		// The values of the keys that are right are checked too.
		_, valueErr := checkSettings(mistakes.Config)
		err = config.JoinByPlace(err, valueErr)
	}
	if err != nil {
		return nil, nil, usageErr(configWords(err))
	}
	mcpConfig, err := checkSettings(cfg)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	declared, err := toolsource.Check(o.Registry, toolsource.Options{Config: cfg, MCPConfig: mcpConfig, AWD: filepath.Dir(abs)})
	if err != nil {
		return nil, nil, usageErr(configWords(err))
	}
	return cfg.Project(), declared, nil
}

// showApproved says what approving f lets kesoku do: the commands it will
// run and the servers it will reach (of f, and of the files it names),
// and what its settings decide, in words. Every value is escaped: the
// file is a stranger's until now.
func showApproved(w io.Writer, f *config.File, declared []toolsource.Declared) {
	esc := termtext.Escape
	fmt.Fprintf(w, "kesoku: approved %s (sha256 %s)", esc(f.Path), f.Sum[:12])
	for _, n := range f.Named {
		fmt.Fprintf(w, " and %s (sha256 %s), which its %s names", esc(n.Path), n.Sum[:12], n.Setting.Key)
	}
	ours := map[string]bool{f.Path: true}
	for _, n := range f.Named {
		ours[n.Path] = true
	}
	var lines []string
	for _, e := range f.Effects() {
		lines = append(lines, fmt.Sprintf("  %s  (%s, %s)", esc(e.Text), e.Setting.Key, esc(e.Setting.KeyPos.String())))
	}
	var byPath []string
	for _, d := range declared {
		if !ours[d.Pos.File] {
			continue // the user's own config's
		}
		lines = append(lines, "  "+declaredLine(d)+"  ("+esc(d.Pos.String())+")")
		if d.ByPath {
			byPath = append(byPath, shellQuote(d.Argv[:1]))
		}
	}
	for _, h := range f.Hooks {
		lines = append(lines, "  "+hookLine(h)+"  ("+esc(h.Pos.String())+")")
	}
	if len(lines) == 0 {
		fmt.Fprintln(w, "; it sets nothing that needs approval yet")
		return
	}
	if len(f.Named) > 0 {
		fmt.Fprintln(w, "; they let kesoku:")
	} else {
		fmt.Fprintln(w, ", which lets kesoku:")
	}
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	if len(byPath) > 0 {
		fmt.Fprintf(w, "A program run by its path (%s) is not part of the approval: a change to it needs none.\n", strings.Join(byPath, ", "))
	}
	if len(f.Hooks) > 0 {
		fmt.Fprintln(w, "What a hook's command runs (a script it names) is not part of the approval: a change to it needs none.")
	}
	if len(f.Named) > 0 {
		fmt.Fprintln(w, "kesoku loads it until it, or a file it names, changes.")
	} else {
		fmt.Fprintln(w, "kesoku loads it until it changes.")
	}
}

// declaredLine says what a declaration lets kesoku start or reach.
func declaredLine(d toolsource.Declared) string {
	esc := termtext.Escape
	envText := ""
	if len(d.Env) > 0 {
		envText = fmt.Sprintf(", setting %s in its environment", esc(strings.Join(d.Env, ", ")))
	}
	if d.Tool != "" {
		return fmt.Sprintf("run the command tool %s: %s", esc(d.Tool), shellQuote(d.Argv)) + envText
	}
	if d.URL != "" {
		s := fmt.Sprintf("reach the MCP server %s at %s", esc(d.Server), esc(d.URL))
		if len(d.Headers) > 0 {
			s += fmt.Sprintf(", sending %s %s", english.Plural(len(d.Headers), "the header", "the headers"), esc(strings.Join(d.Headers, ", ")))
		}
		if o := d.OAuth; o != nil {
			s += ", " + oauthText(o)
		}
		return s
	}
	s := fmt.Sprintf("start the MCP server %s: %s", esc(d.Server), shellQuote(d.Argv))
	if d.Dir != "" {
		s += " in " + esc(d.Dir)
	}
	return s + envText
}

// hookLine says what a hook lets kesoku run, and when.
func hookLine(h *config.Hook) string {
	when := "before"
	if h.Event == config.PostToolUse {
		when = "after"
	}
	which := "any tool"
	switch {
	case h.Expression():
		which = "a tool whose name matches " + h.Matcher
	case len(h.Names()) > 0:
		which = strings.Join(h.Names(), " or ")
	}
	return fmt.Sprintf("run the %s hook %s %s each call of %s", h.Event, shellQuote([]string{"sh", "-c", h.Command}), when, termtext.Escape(which))
}

// oauthText says how an oauth entry authorizes its server: the client ID
// and scopes as written, whether a secret is given, never the secret.
func oauthText(o *toolsource.DeclaredOAuth) string {
	esc := termtext.Escape
	s := "authorized with OAuth"
	switch {
	case o.Secret:
		s += fmt.Sprintf(" as the client %s with its client secret (the client-credentials grant: the secret goes to the server's authorization server)", esc(o.ClientID))
	case o.ClientID != "":
		s += fmt.Sprintf(" as the client %s (a login in the browser)", esc(o.ClientID))
	default:
		s += " (a login in the browser)"
	}
	if len(o.Scopes) > 0 {
		s += fmt.Sprintf(", for the scopes %s", esc(strings.Join(o.Scopes, " ")))
	}
	return s
}

// shellQuote writes argv as a POSIX shell would need it typed: a word of
// plain characters as it is, any other in single quotes, and one holding
// characters a terminal must not get raw in $'...', escaped as termtext
// escapes them (\n, \x1b, \u202e), which bash and zsh read back.
func shellQuote(argv []string) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		switch esc := termtext.Escape(a); {
		case a != "" && strings.Trim(a, shellPlain) == "" && !strings.HasPrefix(a, "~"):
			words[i] = a
		case esc == a:
			words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		default:
			words[i] = "$'" + strings.ReplaceAll(esc, "'", `\'`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// shellPlain are the characters a shell word may hold unquoted.
const shellPlain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-"

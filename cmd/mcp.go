package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/llm/provider"
	"github.com/kesoku/kesoku/internal/mcpserve"
	"github.com/kesoku/kesoku/internal/media"
	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

// newMCPCmd builds `kesoku mcp` and its subcommands.
func newMCPCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "Serve kesoku's tools to any MCP client; log in to MCP servers",
		Long: `mcp speaks the Model Context Protocol, which Claude Code, Claude Desktop,
Gemini CLI, Cursor and most agent frameworks share: "mcp serve" offers
kesoku's tools to them. "mcp login" and "mcp logout" authorize kesoku
with an MCP server it uses that asks for OAuth.

EXIT STATUS
  0  the help was printed
  2  an unknown subcommand`,
		Example: `  kesoku mcp serve
  claude mcp add kesoku -- kesoku mcp serve --awd "$PWD"
  kesoku mcp login corp`,
		Args: subcommandArgs,
		RunE: func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(newMCPServeCmd(g, nil), newMCPLoginCmd(g, nil), newMCPLogoutCmd(g, nil))
	return c
}

// mcpServeOptions are what `kesoku mcp serve` was asked to do.
type mcpServeOptions struct {
	g *globals
	// Registry holds the tools; registry.Default but in tests.
	Registry *registry.Registry

	HTTP           string
	TokenEnv       string
	SessionTimeout time.Duration
	MaxSessions    int
	// sessionFlag is the flag of sessions given, --session-timeout or
	// --max-sessions; "" for neither.
	sessionFlag string
	toolChoice
	Output string
	callFlags

	model       provider.Config
	InlineLimit sizeValue
	perms       permissionFlags
}

// newMCPServeCmd builds `kesoku mcp serve`; tests pass runF to see the
// options the flags made.
func newMCPServeCmd(g *globals, runF func(context.Context, *mcpServeOptions) error) *cobra.Command {
	opts := &mcpServeOptions{g: g, Registry: registry.Default, InlineLimit: media.DefaultInlineLimit}
	c := &cobra.Command{
		Use:   "serve [--http ADDR]",
		Short: "Serve the tools over MCP, on standard input and output or HTTP",
		Long: `serve offers kesoku's tools to an MCP client: on standard input and output
(the client starts kesoku and speaks through a pipe; kesoku's own words go
to standard error), or with --http as streamable HTTP at the path /mcp.
It serves kesoku's own tools (Go and command tools): those that only read,
unless --tools says otherwise. Each tools/call runs as a request of kesoku
run does: checked, bounded by --timeout and --max-output, its files in the
AWD, a failure a result marked isError. --http listens on the loopback
address unless ADDR names another, which needs a bearer token (--token-env).

EXIT STATUS
  0    the client ended the session (standard input closed)
  1    a record could not be written to -o, or ADDR could not be listened on
  2    bad usage: an unknown tool in --tools, a mistake in a declaration,
       --mcp-config, an address not loopback without a token, a bad
       --token-env, --session-timeout or --max-sessions, an -o file it
       cannot open
  130  stopped by SIGINT or SIGTERM, the calls in flight answered
`,
		Example: `  claude mcp add kesoku -- kesoku mcp serve    # the client starts kesoku
  export KESOKU_MCP_TOKEN=$(openssl rand -hex 32)
  kesoku mcp serve --http 0.0.0.0:8080 --token-env KESOKU_MCP_TOKEN`,
		Args: noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.toolChoice.set(c)
			for _, name := range []string{"session-timeout", "max-sessions"} {
				if c.Flags().Changed(name) {
					opts.sessionFlag = "--" + name
					break
				}
			}
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runMCPServe(c.Context(), opts)
		},
	}
	f := c.Flags()
	checkedVar(f, &opts.HTTP, "http", "", "serve HTTP at `ADDR`: PORT, :PORT or HOST:PORT", mcpserve.CheckAddr)
	checkedVar(f, &opts.TokenEnv, "token-env", "", "the variable `VAR` holding the token HTTP clients send", checkVarName)
	durationVar(f, &opts.SessionTimeout, "session-timeout", mcpserve.DefaultSessionTimeout, time.Second, maxSessionTimeout, "idle 2025-era HTTP sessions' life")
	intVar(f, &opts.MaxSessions, "max-sessions", "", mcpserve.DefaultMaxSessions, 1, maxSessions, "2025-era HTTP sessions at once")
	opts.toolChoice.register(f)
	f.StringVarP(&opts.Output, "output", "o", "", "append each call's record to `FILE`")
	opts.callFlags.register(f, 16, "how many calls run at once")
	registerToolModelFlags(f, &opts.model, &opts.InlineLimit)
	opts.perms.register(f, false)
	return seeAlso(c, "mcp-server", "safety")
}

func runMCPServe(ctx context.Context, opts *mcpServeOptions) error {
	g := opts.g
	// Everything that can be refused is refused before anything is served.
	token, err := opts.check()
	if err != nil {
		return err
	}
	// Standard input is the protocol's, or nobody's: a call the rules ask
	// about is denied (the client has its own way to ask its user).
	pol, err := opts.perms.options(nil)
	if err != nil {
		return err
	}
	ctx, env, err := g.env(ctx, app.Options{
		Tools: opts.Registry, WithoutServers: true, Calls: opts.callFlags.calls(),
		Model: opts.model, InlineLimit: int64(opts.InlineLimit), Policy: pol,
		// The programs of the tools served never get the token, and never
		// show it.
		Secrets: []string{token},
	})
	if err != nil {
		return err
	}
	defer env.Close()
	sopts, err := opts.serveOptions(env, token)
	if err != nil {
		return err
	}
	if opts.HTTP == "" {
		in, out, restore := stdio(g.IO)
		defer restore()
		sopts.In, sopts.Out = in, out
	}
	interrupted, err := env.Serve(ctx, sopts)
	if err != nil {
		return mcpServeErr(err)
	}
	if interrupted {
		return errInterrupted
	}
	return nil
}

// check refuses what mcp serve cannot do, and returns the token of
// --token-env.
func (o *mcpServeOptions) check() (string, error) {
	if len(o.g.MCPConfig) > 0 {
		return "", usageErrf("--mcp-config: mcp serve serves kesoku's own tools (Go and command tools), not those of other MCP servers")
	}
	if err := checkToolModel(o.model); err != nil {
		return "", err
	}
	return o.token()
}

// serveOptions are what env.Serve is asked to do: the tools offered (with
// no model, analyze_media only when named), how the server runs, and how
// it says where it serves.
func (o *mcpServeOptions) serveOptions(env *app.Env, token string) (app.ServeOptions, error) {
	g := o.g
	if env.Model == nil {
		// With no model, analyze_media could only fail: offered when named.
		o.toolChoice.notDefault = []string{"analyze_media"}
	}
	offer, err := g.offeredTools(env.Tools, o.toolChoice, false)
	if err != nil {
		return app.ServeOptions{}, err
	}
	offered := offer.Registry
	if srvs := offer.Set.Servers(); len(srvs) > 0 && g.Verbose {
		fmt.Fprintf(g.IO.Err, "kesoku: the tools of the MCP servers of the config (%s) are not served: kesoku serves its own\n", strings.Join(srvs, ", "))
	}
	if o.sessionFlag != "" && o.HTTP == "" {
		return app.ServeOptions{}, usageErrf("%s: sessions are for --http; standard input and output serve one client for as long as it stays", o.sessionFlag)
	}
	names := offered.Names()
	what := fmt.Sprintf("%d %s (%s)", len(names), english.Plural(len(names), "tool", "tools"), strings.Join(names, ", "))
	return app.ServeOptions{
		Tools: offered, Output: o.Output, HTTP: o.HTTP, Token: token,
		Server: mcpserve.Options{
			Version: versionString(), Tell: g.tell(), Log: g.IO.Err, Verbose: g.Verbose,
			SessionTimeout: o.SessionTimeout, MaxSessions: o.MaxSessions,
			Withheld: withheld(offer.Set.Registry, offered),
			Word:     wordMCPServeError,
		},
		Serving: func(where string) { o.serving(what, where, token != "") },
	}, nil
}

// serving says where the tools are served: on standard input and output
// (with -v), or at the listener's address and who may call (unless -q).
func (o *mcpServeOptions) serving(what, where string, withToken bool) {
	g := o.g
	switch {
	case where == "" && g.Verbose:
		fmt.Fprintf(g.IO.Err, "kesoku: serving %s on standard input and output\n", what)
	case where != "" && !g.Quiet:
		auth := "no token: this machine only"
		if withToken {
			auth = "clients must send the bearer token in " + o.TokenEnv
		}
		fmt.Fprintf(g.IO.Err, "kesoku: serving %s at %s; %s\n", what, where, auth)
	}
}

// mcpServeErr words what env.Serve returned, with its exit status.
func mcpServeErr(err error) error {
	var le *app.ListenError
	if !errors.As(err, &le) {
		return appErr(err)
	}
	var ae *mcpserve.AddrError
	switch lerr := le.Err; {
	case errors.Is(lerr, mcpserve.ErrNeedsToken):
		// ErrNeedsToken ends every message it is in.
		return usageErr(reword(lerr, "--http %v (--token-env VAR)", lerr))
	case errors.As(lerr, &ae):
		return usageErrf("--http %w", lerr)
	default:
		return fmt.Errorf("--http: %w", lerr)
	}
}

// maxSessionTimeout bounds --session-timeout: a session idle for more
// than a week is one its client has forgotten.
const maxSessionTimeout = 7 * 24 * time.Hour

// maxSessions bounds --max-sessions: each open session costs some memory
// for as long as it lasts.
const maxSessions = 1_000_000

// withheld are the tools of all that offered leaves out.
func withheld(all, offered *toolset.Set) []string {
	var out []string
	for _, name := range all.Names() {
		if _, ok := offered.Lookup(name); !ok {
			out = append(out, name)
		}
	}
	return out
}

// wordMCPServeError words an error kesoku mcp serve answers a client
// with: of a tool that exists but is not offered, how to offer it.
func wordMCPServeError(err error) string {
	var unknown *mcpserve.UnknownToolError
	if errors.As(err, &unknown) && unknown.Withheld != "" {
		return fmt.Sprintf("%v. kesoku mcp serve offers %[2]s when --tools names it (--tools +%[2]s adds it to the tools that only read)", err, unknown.Withheld)
	}
	return err.Error()
}

// minTokenLen is the length below which a token is guessed too easily to
// keep a network out: kesoku serves it, and says so.
const minTokenLen = 16

// token is the bearer token HTTP clients must send: the value of the
// variable --token-env names, "" without it.
func (o *mcpServeOptions) token() (string, error) {
	if o.TokenEnv == "" {
		return "", nil
	}
	if o.HTTP == "" {
		return "", usageErrf("--token-env %s: a token is for --http; standard input and output need none", o.TokenEnv)
	}
	tok := strings.TrimSpace(os.Getenv(o.TokenEnv))
	if tok == "" {
		return "", usageErrf("--token-env %s: the variable is not set or empty; set it to a secret, e.g. export %s=$(openssl rand -hex 32)", o.TokenEnv, o.TokenEnv)
	}
	if len(tok) < minTokenLen && !o.g.Quiet {
		fmt.Fprintf(o.g.IO.Err, "kesoku: warning: the token in %s has %d characters; one of %d or more is much harder to guess\n", o.TokenEnv, len(tok), minTokenLen)
	}
	return tok, nil
}

// stdio is the stream the protocol is read from and written to. When it
// is the process's own standard output, the protocol keeps it to itself:
// what a tool prints there (fmt.Println in a user's Go tool) goes to
// standard error instead of corrupting the stream.
func stdio(s *ioStreams) (in io.Reader, out io.WriteCloser, restore func()) {
	if f, ok := s.Out.(*os.File); ok && f == os.Stdout {
		os.Stdout = os.Stderr
		return s.In, nopCloser{f}, func() { os.Stdout = f }
	}
	return s.In, nopCloser{s.Out}, func() {}
}

// nopCloser is a writer that the transport may close without closing what
// it writes to: standard output outlives the session.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/mcpauth"
	"github.com/kesoku/kesoku/internal/termtext"
	"github.com/kesoku/kesoku/internal/toolsource"
	"github.com/kesoku/kesoku/registry"
)

// oauth is how the MCP servers over HTTP are authorized in this run when
// they ask: the tokens kept in the user's config directory, and a login
// when a person can log in (a terminal, or a $BROWSER to open the page),
// or always (login, for kesoku mcp login). Without, a server that needs
// a login is an error naming kesoku mcp login, never a wait.
func (g *globals) oauth(login bool) toolsource.OAuth {
	o := toolsource.OAuth{
		Store:     mcpauth.StoreIn(config.UserDir()),
		LoginHint: func(name string) string { return "kesoku mcp login " + name },
	}
	browser := os.Getenv("BROWSER")
	if login || browser != "" || g.IO.ErrTTY || g.IO.InTTY {
		open := g.Browser
		if open == nil {
			open = mcpauth.Browser(browser)
		}
		o.Login = &mcpauth.Login{
			Open: open,
			// Said even under -q: the person needs the URL.
			Say: func(msg string) { fmt.Fprintf(g.IO.Err, "kesoku: %s\n", termtext.Lines(msg)) },
		}
	}
	return o
}

// mcpLoginOptions are what `kesoku mcp login` and `logout` were asked to
// do.
type mcpLoginOptions struct {
	g *globals
	// Registry holds the Go tools; registry.Default but in tests.
	Registry *registry.Registry
	Server   string
	Logout   bool
}

// newMCPLoginCmd builds `kesoku mcp login`; tests pass runF.
func newMCPLoginCmd(g *globals, runF func(context.Context, *mcpLoginOptions) error) *cobra.Command {
	opts := &mcpLoginOptions{g: g, Registry: registry.Default}
	return seeAlso(&cobra.Command{
		Use:   "login NAME",
		Short: "Log in to an MCP server that asks for OAuth, ahead of a run",
		Long: `login authorizes the MCP server NAME of the config files (or --mcp-config)
now, when it asks for OAuth: its authorization server's page opens in the
browser ($BROWSER, else the system's opener), its URL is printed too, and
the tokens are kept in the user's config directory for the runs to come,
which then need no one at the keyboard. A server whose oauth entry has a
clientSecret takes the client-credentials grant, which needs no person:
login checks that it works.

EXIT STATUS
  0  logged in (or the server asked for no authorization)
  1  the login failed: the server or its authorization server refused, or
     no answer came from the browser in time
  2  bad usage: no server NAME, or one OAuth does not apply to (a server
     kesoku starts, one its headers authorize)
  130  interrupted`,
		Example: `  kesoku mcp login corp
  kesoku --mcp-config .mcp.json mcp login linear`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Server = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runMCPLogin(c.Context(), opts)
		},
	}, "oauth")
}

// newMCPLogoutCmd builds `kesoku mcp logout`; tests pass runF.
func newMCPLogoutCmd(g *globals, runF func(context.Context, *mcpLoginOptions) error) *cobra.Command {
	opts := &mcpLoginOptions{g: g, Registry: registry.Default, Logout: true}
	return seeAlso(&cobra.Command{
		Use:   "logout NAME",
		Short: "Forget the OAuth tokens kept for an MCP server",
		Long: `logout forgets the tokens that kesoku mcp login (or a run's login) kept for
the MCP server NAME; the next run that needs the server logs in again.

EXIT STATUS
  0  the tokens are forgotten (or there were none)
  2  bad usage: no server NAME, or one OAuth does not apply to`,
		Example: `  kesoku mcp logout corp`,
		Args:    cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.Server = args[0]
			if runF != nil {
				return runF(c.Context(), opts)
			}
			return runMCPLogin(c.Context(), opts)
		},
	}, "oauth")
}

func runMCPLogin(ctx context.Context, o *mcpLoginOptions) error {
	g := o.g
	if config.UserDir() == "" {
		return usageErrf("no config directory to keep the tokens in: set HOME or XDG_CONFIG_HOME")
	}
	// Logging in is the whole command: one turn, and a login always.
	ctx, env, err := g.env(ctx, app.Options{Tools: o.Registry, OneTurn: true, OAuth: g.oauth(true)})
	if err != nil {
		return err
	}
	defer env.Close()
	if o.Logout {
		return o.logout(env.Tools)
	}
	res, err := env.Tools.Login(ctx, o.Server)
	if env.Interrupts.Interrupted() {
		return errInterrupted
	}
	if err != nil {
		return loginErr(err)
	}
	if !g.Quiet {
		o.tellLogin(res)
	}
	return nil
}

// logout forgets the tokens of the server, and says so.
func (o *mcpLoginOptions) logout(set *toolsource.Set) error {
	g, esc := o.g, termtext.Escape
	url, had, err := set.Logout(o.Server)
	if err != nil {
		return loginErr(err)
	}
	if !g.Quiet {
		if had {
			fmt.Fprintf(g.IO.Err, "kesoku: forgot the tokens of %s (%s)\n", esc(o.Server), esc(url))
		} else {
			fmt.Fprintf(g.IO.Err, "kesoku: no tokens were kept for %s (%s)\n", esc(o.Server), esc(url))
		}
	}
	return nil
}

// tellLogin says how the login went: what the server granted, and where
// the tokens are kept.
func (o *mcpLoginOptions) tellLogin(res *toolsource.LoginResult) {
	g, esc := o.g, termtext.Escape
	scopes := ""
	if len(res.Scopes) > 0 {
		scopes = ", for the scopes " + strings.Join(res.Scopes, " ")
	}
	tools := fmt.Sprintf("%d %s", res.Tools, english.Plural(res.Tools, "tool", "tools"))
	switch {
	case res.LoggedIn:
		fmt.Fprintf(g.IO.Err, "kesoku: logged in to %s (%s)%s; %s. The tokens are kept in %s until kesoku mcp logout %s\n",
			esc(o.Server), esc(res.URL), esc(scopes), tools, esc(filepath.Join(config.UserDir(), mcpauth.TokensDirName)), esc(o.Server))
	case res.ClientCredentials:
		fmt.Fprintf(g.IO.Err, "kesoku: %s (%s) takes the client-credentials grant, which needs no login: a token was granted%s; %s. Each run asks for its own\n",
			esc(o.Server), esc(res.URL), esc(scopes), tools)
	default:
		fmt.Fprintf(g.IO.Err, "kesoku: %s (%s) asked for no authorization: no login needed; %s\n", esc(o.Server), esc(res.URL), tools)
	}
}

// loginErr words an error of login or logout: a server that is not
// there, or not one to log in to, is bad usage.
func loginErr(err error) error {
	var unknown *toolsource.UnknownServerError
	var notOAuth *toolsource.NotOAuthError
	if errors.As(err, &unknown) || errors.As(err, &notOAuth) {
		return usageErr(err)
	}
	return err
}

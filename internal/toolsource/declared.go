package toolsource

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/kesoku/kesoku/internal/yamlpos"
	"github.com/kesoku/kesoku/registry"
)

// Declared is what one declaration lets kesoku start or reach: a command
// tool's program, an MCP server's program or URL. kesoku trust shows it
// before the user approves the file.
type Declared struct {
	// Tool is a command tool's name, Server an MCP server's: one is set.
	Tool, Server string
	// Pos is where the declaration is.
	Pos yamlpos.Pos
	// Argv is the program and its arguments as they will run: a command
	// tool's program named by a relative path made absolute, its
	// placeholders as written ({{text}}, filled by each call); a server's
	// ${VAR} as written (filled from the environment when it starts).
	// None for a server reached over HTTP.
	Argv []string
	// ByPath says the program is named by a path, not found in PATH.
	ByPath bool
	// Dir is where a server's program runs when not in the working
	// directory (its cwd).
	Dir string
	// Env are the variables a tool's or a server's entry sets, by name
	// (their values may be secrets), each with the variables of kesoku's
	// environment its value passes on: "TOKEN (from $CORP_TOKEN)". What
	// kesoku's environment a program gets beyond what any program needs
	// is this, and only this.
	Env []string
	// URL is a server's over HTTP; Headers are the names of the headers
	// sent to it, never their values, which hold secrets.
	URL     string
	Headers []string
	// OAuth is a server's oauth entry, without its secret.
	OAuth *DeclaredOAuth
}

// DeclaredOAuth is a server's oauth entry as kesoku trust shows it: the
// client ID and scopes as written (${VAR} unexpanded), whether a client
// secret is given (the client-credentials grant), never the secret.
type DeclaredOAuth struct {
	ClientID string
	Secret   bool
	Scopes   []string
}

// Check makes every check of opts' declarations that Build makes, starts
// nothing, and returns what they declare: the command tools, then the MCP
// servers, each by name.
func Check(base *registry.Registry, opts Options) ([]Declared, error) {
	s, err := Build(context.Background(), base, opts)
	if err != nil {
		return nil, err
	}
	s.Close()
	// Read again what Build accepted, to say it; said once is enough.
	opts.Note = nil
	tools, err := declaredTools(opts)
	if err != nil {
		return nil, err
	}
	servers, err := declaredServers(opts)
	if err != nil {
		return nil, err
	}
	var out []Declared
	for _, t := range tools {
		d := Declared{Tool: t.name, Pos: t.pos}
		for _, segs := range t.argv {
			var b strings.Builder
			for _, s := range segs {
				if s.param {
					b.WriteString("{{" + s.text + "}}")
				} else {
					b.WriteString(s.text)
				}
			}
			d.Argv = append(d.Argv, b.String())
		}
		d.Argv[0] = programPath(t.dir, d.Argv[0])
		d.ByPath = strings.ContainsRune(d.Argv[0], filepath.Separator)
		d.Env = envText(t.env, t.envValues)
		out = append(out, d)
	}
	for _, srv := range servers {
		d := Declared{Server: srv.name, Pos: srv.pos, Dir: srv.cwd, URL: srv.url}
		if srv.transport == transportStdio {
			d.Argv = append([]string{srv.command}, srv.args...)
			d.ByPath = strings.ContainsRune(srv.command, filepath.Separator)
		}
		d.Env = envText(srv.env, srv.envValues)
		for _, h := range srv.headers {
			d.Headers = append(d.Headers, h.key)
		}
		if o := srv.oauth; o != nil {
			d.OAuth = &DeclaredOAuth{ClientID: o.clientID, Secret: o.clientSecret != "", Scopes: o.scopes}
		}
		out = append(out, d)
	}
	return out, nil
}

// envText says each variable an entry sets, and the variables of
// kesoku's environment its value passes on, never the value.
func envText(env []entry, values map[string]string) []string {
	var out []string
	for _, e := range env {
		text := e.key
		if names := varNames(values[e.key]); len(names) > 0 {
			text += " (from $" + strings.Join(names, ", $") + ")"
		}
		out = append(out, text)
	}
	return out
}

// programPath is the program a command tool runs: one named by a relative
// path is found from dir, the directory of the file that declares it, as
// every path in a config file is; a bare name is looked for in PATH.
func programPath(dir, prog string) string {
	if strings.ContainsRune(prog, filepath.Separator) && !filepath.IsAbs(prog) {
		return filepath.Join(dir, prog)
	}
	return prog
}

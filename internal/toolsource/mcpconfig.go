package toolsource

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/toolspec"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// serverKeys are the keys of an MCP server's entry, in the shape that
// .mcp.json, Claude Desktop and Gemini CLI use: command, args, env and cwd
// for a server kesoku starts; type, url and headers for one it reaches
// over HTTP, and oauth for one behind OAuth; timeout (milliseconds, or a
// duration) bounds each call; disabled leaves it out.
var serverKeys = []string{"type", "command", "args", "env", "cwd", "url", "headers", "oauth", "timeout", "disabled"}

// oauthKeys are the keys of a server's oauth entry.
var oauthKeys = []string{"clientId", "clientSecret", "scopes"}

// Transports a server entry may name with type.
const (
	transportStdio = "stdio"
	transportHTTP  = "http"
	transportSSE   = "sse"
)

// serverDecl is an MCP server as declared.
type serverDecl struct {
	name      string
	transport string
	command   string
	args      []string
	argNodes  []ast.Node
	env       []entry
	envValues map[string]string
	cwd       string
	url       string
	headers   []entry
	hdrValues map[string]string
	oauth     *oauthDecl
	timeout   time.Duration
	disabled  bool
	// file is the file that declares it; pos where its name is.
	file string
	pos  yamlpos.Pos
	// nodes are where each value is, for the errors of expanding ${VAR}.
	nodes map[string]ast.Node
}

// where names the declaration in messages: `mcp server "fs" (kesoku.yaml:3:3)`.
func (d *serverDecl) where() string {
	return fmt.Sprintf("mcp server %s (%s)", d.name, d.pos)
}

// validServerName reports why name cannot name a server, "" when it can.
// Its tools are named <server>__<tool>, which must obey the name rule; and
// a name with "__" in it, or ending in "_", would make the server of a
// tool's name ambiguous.
func validServerName(name string) string {
	switch {
	case !toolspec.ValidName(name) || len(name) > 61:
		return fmt.Sprintf("its tools are named %s__<tool>, which must match %s", name, toolspec.NamePattern)
	case strings.Contains(name, "__") || strings.HasSuffix(name, "_"):
		return `it must not hold "__" or end with "_": its tools are named <server>__<tool>`
	}
	return ""
}

// parseServer reads the entry of the server name. strict refuses keys it
// does not know (kesoku's own config files); a file of another program
// (--mcp-config) may hold keys for that program, which are left alone.
func parseServer(file, name string, keyN, v ast.Node, strict bool) (*serverDecl, error) {
	what := config.ServersKey + "." + name
	if why := validServerName(name); why != "" {
		return nil, errAt(file, keyN, "%s: the server name %q cannot be used: %s", what, name, why)
	}
	m := yamlpos.Mapping(v)
	if m == nil {
		return nil, errAt(file, v, "%s: want a mapping with command and args, or type: http and url, not %s", what, yamlpos.KindOf(v))
	}
	known := serverKeys
	if !strict {
		known = nil
	}
	es, err := entries(file, m, what, known)
	if err != nil {
		return nil, err
	}
	d := &serverDecl{name: name, file: file, pos: yamlpos.Of(file, keyN), nodes: map[string]ast.Node{}}
	for _, e := range es {
		d.nodes[e.key] = e.value
		switch e.key {
		case "type":
			d.transport, err = stringValue(file, e.value, what+".type")
		case "httpUrl":
			// Gemini CLI's name for a streamable HTTP server's URL.
			d.transport = transportHTTP
			d.url, err = stringValue(file, e.value, what+".httpUrl")
			d.nodes["url"] = e.value
		case "command":
			d.command, err = stringValue(file, e.value, what+".command")
		case "args":
			d.args, d.argNodes, err = stringList(file, e.value, what+".args")
		case "env":
			d.env, d.envValues, err = stringMap(file, e.value, what+".env")
		case "cwd":
			d.cwd, err = stringValue(file, e.value, what+".cwd")
		case "url":
			d.url, err = stringValue(file, e.value, what+".url")
		case "headers":
			d.headers, d.hdrValues, err = stringMap(file, e.value, what+".headers")
		case "oauth":
			d.oauth, err = parseOAuth(file, e.value, what+".oauth", strict)
		case "timeout":
			d.timeout, err = durationValue(file, e.value, what+".timeout")
		case "disabled":
			d.disabled, err = boolValue(file, e.value, what+".disabled")
		}
		if err != nil {
			return nil, err
		}
	}
	switch d.transport {
	case "":
		d.transport = transportStdio
		if d.url != "" {
			d.transport = transportHTTP
		}
	case "streamable-http", "streamableHttp", "streamable_http":
		d.transport = transportHTTP
	case transportStdio, transportHTTP, transportSSE:
	default:
		return nil, errAt(file, d.nodes["type"], "%s.type: %q: want stdio, http or sse", what, d.transport)
	}
	switch {
	case d.command != "" && d.url != "" && d.nodes["type"] == nil:
		return nil, errAt(file, d.nodes["url"], "%s: both command and url: want command (a server kesoku starts) or url (one it reaches over HTTP)", what)
	case d.transport == transportStdio && d.command == "":
		return nil, errAt(file, keyN, "%s: no command: want command (and args) for a server kesoku starts, or type: http and url", what)
	case d.transport == transportStdio && d.url != "":
		return nil, errAt(file, d.nodes["url"], "%s: url with a server kesoku starts (type stdio): want one of command or url", what)
	case d.transport != transportStdio && d.url == "":
		return nil, errAt(file, keyN, "%s: type %s needs a url", what, d.transport)
	case d.transport != transportStdio && d.command != "":
		return nil, errAt(file, d.nodes["command"], "%s: command with type %s: want one of command or url", what, d.transport)
	}
	if d.transport != transportStdio && !writtenHTTPURL(d.url) {
		return nil, errAt(file, d.nodes["url"], "%s.url: %q: want an http or https URL", what, d.url)
	}
	if err := d.checkOAuth(what); err != nil {
		return nil, err
	}
	if d.cwd != "" && !filepath.IsAbs(d.cwd) {
		// A path in a config file is relative to the file.
		d.cwd = filepath.Join(filepath.Dir(file), d.cwd)
	}
	return d, nil
}

// writtenHTTPURL reports whether raw, a server's url as written, can be
// an http or https URL with a host, so that a mistake is refused at load,
// where it is written (kesoku trust approves no file a start would
// refuse). What ${VAR} stands for is unknown until the server starts:
// it counts as a host, and a URL whose scheme it writes is left to the
// start.
func writtenHTTPURL(raw string) bool {
	if i := strings.Index(raw, "${"); i >= 0 && !strings.Contains(raw[:i], ":") {
		return true
	}
	var b strings.Builder
	for {
		i := strings.Index(raw, "${")
		j := strings.IndexByte(raw[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(raw)
			break
		}
		b.WriteString(raw[:i] + "var")
		raw = raw[i+j+1:]
	}
	u, err := url.Parse(b.String())
	return err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https")
}

// expand replaces ${VAR} and ${VAR:-default} in s, the value at n, with
// the environment's values, as Claude Code does in .mcp.json. A variable
// not set and without a default is an error naming it; what names the
// value in the entry.
func (d *serverDecl) expand(s string, n ast.Node, what string) (string, error) {
	x, missing := expandVars(s)
	if missing != "" {
		return "", &config.Error{Pos: yamlpos.Of(d.file, n), Msg: fmt.Sprintf("%s.%s.%s: ${%s} is not set in the environment", config.ServersKey, d.name, what, missing)}
	}
	return x, nil
}

// expandVars replaces ${VAR} and ${VAR:-default} in s with the
// environment's values; missing names a variable that is not set and has
// no default ("" when none).
func expandVars(s string) (expanded, missing string) {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), ""
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String(), ""
		}
		b.WriteString(s[:i])
		name, def, hasDef := strings.Cut(s[i+2:i+j], ":-")
		v, ok := os.LookupEnv(name)
		switch {
		case ok && (v != "" || !hasDef):
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			return "", name
		}
		s = s[i+j+1:]
	}
}

// declaredServers reads the MCP servers of the config files and of the
// --mcp-config files, a later declaration of a name replacing an earlier
// one: the user's config, then the project's, then --mcp-config.
func declaredServers(opts Options) ([]*serverDecl, error) {
	type source struct {
		sec    *config.Section
		strict bool
	}
	var sources []source
	if opts.Config != nil {
		for _, sec := range opts.Config.Sections(config.ServersKey) {
			sources = append(sources, source{sec, true})
		}
	}
	for _, path := range opts.MCPConfig {
		f, err := opts.Config.ReadServers(path)
		if err != nil {
			return nil, err
		}
		if sec := f.Sections[config.ServersKey]; sec != nil {
			sources = append(sources, source{sec, false})
		}
	}
	byName := map[string]*serverDecl{}
	var order []string
	for _, src := range sources {
		file := src.sec.File.Path
		es, err := entries(file, src.sec.Node, config.ServersKey, nil)
		if err != nil {
			return nil, err
		}
		for _, e := range es {
			d, err := parseServer(file, e.key, e.keyN, e.value, src.strict)
			if err != nil {
				return nil, err
			}
			if prev := byName[d.name]; prev != nil {
				if opts.Note != nil {
					opts.Note(fmt.Sprintf("%s.%s: %s replaces %s", config.ServersKey, d.name, d.pos, prev.pos))
				}
			} else {
				order = append(order, d.name)
			}
			byName[d.name] = d
		}
	}
	out := make([]*serverDecl, 0, len(order))
	for _, name := range order {
		if d := byName[name]; !d.disabled {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b *serverDecl) int { return strings.Compare(a.name, b.name) })
	return out, nil
}

// secrets are what the entry holds for its server alone, found before
// anything starts: the value of every variable its headers, url and
// oauth name, each header's value, and the password and query values of
// its URL. No other program gets them, and wherever they show up they
// are hidden.
func (d *serverDecl) secrets() []string {
	var texts []string
	for _, h := range d.headers {
		v := d.hdrValues[h.key]
		texts = append(texts, v)
		// A header's value as sent: "Bearer " and the token.
		if x, missing := expandVars(v); missing == "" {
			texts = append(texts, x)
			if _, tok, ok := strings.Cut(x, " "); ok {
				texts = append(texts, strings.TrimSpace(tok))
			}
		}
	}
	texts = append(texts, d.url)
	if o := d.oauth; o != nil {
		texts = append(texts, o.clientID, o.clientSecret)
	}
	var out []string
	for _, t := range texts {
		for _, name := range varNames(t) {
			if v, ok := os.LookupEnv(name); ok {
				out = append(out, v)
			}
		}
	}
	if o := d.oauth; o != nil && !strings.Contains(o.clientSecret, "${") {
		out = append(out, o.clientSecret)
	}
	if x, missing := expandVars(d.url); missing == "" {
		out = append(out, urlSecrets(x)...)
	}
	for _, h := range d.headers {
		if !strings.Contains(d.hdrValues[h.key], "${") {
			out = append(out, d.hdrValues[h.key])
		}
	}
	return out
}

// varNames are the names of the ${VAR} and ${VAR:-default} in s.
func varNames(s string) []string {
	var names []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return names
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return names
		}
		name, _, _ := strings.Cut(s[i+2:i+j], ":-")
		names = append(names, name)
		s = s[i+j+1:]
	}
}

// urlSecrets are the password of a URL and the values of its query
// whose names say they are secret: a key written into it (?api_key=...)
// is as secret as a header. (A value that a variable gives is a secret
// whatever its name.)
func urlSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if p, ok := u.User.Password(); ok {
		out = append(out, p)
	}
	for name, vs := range u.Query() {
		if secretName(name) {
			out = append(out, vs...)
		}
	}
	return out
}

// secretName reports whether a query parameter's name says its value is
// a secret: key, token, secret, password, signature, credential, auth.
func secretName(name string) bool {
	name = strings.ToLower(name)
	for _, w := range []string{"key", "token", "secret", "pass", "sig", "credential", "auth", "session"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

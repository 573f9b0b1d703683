package config

import (
	"errors"
	"testing"
)

// FuzzParse: a project's config file is read before anyone approved it.
// Whatever it holds, Parse returns settings or an *Error with a place,
// and never panics or hangs.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "jobs: 8\n", "jobs: [1, 2]\n", "tools:\n  wc: {command: [wc]}\n", "jobz: 8\n",
		"- a\n", "a: &x [*x]\n", "jobs: !!int 3\n", "staging: |\n  x\n", "? a\n: b\n",
		"jobs: 1\n---\njobs: 2\n", "\ufeffjobs: 1\n", "jobs: \"\\u0000\"\n", "{jobs: 1, model: m}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("/x/kesoku.yaml", data, keys)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *config.Error: %v", err, err)
			}
			return
		}
		for _, s := range file.Settings {
			if len(s.Values) == 0 && !s.List {
				t.Fatalf("setting %s has no value", s.Key)
			}
			if _, ok := rules[s.Key]; ok && rules[s.Key].section {
				t.Fatalf("section %s parsed as a setting", s.Key)
			}
		}
	})
}

// FuzzParseServers: --mcp-config reads another program's file as it is.
// Whatever it holds, ParseServers returns its mcpServers or an *Error
// with a place, and never panics or hangs.
func FuzzParseServers(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "x"]}}}`,
		`{"globalShortcut": "", "mcpServers": {}}`, `{"servers": {}}`, `[]`, ``, `{"mcpServers": [1]}`,
		`{"mcpServers": {"a": {"env": {"K": "${V}"}}}}`, "mcpServers:\n  a: {url: http://x}\n",
		`{"mcpServers": {"a": {"command": "\u0000"}}}`, `{"mcpServers": {"a": 1}, "mcpServers": {}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// mcpServers: null is a file of no servers.
		file, err := ParseServers("/x/.mcp.json", data)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *config.Error: %v", err, err)
			}
			return
		}
		if s := file.Sections[ServersKey]; s != nil && s.Node == nil {
			t.Fatal("a section without its mapping")
		}
	})
}

package toolsource

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/registry"
)

// TestCheck: Check refuses what Build refuses, starts nothing, and says
// what the declarations run: programs and arguments as they will run,
// the names of headers and variables but never their values.
func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	check := func(text string, mcpConfig ...string) ([]Declared, error) {
		t.Helper()
		f, err := config.ReadFile(write("kesoku.yaml", text), config.Named, nil)
		if err != nil {
			t.Fatal(err)
		}
		return Check(registry.New(), Options{Config: &config.Config{Files: []*config.File{f}}, MCPConfig: mcpConfig, AWD: dir})
	}
	started := filepath.Join(dir, "started")
	servers := write("servers.json", `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"LOG_LEVEL": "warn"}}}}`)
	got, err := check(`
tools:
  hello:
    command: [scripts/hello.sh, "--name={{name}}"]
    parameters: {type: object, properties: {name: {type: string}}}
  wc: {command: [wc, -w]}
mcpServers:
  search:
    type: http
    url: https://example.com/mcp
    headers: {Authorization: "Bearer secret-token-1f3c"}
  local: {command: touch, args: [`+started+`]}
`, servers)
	if err != nil {
		t.Fatal(err)
	}
	want := []Declared{
		{Tool: "hello", Argv: []string{filepath.Join(dir, "scripts", "hello.sh"), "--name={{name}}"}, ByPath: true},
		{Tool: "wc", Argv: []string{"wc", "-w"}},
		{Server: "fs", Argv: []string{"npx", "-y", "@modelcontextprotocol/server-filesystem", "."}, Env: []string{"LOG_LEVEL"}},
		{Server: "local", Argv: []string{"touch", started}},
		{Server: "search", URL: "https://example.com/mcp", Headers: []string{"Authorization"}},
	}
	if diff := cmp.Diff(want, got, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".Pos" }, cmp.Ignore())); diff != "" {
		t.Errorf("declared mismatch (-want +got):\n%s", diff)
	}
	if got[0].Pos.Line != 3 || got[2].Pos.File != servers {
		t.Errorf("positions: %v and %v", got[0].Pos, got[2].Pos)
	}
	if _, err := os.Stat(started); err == nil {
		t.Errorf("Check started a server")
	}

	// What Build refuses, Check refuses, with the file's line.
	_, err = check("tools:\n  echo:\n    command: [echo, \"{{txt}}\"]\n")
	if err == nil || !strings.Contains(err.Error(), "kesoku.yaml:3:21: tools.echo.command[1]: {{txt}} names no parameter") {
		t.Errorf("a placeholder naming no parameter: error = %v", err)
	}
	_, err = check("mcpServers:\n  a__b: {command: x}\n")
	if err == nil || !strings.Contains(err.Error(), `the server name "a__b" cannot be used`) {
		t.Errorf("a bad server name: error = %v", err)
	}
}

// TestWrittenHTTPURL: a server's url as written is refused at load when
// it cannot be an http or https URL with a host, whatever its variables
// hold; what a variable writes is left to the start.
func TestWrittenHTTPURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]bool{
		"https://example.com/mcp":          true,
		"http://127.0.0.1:8080/mcp?k=${K}": true,
		"https://${HOST}/mcp":              true,
		"${MCP_URL}":                       true,
		"${SCHEME}://example.com":          true,
		"ftp://x":                          false,
		"https:///mcp":                     false,
		"example.com/mcp":                  false,
		"file:///etc/passwd":               false,
		"ftp://${HOST}/mcp":                false,
		"mailto:${WHO}":                    false,
		"https://exa mple.com/${PATH}":     false,
	} {
		if got := writtenHTTPURL(raw); got != want {
			t.Errorf("writtenHTTPURL(%q) = %v, want %v", raw, got, want)
		}
	}
}

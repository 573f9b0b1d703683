// Command client points kesoku at a scenario of the MCP conformance suite
// (@modelcontextprotocol/conformance), which runs it as a client:
//
//	client URL           the suite appends the scenario's server URL and
//	                     sets MCP_CONFORMANCE_SCENARIO (and, for some
//	                     authorization scenarios, MCP_CONFORMANCE_CONTEXT)
//	client browse URL    a browser for $BROWSER: it opens URL and follows
//	                     the redirects, as the suite's authorization
//	                     server sends it back to kesoku with the code
//
// It writes an --mcp-config file naming the one server, "conf", at URL,
// and runs the real kesoku ($KESOKU, else kesoku in PATH) on it, as a user
// would: kesoku tools list, or kesoku run with the scenario's call. The
// server's entry has no oauth key unless the scenario gives what a user
// would write: a client ID and secret (the client-credentials grant), or
// a client ID metadata document (auth/basic-cimd, the suite's own URL).
// Each run has a config directory of its own: no token of another.
//
// It needs only Go's standard library, and is a module of its own, so
// that kesoku's own builds and tests leave it out.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// calls are the requests each scenario's calls make, one a line, in the
// order they run; a scenario without any lists the tools (and one whose
// context names tool calls makes those).
var calls = map[string]string{
	"tools_call": `{"name": "conf__add_numbers", "args": {"a": 5, "b": 3}}`,
	"sse-retry":  `{"name": "conf__test_reconnection", "args": {}}`,
	// The tools of a round trip (input_required) and of the calls beside
	// one.
	"sep-2322-client-request-state": `{"name": "conf__test_mrtr_echo_state", "args": {}}
{"name": "conf__test_mrtr_no_state", "args": {}}
{"name": "conf__test_mrtr_unrelated", "args": {}}
{"name": "conf__test_mrtr_no_result_type", "args": {}}`,
	// The one tool of the server whose x-mcp-header is valid: the others
	// are left out.
	"http-invalid-tool-headers": `{"name": "conf__valid_tool", "args": {"region": "us-west1"}}`,
}

// authCall is what the authorization scenarios call, once authorized.
const authCall = `{"name": "conf__test-tool", "args": {}}`

// metadataDocument is the client ID metadata document's URL that
// auth/basic-cimd expects.
const metadataDocument = "https://conformance-test.local/client-metadata.json"

func main() {
	if len(os.Args) == 3 && os.Args[1] == "browse" {
		os.Exit(browse(os.Args[2]))
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: client URL | client browse URL")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Getenv("MCP_CONFORMANCE_CONTEXT")))
}

func run(url, scenario, context string) int {
	dir, err := os.MkdirTemp("", "kesoku-conformance-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	env := append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"))

	entry := map[string]any{"type": "http", "url": url}
	var ctx struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
		ToolCalls    []struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		} `json:"toolCalls"`
	}
	_ = json.Unmarshal([]byte(context), &ctx)
	switch {
	case ctx.ClientID != "" && ctx.ClientSecret != "":
		// As a CI job writes it: the secret from the environment.
		entry["oauth"] = map[string]any{"clientId": ctx.ClientID, "clientSecret": "${CONFORMANCE_CLIENT_SECRET}"}
		env = append(env, "CONFORMANCE_CLIENT_SECRET="+ctx.ClientSecret)
	case scenario == "auth/basic-cimd":
		entry["oauth"] = map[string]any{"clientId": metadataDocument}
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"conf": entry}})
	cfgPath := filepath.Join(dir, "servers.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env = append(env, "BROWSER="+self+" browse")

	args := []string{"--awd", dir, "--mcp-config", cfgPath, "-v"}
	call, ok := calls[scenario]
	if strings.HasPrefix(scenario, "auth/") {
		call, ok = authCall, true
	}
	if !ok && len(ctx.ToolCalls) > 0 {
		var lines []string
		for _, tc := range ctx.ToolCalls {
			// A null where the schema wants a boolean is refused before
			// the call (invalid_args); a user leaves the argument out.
			for k, v := range tc.Arguments {
				if v == nil {
					delete(tc.Arguments, k)
				}
			}
			line, _ := json.Marshal(map[string]any{"name": "conf__" + tc.Name, "args": tc.Arguments})
			lines = append(lines, string(line))
		}
		call, ok = strings.Join(lines, "\n"), true
	}
	if scenario == schemaScenario {
		// The schema kesoku holds of the tool, as it would offer it to a
		// model (kesoku tools schema), handed back to the server.
		line, err := echoSchema(kesokuPath(), append(slices.Clone(args), "tools", "schema", "conf__json_schema_2020_12_tool", "--format", "mcp"), env)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		call, ok = line, true
	}
	if ok {
		req := filepath.Join(dir, "requests.jsonl")
		if err := os.WriteFile(req, []byte(call+"\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		args = append(args, "run", req)
	} else {
		args = append(args, "tools", "list")
	}
	cmd := exec.Command(kesokuPath(), args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// kesokuPath is the kesoku to run: $KESOKU, else kesoku in PATH.
func kesokuPath() string {
	if k := os.Getenv("KESOKU"); k != "" {
		return k
	}
	return "kesoku"
}

// schemaScenario is the scenario that asks a client to hand a tool's
// schema back to the server, to see what the client kept of it.
const schemaScenario = "json-schema-2020-12-preservation"

// echoSchema runs kesoku with args (a tools schema command) and makes the
// request that hands the schema it printed to the scenario's echo tool.
func echoSchema(kesoku string, args, env []string) (string, error) {
	cmd := exec.Command(kesoku, args...)
	cmd.Env, cmd.Stderr = env, os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("kesoku tools schema: %w", err)
	}
	var tools []struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if err := json.Unmarshal(out, &tools); err != nil || len(tools) != 1 {
		return "", fmt.Errorf("kesoku tools schema printed %q (%v)", out, err)
	}
	line, err := json.Marshal(map[string]any{"name": "conf__json_schema_echo", "args": map[string]any{"schema": tools[0].InputSchema}})
	return string(line), err
}

func browse(url string) int {
	resp, err := http.Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browse:", err)
		return 1
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		fmt.Fprintln(os.Stderr, "browse:", resp.Status)
		return 1
	}
	return 0
}

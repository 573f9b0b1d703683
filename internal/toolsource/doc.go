// Package toolsource turns programs outside kesoku into tools: command
// tools, declared under tools: in a config file, and the tools
// of MCP servers, declared under mcpServers: or in a file of
// the shape .mcp.json and Claude Desktop use. Build makes the one registry
// a command uses: the Go tools of registry.Default, then the command
// tools, then each MCP server as a registry.Source, started only when a
// command needs its tools and stopped, with everything it started, by
// Close.
package toolsource

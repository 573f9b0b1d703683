// Package toolsource turns programs outside kesoku into tools: command tools
// and MCP servers' tools.
//
// Command tools are declared under tools: in a config file; MCP servers
// under mcpServers: or in a file of the shape .mcp.json
// and Claude Desktop use. Build makes the one registry a command uses: the
// Go tools of registry.Default, then the command tools, then each MCP
// server as a source of tools (registrysource), started only when a command needs its
// tools and stopped, with everything it started, by Close (a guardian
// process stops them even when kesoku is killed). A call's arguments are
// checked against the tool's JSON Schema before the program sees them.
// Check reads and checks the declarations as Build does and starts
// nothing, for kesoku trust; Set.Login and Set.Logout sign in to a server
// over OAuth and out again.
package toolsource

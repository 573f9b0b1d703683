// Command kesoku turns Go functions, programs and MCP servers' tools into
// tools a large language model can call, and runs those calls: singly, in
// batches from files, or inside agent sessions with Gemini, Claude and
// OpenAI-compatible models.
package main

import (
	"os"

	"github.com/kesoku/kesoku/cmd"
)

func main() { os.Exit(cmd.Main()) }

// Command kesoku turns functions into tools a large language model can
// call, and runs those calls.
//
// Its tools are Go functions, programs and MCP servers' tools; it runs
// their calls singly, in batches from files, or inside agent sessions with
// Gemini, Claude and OpenAI-compatible models.
package main

import (
	"os"

	"github.com/kesoku/kesoku/cmd"
)

func main() { os.Exit(cmd.Main()) }

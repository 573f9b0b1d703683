// Command mytools is kesoku with this module's own tools: every command of
// kesoku (tools list, run, validate, session, analyze, gen) with kesoku's
// built-in tools and those of ./tools.
package main

import (
	"os"

	"github.com/kesoku/kesoku/cmd"

	_ "example.com/mytools/tools" // its kesoku_gen.go registers the tools
)

func main() { os.Exit(cmd.Main()) }

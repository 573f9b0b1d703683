package cmd

// The packages whose generated code fills registry.Default with the
// built-in tools. Their init functions only register specs:
// nothing heavy runs at start-up.
import (
	_ "github.com/kesoku/kesoku/internal/media"
	_ "github.com/kesoku/kesoku/internal/tools"
)

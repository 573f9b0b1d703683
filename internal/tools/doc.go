// Package tools holds kesoku's built-in tools: plain Go
// functions whose doc comments carry the //kesoku:tool directive. kesoku gen
// reads those comments and writes kesoku_gen.go, which registers each tool
// in registry.Default; nothing here registers anything by hand.
//
// Every path argument is confined to the agent working directory and
// staging through package workspace. A path that leads out is the
// caller's mistake and comes back as an invalid argument
// (registry.InvalidArg), so that the record says invalid_args and the
// model can correct its call.
package tools

//go:generate go run -tags kesoku_nogen github.com/kesoku/kesoku gen .

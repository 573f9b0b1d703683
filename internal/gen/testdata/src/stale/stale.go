// Package stale has a tool whose generated file is stale and no longer
// compiles: kesoku gen must still read the package and say so.
package stale

// Echo returns its input.
//
// Args:
//
//	s: the input.
//
//kesoku:tool
func Echo(s string) string { return s }

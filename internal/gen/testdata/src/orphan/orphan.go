// Package orphan has no tools any more, but a generated file from when it
// had some: kesoku gen must find the file orphaned.
package orphan

// Answer was a tool once.
func Answer() int { return 42 }

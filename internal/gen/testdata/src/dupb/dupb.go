// Package dupb declares the tool "shared"; package dupa does too.
package dupb

// Shared is the other tool named shared.
//
//kesoku:tool name=shared
func Other() int { return 2 }

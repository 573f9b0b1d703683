// Package dupa declares the tool "shared"; package dupb does too.
package dupa

// Shared is one of two tools named shared.
//
//kesoku:tool
func Shared() int { return 1 }

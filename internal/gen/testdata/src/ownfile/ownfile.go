// Package ownfile has a tool and a kesoku_gen.go of its own, not
// generated: kesoku gen must refuse to overwrite it.
package ownfile

// Ping answers.
//
//kesoku:tool
func Ping() string { return "pong" }

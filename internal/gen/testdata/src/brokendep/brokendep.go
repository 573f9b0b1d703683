// Package brokendep has a stale generated file that does not compile and
// lacks the build tag; usesdep imports it.
package brokendep

// Version is what usesdep needs from it.
const Version = 2

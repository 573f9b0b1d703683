// Package workspace confines paths that a model supplies to the agent
// working directory (AWD) and the staging directory (SPEC §8). It is a leaf
// package: the file tools and analyze_media both resolve through it.
package workspace

package workspace

import (
	"os"
	"path/filepath"
)

// DirName is the directory at the top of the AWD where kesoku keeps its
// own files; tools never write there.
const DirName = ".kesoku"

// Layout is where kesoku keeps its own files in an AWD: the one place that
// spells out what .kesoku holds.
type Layout struct {
	// AWD is the agent working directory, absolute.
	AWD string
}

// LayoutOf is the layout of kesoku's files in awd.
func LayoutOf(awd string) Layout { return Layout{AWD: awd} }

// Dir is .kesoku itself.
func (l Layout) Dir() string { return filepath.Join(l.AWD, DirName) }

// Outputs is where the whole output of a call cut by --max-output is
// saved.
func (l Layout) Outputs() string { return filepath.Join(l.Dir(), "outputs") }

// Staging is the default staging directory, the agent's inputs.
func (l Layout) Staging() string { return filepath.Join(l.Dir(), "staging") }

// Transcript is the default transcript of the session id.
func (l Layout) Transcript(id string) string {
	return filepath.Join(l.Dir(), "sessions", id+".jsonl")
}

// Batches is where batch state files, and the requests of a batch read
// from standard input, are kept.
func (l Layout) Batches() string { return filepath.Join(l.Dir(), "batches") }

// BatchState is the default state file of the batch id.
func (l Layout) BatchState(id string) string { return filepath.Join(l.Batches(), id+".json") }

// SamePath reports whether a and b name one file: the same name, or two
// names (a link, another spelling) of a file that exists.
func SamePath(a, b string) bool {
	if a == b {
		return true
	}
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

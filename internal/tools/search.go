package tools

import (
	"context"
	"errors"
	"io/fs"

	"github.com/kesoku/kesoku/internal/workspace"
)

// errStop ends a walk early, once a search has what it needs.
var errStop = errors.New("stop the walk")

// kesokuDir is kesoku's own directory at the top of the AWD: session
// transcripts, saved outputs and, by default, staging. A search from the
// top skips it (transcripts would match every earlier result of the
// search itself); staging is searched on its own.
const kesokuDir = workspace.DirName

// walker walks the trees under the places a search starts from.
type walker struct {
	ctx context.Context
	ws  *workspace.Workspace
	// stagingDir is staging's absolute path, skipped when met inside the
	// AWD because a search of the AWD and staging walks staging itself.
	stagingDir string
	// ignores are the .gitignore rules, one set per area walked.
	ignores map[bool]*ignoreSet
	// ignored counts the entries that .gitignore rules kept out.
	ignored int
	steps   int
}

func newWalker(ctx context.Context, ws *workspace.Workspace, bothAreas bool) *walker {
	w := &walker{ctx: ctx, ws: ws, ignores: make(map[bool]*ignoreSet)}
	if bothAreas {
		w.stagingDir = ws.StagingDir()
	}
	return w
}

// walk visits every entry below start (not start itself), depth first,
// names sorted within each directory. It skips .git directories, the
// AWD's .kesoku directory, and what .gitignore files ignore, unless start
// lies inside them: a path named on purpose is searched. visit gets the
// entry's location, its slash-separated path relative to start and its
// DirEntry; it may return fs.SkipDir, or errStop to end the walk.
func (w *walker) walk(start workspace.Location, visit func(loc workspace.Location, rel string, d fs.DirEntry) error) error {
	fsys := start.FS()
	top := start.Rel()
	ign, ok := w.ignores[start.InStaging()]
	if !ok {
		ign = newIgnoreSet(fsys)
		w.ignores[start.InStaging()] = ign
	}
	err := fs.WalkDir(fsys, top, func(p string, d fs.DirEntry, err error) error {
		if w.steps%256 == 0 {
			if err := w.ctx.Err(); err != nil {
				return err
			}
		}
		w.steps++
		if err != nil {
			if p == top {
				return err
			}
			return nil // an unreadable entry below: go on without it
		}
		if p == top {
			return nil
		}
		loc := start.At(p)
		if d.IsDir() {
			if d.Name() == ".git" || (p == kesokuDir && !start.InStaging()) {
				return fs.SkipDir
			}
			if w.stagingDir != "" && !start.InStaging() && loc.Abs() == w.stagingDir {
				return fs.SkipDir
			}
		}
		if ign.ignored(p, d.IsDir()) {
			w.ignored++
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel := p
		if top != "." {
			rel = p[len(top)+1:]
		}
		return visit(loc, rel, d)
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// cutText shortens s to at most n bytes, at a character boundary, marking
// the cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return string(trimPartialRune([]byte(s[:n]))) + "…"
}

package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/workspace"
	"github.com/kesoku/kesoku/registry"
)

// globMaxMatches bounds a glob's result: past a few hundred paths a model
// learns more from a narrower pattern than from the list.
const globMaxMatches = 500

// GlobResult is what glob finds.
type GlobResult struct {
	// Matches are the paths found, as the other tools take them:
	// directories end in "/". They come in walk order: depth first, names
	// sorted within each directory; the working directory before staging.
	Matches []string `json:"matches"`
	// Total is the number of paths that match, more than len(Matches) when
	// the list was cut.
	Total int `json:"total"`
	// Truncated reports whether the list was cut.
	Truncated bool `json:"truncated,omitempty"`
	// Note says what was left out, if anything.
	Note string `json:"note,omitempty"`
}

// Glob finds files and directories whose paths match a pattern.
//
// Patterns use `*` and `?` within a path element, `[abc]` for a class,
// `**` for any number of directories and `{a,b}` for alternatives:
// "**/*.go", "src/**/*.{ts,tsx}", "docs/*.md". .git directories and what
// .gitignore files list are skipped unless the pattern or path names them.
// At most 500 paths are listed.
//
// Args:
//
//	pattern: The glob pattern, relative to path (or absolute inside the
//	  working directory or staging).
//	path: The directory to search. Defaults to "", which searches the
//	  working directory and then staging.
//
//kesoku:tool check=checkPath
func Glob(ctx context.Context, tc *registry.ToolContext, pattern, path string) (*GlobResult, error) {
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, registry.InvalidArg("pattern", fmt.Errorf("pattern %q: %w", pattern, err))
	}
	ws, err := openWorkspace(ctx, tc)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	if path != "" {
		loc, err := locate(ws, "path", path)
		if err != nil {
			return nil, err
		}
		if fi, err := loc.Stat(); err != nil || !fi.IsDir() {
			return nil, registry.InvalidArg("path", fmt.Errorf("path %q is not a directory", path))
		}
	}

	// Each alternative starts from its literal prefix ("src" of
	// "src/**/*.go"); alternatives with the same start share one walk.
	type search struct {
		start workspace.Location
		pat   globPattern
	}
	var searches []*search
	var literals []workspace.Location
	add := func(start workspace.Location, rest []string) {
		for _, s := range searches {
			if s.start.SameAs(start) {
				s.pat.alts = append(s.pat.alts, newGlobAlt(rest))
				return
			}
		}
		searches = append(searches, &search{start: start, pat: globPattern{alts: []globAlt{newGlobAlt(rest)}}})
	}
	for _, alt := range alts {
		elems, err := compileAlt(alt)
		if err != nil {
			return nil, registry.InvalidArg("pattern", fmt.Errorf("pattern %q: %w", pattern, err))
		}
		base, rest := literalPrefix(elems)
		starts, err := globStarts(ws, pattern, path, alt, base)
		if err != nil {
			return nil, err
		}
		for _, start := range starts {
			if len(rest) == 0 {
				literals = append(literals, start)
			} else {
				add(start, rest)
			}
		}
	}

	res := &GlobResult{Matches: []string{}}
	seen := make(map[string]bool)
	found := func(loc workspace.Location, isDir bool) {
		p := loc.Display()
		if isDir && p != "/" {
			p += "/"
		}
		if seen[p] {
			return
		}
		seen[p] = true
		res.Total++
		if len(res.Matches) < globMaxMatches {
			res.Matches = append(res.Matches, p)
		}
	}
	for _, loc := range literals {
		if fi, err := loc.Stat(); err == nil {
			found(loc, fi.IsDir())
		}
	}
	wk := newWalker(ctx, ws, path == "")
	for _, s := range searches {
		if fi, err := s.start.Stat(); err != nil || !fi.IsDir() {
			continue
		}
		err := wk.walk(s.start, func(loc workspace.Location, rel string, d fs.DirEntry) error {
			if s.pat.match(rel) {
				found(loc, d.IsDir())
			}
			if d.IsDir() && !s.pat.mayMatchBelow(rel) {
				return fs.SkipDir
			}
			return nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("search %s: %w", s.start.Display(), err)
		}
	}
	res.Truncated = res.Total > len(res.Matches)
	switch {
	case res.Truncated:
		res.Note = fmt.Sprintf("showing the first %d of %d matches; a narrower pattern or path finds the rest", len(res.Matches), res.Total)
	case res.Total == 0:
		res.Note = fmt.Sprintf("nothing matches %q", pattern)
		if wk.ignored > 0 {
			res.Note += fmt.Sprintf(" outside the %s that .gitignore files exclude; name one in the pattern or path to search it", english.Count(wk.ignored, "entry", "entries"))
		}
	}
	return res, nil
}

// globStarts returns where an alternative of pattern whose literal prefix
// is base starts: base itself, resolved through the workspace, or the
// path argument, or the tops of the AWD and staging. A start that does
// not exist yields nothing; one outside is an invalid argument.
func globStarts(ws *workspace.Workspace, pattern, dir, alt, base string) ([]workspace.Location, error) {
	arg, name := "pattern", base
	switch {
	case strings.HasPrefix(alt, "/"):
		name = "/" + base
	case dir != "" && base != "":
		name = filepath.Join(dir, base)
	case dir != "":
		arg, name = "path", dir
	case base == "":
		return ws.Tops(), nil
	}
	loc, err := ws.Locate(name)
	switch {
	case err == nil:
		return []workspace.Location{loc}, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case workspace.IsRefusal(err) && arg == "pattern":
		return nil, registry.InvalidArg("pattern", fmt.Errorf("pattern %q: %w", pattern, err))
	case workspace.IsRefusal(err):
		return nil, registry.InvalidArg(arg, err)
	default:
		return nil, err
	}
}

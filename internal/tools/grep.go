package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/workspace"
	"github.com/kesoku/kesoku/registry"
)

// The bounds of a grep. Lines longer than grepMaxLineBytes are searched in
// their first grepMaxLineBytes only; a matching line is shown cut to
// grepShowBytes, enough to recognise it without a minified file's whole
// line.
const (
	grepDefaultResults = 100
	grepMaxResults     = 1000
	grepMaxLineBytes   = 64 << 10
	grepShowBytes      = 300
)

// GrepResult is what grep finds.
type GrepResult struct {
	// Matches are the matching lines, each "path:line: text", in walk
	// order: depth first, names sorted within each directory.
	Matches []string `json:"matches"`
	// FilesSearched is how many files were searched; FilesMatched how many
	// of them matched.
	FilesSearched int `json:"files_searched"`
	FilesMatched  int `json:"files_matched"`
	// Truncated reports whether the search stopped at max_results, with
	// more matches left.
	Truncated bool `json:"truncated,omitempty"`
	// Note says what was left out, if anything.
	Note string `json:"note,omitempty"`
}

// Grep searches the lines of text files for a regular expression.
//
// The expression is Go (RE2) syntax, matched against each line. Binary
// files, .git directories and what .gitignore files list are skipped
// unless the path names them. Each match comes as "path:line: text", long
// lines cut to 300 bytes; the search stops after max_results matches.
//
// Args:
//
//	pattern: The regular expression, such as "func \w+Handler" or "TODO|FIXME".
//	path: A file or directory to search. Defaults to "", which searches the
//	  working directory and then staging.
//	glob: Search only files matching this glob: "*.go" matches names at any
//	  depth, a pattern with "/" such as "src/**/*.ts" paths below path.
//	  Defaults to "", which searches every file.
//	ignore_case: Match letters of either case. Defaults to false.
//	max_results: The largest number of matching lines to return, at most
//	  1000. Defaults to 100.
//
//kesoku:tool check=checkPath
func Grep(ctx context.Context, tc *registry.ToolContext, pattern, path, glob string, ignore_case bool, max_results int) (*GrepResult, error) {
	ignoreCase, maxResults := ignore_case, max_results
	if maxResults < 1 {
		return nil, registry.InvalidArg("max_results", fmt.Errorf("%d: ask for at least 1", maxResults))
	}
	var notes []string
	if maxResults > grepMaxResults {
		notes = append(notes, fmt.Sprintf("max_results is at most %d", grepMaxResults))
		maxResults = grepMaxResults
	}
	expr := pattern
	if ignoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, registry.InvalidArg("pattern", err)
	}
	var filter globPattern
	if glob != "" {
		if filter, err = compileGlob(glob); err != nil {
			return nil, registry.InvalidArg("glob", err)
		}
	}
	ws, err := openWorkspace(ctx, tc)
	if err != nil {
		return nil, err
	}
	defer ws.Close()

	starts := ws.Tops()
	if path != "" {
		loc, err := locate(ws, "path", path)
		if err != nil {
			return nil, err
		}
		starts = []workspace.Location{loc}
	}

	g := &grep{ctx: ctx, re: re, max: maxResults, res: &GrepResult{Matches: []string{}}}
	wk := newWalker(ctx, ws, path == "")
	for _, start := range starts {
		fi, err := start.Stat()
		if err != nil {
			return nil, pathArgErr(ws, "path", path, err)
		}
		if !fi.IsDir() && !fi.Mode().IsRegular() {
			// Opening a FIFO would block until a writer came.
			return nil, fmt.Errorf("path %q is not a regular file (%s)", path, fi.Mode().Type())
		}
		if !fi.IsDir() {
			// A file named on purpose is searched whatever the glob says,
			// and a binary one is reported rather than passed over.
			if err := g.file(start, true); err != nil && !errors.Is(err, errStop) {
				return nil, err
			}
			continue
		}
		err = wk.walk(start, func(loc workspace.Location, rel string, d fs.DirEntry) error {
			if !d.Type().IsRegular() {
				return nil // directories are walked; links are not followed
			}
			if glob != "" && !filter.matchFile(rel) {
				return nil
			}
			return g.file(loc, false)
		})
		if errors.Is(err, errStop) {
			break
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("search %s: %w", start.Display(), err)
		}
		if g.res.Truncated {
			break
		}
	}
	res := g.res
	switch {
	case res.Truncated:
		notes = append(notes, fmt.Sprintf("stopped after %s; more remain: narrow the pattern, path or glob, or raise max_results", english.Count(len(res.Matches), "match", "matches")))
	case len(res.Matches) == 0:
		note := fmt.Sprintf("no match in %s", english.Count(res.FilesSearched, "file", "files"))
		if wk.ignored > 0 {
			note += fmt.Sprintf("; %s that .gitignore files exclude were not searched (name one in path to search it)", english.Count(wk.ignored, "entry", "entries"))
		}
		notes = append(notes, note)
	}
	if g.binary > 0 {
		notes = append(notes, fmt.Sprintf("%s skipped as binary", english.Count(g.binary, "file", "files")))
	}
	if g.unreadable > 0 {
		notes = append(notes, fmt.Sprintf("%s could not be read", english.Count(g.unreadable, "file", "files")))
	}
	res.Note = strings.Join(notes, "; ")
	return res, nil
}

// grep is the state of one grep call.
type grep struct {
	ctx        context.Context
	re         *regexp.Regexp
	max        int
	res        *GrepResult
	binary     int
	unreadable int
	lr         *lineReader
}

// file searches one file. named says the file was named by the path
// argument, whose failures are errors rather than counts. It returns
// errStop once max results are found and one more is seen.
func (g *grep) file(loc workspace.Location, named bool) error {
	f, err := loc.Open()
	if err != nil {
		if named {
			return err
		}
		g.unreadable++
		return nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	head, err := br.Peek(sniffLen)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		if named {
			return fmt.Errorf("read %q: %w", loc.Display(), err)
		}
		g.unreadable++
		return nil
	}
	if mime, binary := binaryType(head); binary {
		if named {
			return fmt.Errorf("path %q is a binary file (%s); grep searches text%s", loc.Display(), mime, mediaHint(mime))
		}
		g.binary++
		return nil
	}
	g.res.FilesSearched++
	if g.lr == nil {
		g.lr = newLineReader(br, grepMaxLineBytes)
	} else {
		g.lr.r = br
	}
	matched := false
	for n := 1; ; n++ {
		if n%4096 == 0 {
			if err := g.ctx.Err(); err != nil {
				return err
			}
		}
		l, err := g.lr.next(true)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			g.unreadable++
			return nil
		}
		text := l.text
		if len(text) > 0 && text[len(text)-1] == '\r' {
			text = text[:len(text)-1]
		}
		if !g.re.Match(text) {
			continue
		}
		if len(g.res.Matches) == g.max {
			g.res.Truncated = true
			return errStop
		}
		if !matched {
			matched = true
			g.res.FilesMatched++
		}
		g.res.Matches = append(g.res.Matches, fmt.Sprintf("%s:%d: %s", loc.Display(), n, cutText(string(text), grepShowBytes)))
	}
}

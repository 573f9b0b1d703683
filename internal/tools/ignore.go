package tools

import (
	"bufio"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ignoreMaxBytes bounds how much of a .gitignore file is read.
const ignoreMaxBytes = 1 << 20

// ignoreRule is one line of a .gitignore file.
type ignoreRule struct {
	// pattern is the rule as doublestar matches it, against a path
	// relative to the .gitignore's directory: "**/" in front when the rule
	// is not anchored, braces escaped (gitignore has no alternatives).
	pattern string
	negate  bool // "!pattern": re-include
	dirOnly bool // "pattern/": directories only
}

// parseIgnore parses a .gitignore file: the common subset of
// gitignore(5) — comments, "!" negation, a trailing "/" for directories
// only, a "/" at the start or in the middle to anchor a pattern to the
// file's directory, and `*`, `?`, `[…]` and `**` wildcards.
func parseIgnore(r io.Reader) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(io.LimitReader(r, ignoreMaxBytes))
	sc.Buffer(make([]byte, 0, 4096), ignoreMaxBytes)
	for sc.Scan() {
		line := strings.TrimRight(strings.TrimSuffix(sc.Text(), "\r"), " \t")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, `\`) {
			line = line[1:] // "\#", "\!": a literal first character
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		anchored := strings.Contains(line, "/")
		elems := splitPattern(escapeBraces(line))
		if len(elems) == 0 {
			continue
		}
		if !anchored {
			elems = append([]string{"**"}, elems...)
		}
		r.pattern = strings.Join(elems, "/")
		if !doublestar.ValidatePattern(r.pattern) {
			continue // git ignores a malformed pattern too
		}
		rules = append(rules, r)
	}
	return rules
}

// ignoreSet holds the .gitignore rules of the directories a walk has
// seen, read through the walk's confined file system.
type ignoreSet struct {
	fsys  fs.FS
	rules map[string][]ignoreRule // by directory, slash-separated, "." for the top
}

func newIgnoreSet(fsys fs.FS) *ignoreSet {
	return &ignoreSet{fsys: fsys, rules: make(map[string][]ignoreRule)}
}

// rulesOf returns the rules of dir's .gitignore, reading it once.
func (s *ignoreSet) rulesOf(dir string) []ignoreRule {
	if rules, ok := s.rules[dir]; ok {
		return rules
	}
	var rules []ignoreRule
	name := path.Join(dir, ".gitignore")
	// Stat before opening: opening a FIFO would block until a writer came.
	if fi, err := fs.Stat(s.fsys, name); err == nil && fi.Mode().IsRegular() {
		if f, err := s.fsys.Open(name); err == nil {
			rules = parseIgnore(f)
			f.Close()
		}
	}
	s.rules[dir] = rules
	return rules
}

// ignored reports whether the entry at name (slash-separated, relative to
// the file system's top) is ignored by the .gitignore files of its
// directory and the directories above it, up to the top. As in git, the
// deepest file that has a matching rule decides, and within a file the
// last matching rule.
func (s *ignoreSet) ignored(name string, isDir bool) bool {
	dir := path.Dir(name)
	for {
		rel := name
		if dir != "." {
			rel = name[len(dir)+1:]
		}
		rules := s.rulesOf(dir)
		for i := len(rules) - 1; i >= 0; i-- {
			r := rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			if doublestar.MatchUnvalidated(r.pattern, rel) {
				return !r.negate
			}
		}
		if dir == "." || dir == "/" {
			return false
		}
		dir = path.Dir(dir)
	}
}

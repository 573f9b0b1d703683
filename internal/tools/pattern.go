package tools

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// maxAlternatives bounds brace expansion: "{a,b}{c,d}…" multiplies, and a
// pattern is not a way to make the tool do unbounded work.
const maxAlternatives = 256

// globPattern is a compiled glob pattern: doublestar's syntax (path.Match
// per path element, `**` for any number of elements), with `{a,b}`
// alternatives expanded first, so that each alternative can start its own
// search from its literal prefix. It is matched against slash-separated
// paths relative to where the search starts.
type globPattern struct {
	alts []globAlt
}

// globAlt is one brace-free alternative of a pattern.
type globAlt struct {
	// pattern is the alternative as doublestar takes it: cleaned, with
	// the braces that expansion left (a literal "{a}") escaped.
	pattern string
	// elems are its elements.
	elems []string
}

// newGlobAlt makes an alternative of a cleaned, escaped pattern's
// elements.
func newGlobAlt(elems []string) globAlt {
	return globAlt{pattern: strings.Join(elems, "/"), elems: elems}
}

// compileGlob compiles pattern, reporting a malformed one.
func compileGlob(pattern string) (globPattern, error) {
	if pattern == "" {
		return globPattern{}, errors.New("empty pattern")
	}
	alts, err := expandBraces(pattern)
	if err != nil {
		return globPattern{}, fmt.Errorf("pattern %q: %w", pattern, err)
	}
	var g globPattern
	for _, a := range alts {
		elems, err := compileAlt(a)
		if err != nil {
			return globPattern{}, fmt.Errorf("pattern %q: %w", pattern, err)
		}
		g.alts = append(g.alts, newGlobAlt(elems))
	}
	return g, nil
}

// compileAlt splits one brace-free alternative of a pattern into its
// elements, escaping what braces are left, and checks it.
func compileAlt(alt string) ([]string, error) {
	elems := splitPattern(escapeBraces(alt))
	for _, e := range elems {
		if !doublestar.ValidatePattern(e) {
			return nil, fmt.Errorf("malformed element %q", e)
		}
	}
	return elems, nil
}

// escapeBraces escapes the braces of p, which doublestar would read as
// alternatives: what brace expansion left is literal.
func escapeBraces(p string) string {
	if !strings.ContainsAny(p, "{}") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\\':
			b.WriteByte(c)
			if i+1 < len(p) {
				i++
				b.WriteByte(p[i])
			}
		case '{', '}':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// splitPattern splits a pattern into elements, dropping empty and "."
// elements and collapsing runs of `**`, which match the same.
func splitPattern(p string) []string {
	var elems []string
	for e := range strings.SplitSeq(p, "/") {
		if e == "" || e == "." {
			continue
		}
		if e == "**" && len(elems) > 0 && elems[len(elems)-1] == "**" {
			continue
		}
		elems = append(elems, e)
	}
	return elems
}

// match reports whether the slash-separated path rel matches any
// alternative.
func (g globPattern) match(rel string) bool {
	for _, a := range g.alts {
		if doublestar.MatchUnvalidated(a.pattern, rel) {
			return true
		}
	}
	return false
}

// mayMatchBelow reports whether anything below the directory dir (a
// slash-separated path relative to the search's start) can match, so
// that a search skips directories that cannot.
func (g globPattern) mayMatchBelow(dir string) bool {
	if dir == "." {
		return true
	}
	names := strings.Split(dir, "/")
	for _, a := range g.alts {
		if prefixMayMatch(a.elems, names) {
			return true
		}
	}
	return false
}

// prefixMayMatch reports whether names can be the start of a path that
// pat matches.
func prefixMayMatch(pat, names []string) bool {
	for i, n := range names {
		if i >= len(pat) {
			return false
		}
		if pat[i] == "**" {
			return true
		}
		if !doublestar.MatchUnvalidated(pat[i], n) {
			return false
		}
	}
	return true
}

// literalPrefix splits a pattern alternative into its leading elements
// free of wildcards, the directory a search can start from, and the rest.
func literalPrefix(elems []string) (base string, rest []string) {
	i := 0
	for i < len(elems) && !strings.ContainsAny(elems[i], `*?[\`) {
		i++
	}
	return strings.Join(elems[:i], "/"), elems[i:]
}

// expandBraces expands `{a,b}` alternatives, nested or in sequence, as a
// shell does. A brace without its partner, or without a comma inside, is
// literal.
func expandBraces(p string) ([]string, error) {
	start, end, commas := findBraces(p)
	if start < 0 {
		return []string{p}, nil
	}
	prefix, suffix := p[:start], p[end+1:]
	var out []string
	from := start + 1
	for _, c := range append(commas, end) {
		alts, err := expandBraces(prefix + p[from:c] + suffix)
		if err != nil {
			return nil, err
		}
		out = append(out, alts...)
		if len(out) > maxAlternatives {
			return nil, fmt.Errorf("braces expand to more than %d alternatives", maxAlternatives)
		}
		from = c + 1
	}
	return out, nil
}

// findBraces finds the first `{` that has a matching `}` with a comma
// between them at its own depth, skipping characters escaped by `\`.
func findBraces(p string) (start, end int, commas []int) {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			depth := 0
			var cs []int
			for j := i; j < len(p); j++ {
				switch p[j] {
				case '\\':
					j++
				case '{':
					depth++
				case '}':
					depth--
					if depth == 0 {
						if len(cs) > 0 {
							return i, j, cs
						}
						j = len(p) // no comma: literal; look further on
					}
				case ',':
					if depth == 1 {
						cs = append(cs, j)
					}
				}
			}
		}
	}
	return -1, -1, nil
}

// matchFile matches a file's slash-separated path rel for grep's glob
// filter: an alternative of one element ("*.go") matches the file's name
// at any depth, as in ripgrep and .gitignore; a longer one the whole path.
func (g globPattern) matchFile(rel string) bool {
	name := path.Base(rel)
	for _, a := range g.alts {
		if len(a.elems) == 1 && a.elems[0] != "**" {
			if doublestar.MatchUnvalidated(a.elems[0], name) {
				return true
			}
		} else if doublestar.MatchUnvalidated(a.pattern, rel) {
			return true
		}
	}
	return false
}

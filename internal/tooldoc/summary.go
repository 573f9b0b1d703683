// Package tooldoc holds the rules by which a tool is described: its summary
// and the struct tags of its fields.
//
// kesoku gen (reading Go source) and typed registration (reading types by
// reflection) both apply them, so that a tool reads the same either way: the
// summary of its description (which the tools from outside, command
// tools and MCP servers' tools, are given too), and the struct tags that
// name, describe and limit its fields.
package tooldoc

import (
	"strings"
	"unicode/utf8"
)

// Summary returns a tool's summary, the line `tools list` shows: the
// first sentence of its description's first paragraph: up to a full
// stop, question or exclamation mark followed by a space (not after "e.g."
// and the like), or an ideographic one.
func Summary(p string) string {
	p = strings.TrimSpace(p)
	for i, r := range p {
		switch r {
		case '.', '!', '?':
			next := i + 1
			if next < len(p) && p[next] != ' ' && p[next] != '\n' && p[next] != '\t' {
				continue
			}
			if r == '.' && abbreviation(p[:i]) {
				continue
			}
			return strings.TrimSpace(p[:next])
		case '。', '！', '？':
			return strings.TrimSpace(p[:i+utf8.RuneLen(r)])
		case '\n':
			// A line break inside a paragraph only survives in lists and
			// code: the sentence ends with the line.
			return strings.TrimSpace(p[:i])
		}
	}
	return p
}

var abbreviations = []string{"e.g", "i.e", "etc", "vs", "cf", "approx", "Mr", "Mrs", "Dr", "St", "No"}

// abbreviation reports whether before ends in an abbreviation whose full
// stop does not end a sentence.
func abbreviation(before string) bool {
	word := before
	if i := strings.LastIndexAny(before, " (\t\n"); i >= 0 {
		word = before[i+1:]
	}
	for _, a := range abbreviations {
		if strings.EqualFold(word, a) {
			return true
		}
	}
	// A single capital letter is an initial: "J. Doe".
	return len(word) == 1 && word[0] >= 'A' && word[0] <= 'Z'
}

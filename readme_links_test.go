package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestReadmeLinks checks that every relative link of README.md and
// docs/*.md names a file of the repository and, after a #, a heading of
// that file, as GitHub makes anchors of headings: a moved section or a
// renamed heading leaves no link pointing nowhere. And the README links
// every page of docs/.
func TestReadmeLinks(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	// A page of docs/ that the README does not link is a page no reader
	// finds.
	for _, name := range docs {
		if !strings.Contains(string(readme), "]("+filepath.ToSlash(name)) {
			t.Errorf("README.md links nowhere to %s", name)
		}
	}
	for _, name := range append([]string{"README.md"}, docs...) {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(withoutCode(string(data)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := name
			if file != "" {
				path = filepath.Join(filepath.Dir(name), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %s, which is not there", name, target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			text, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("%s links to %s: %v", name, target, err)
				continue
			}
			if !anchors(string(text))[anchor] {
				t.Errorf("%s links to %s, but %s has no heading with that anchor", name, target, path)
			}
		}
	}
}

// withoutCode leaves out fenced code blocks, whose brackets are not links.
func withoutCode(md string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if !in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// anchors returns the anchors GitHub gives a Markdown file's headings:
// lower case, spaces to hyphens, punctuation but hyphens and underscores
// dropped, a repeated one numbered.
func anchors(md string) map[string]bool {
	got := map[string]bool{}
	seen := map[string]int{}
	for _, line := range strings.Split(withoutCode(md), "\n") {
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			got[a+"-"+strconv.Itoa(n)] = true
		} else {
			got[a] = true
		}
		seen[a]++
	}
	return got
}

package media

import (
	"bytes"
	"compress/zlib"
	"io"
	"regexp"
	"strconv"
	"sync"
)

// Claude takes at most 100 pages of PDF per request and refuses more
// after the file went over the wire; kesoku counts them first, so that a
// long PDF is refused before anything is spent. Counting needs only the
// page tree's root: the parentless /Type /Pages dictionary, whose /Count
// is the number of pages. It may sit in the file as text, or (PDF 1.5+)
// inside a compressed object stream. A file updated in place holds its
// older roots too; the last one written is the one in force.

// maxInflated bounds what the object streams of one file may inflate to,
// together: a zip bomb must cost little.
const maxInflated = 64 << 20

// pdfRE are the patterns a PDF's page tree is read with, compiled at the
// first PDF rather than at the start of every process.
var pdfRE = sync.OnceValue(func() *pdfPatterns {
	return &pdfPatterns{
		pagesType: regexp.MustCompile(`/Type\s*/Pages\b`),
		pageType:  regexp.MustCompile(`/Type\s*/Page\b`),
		countKey:  regexp.MustCompile(`/Count\s+(\d{1,9})\b`),
		parentKey: regexp.MustCompile(`/Parent\s`),
		objStm:    regexp.MustCompile(`/Type\s*/ObjStm\b`),
		flate:     regexp.MustCompile(`/Filter\s*(?:\[\s*)?/FlateDecode\b`),
		streamKw:  regexp.MustCompile(`stream\r?\n`),
	}
})

type pdfPatterns struct {
	pagesType, pageType, countKey, parentKey, objStm, flate, streamKw *regexp.Regexp
}

// pdfPages is the number of pages of the PDF data, as its page tree's
// root says; 0 when it cannot tell.
func pdfPages(data []byte) int {
	n, found := rootCount(data)
	for _, inner := range objectStreams(data) {
		if m, ok := rootCount(inner); ok {
			n, found = m, true
		}
	}
	if found {
		return n
	}
	// No root found: count the page objects in sight.
	return len(pdfRE().pageType.FindAllIndex(data, -1))
}

// rootCount is the /Count of the last parentless /Type /Pages dictionary
// in text.
func rootCount(text []byte) (n int, found bool) {
	locs := pdfRE().pagesType.FindAllIndex(text, maxNodes+1)
	if len(locs) > maxNodes {
		return 0, false
	}
	for _, loc := range locs {
		start, end, ok := enclosingDict(text, loc[0])
		if !ok {
			continue
		}
		dict := text[start:end]
		if pdfRE().parentKey.Match(dict) {
			continue
		}
		if m := pdfRE().countKey.FindSubmatch(dict); m != nil {
			n, _ = strconv.Atoi(string(m[1]))
			found = true
		}
	}
	return n, found
}

// maxDict bounds how far a dictionary is looked for around a key: the
// dictionaries counted are small, and a file made of keys alone must not
// cost a scan of the whole file per key.
const maxDict = 4 << 10

// maxNodes bounds the /Type /Pages dictionaries looked at: a page tree of
// a hundred thousand pages has a few thousand.
const maxNodes = 10_000

// enclosingDict is where the dictionary (<< … >>) of text around at
// starts and ends; ok is false when at is in none.
func enclosingDict(text []byte, at int) (start, end int, ok bool) {
	depth := 0
	start = -1
	for i := at; i > 0 && at-i < maxDict; i-- {
		switch {
		case text[i-1] == '>' && text[i] == '>':
			depth++
			i--
		case text[i-1] == '<' && text[i] == '<':
			if depth == 0 {
				start = i - 1
			} else {
				depth--
			}
			i--
		}
		if start >= 0 {
			break
		}
	}
	if start < 0 {
		return 0, 0, false
	}
	depth = 0
	for i := start; i+1 < len(text) && i-start < maxDict; i++ {
		switch {
		case text[i] == '<' && text[i+1] == '<':
			depth++
			i++
		case text[i] == '>' && text[i+1] == '>':
			depth--
			i++
			if depth == 0 {
				return start, i + 1, true
			}
		}
	}
	return 0, 0, false
}

// objectStreams returns the inflated content of every Flate-compressed
// object stream of the PDF, in the order they come.
func objectStreams(data []byte) [][]byte {
	var out [][]byte
	budget := int64(maxInflated)
	for _, loc := range pdfRE().objStm.FindAllIndex(data, maxNodes) {
		start, end, ok := enclosingDict(data, loc[0])
		if !ok || !pdfRE().flate.Match(data[start:end]) {
			continue
		}
		after := data[end:]
		kw := pdfRE().streamKw.FindIndex(after)
		if kw == nil || len(bytes.TrimSpace(after[:kw[0]])) != 0 {
			continue
		}
		body := after[kw[1]:]
		if e := bytes.Index(body, []byte("endstream")); e >= 0 {
			body = body[:e]
		}
		zr, err := zlib.NewReader(bytes.NewReader(body))
		if err != nil {
			continue
		}
		inner, _ := io.ReadAll(io.LimitReader(zr, budget))
		zr.Close()
		out = append(out, inner)
		if budget -= int64(len(inner)); budget <= 0 {
			break
		}
	}
	return out
}

package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// docLine is one line of a doc comment without its comment markers, and
// the file line it came from, so that a mistake can be reported where it is.
type docLine struct {
	Text string
	Line int
}

// doc is a Google-style doc comment, parsed:
//
//	CalculateSum adds two integers.
//
//	More about it.
//
//	Args:
//	  a: the first integer.
//	  b: the second integer. Defaults to 0.
//
//	Returns:
//	  the sum.
type doc struct {
	// Paragraphs are the body's paragraphs, outside any section. Prose
	// lines are joined; indented blocks (code, lists) keep their lines.
	Paragraphs []string
	// HasArgs says an Args section was present, possibly empty.
	HasArgs bool
	Args    []*argDoc
	// Returns is the Returns section's text.
	Returns string
}

// argDoc is one entry of the Args section.
type argDoc struct {
	Name string
	// Text is the entry's description, continuation lines joined.
	Text string
	Line int

	// Default is the X of "Defaults to X.", decoded from JSON; a bare word
	// that is not JSON is a string. DefaultBare says X was not written as
	// JSON, so that a string parameter can take it as it stands ("10").
	HasDefault  bool
	Default     any
	DefaultText string
	DefaultBare bool

	// Enum is the list of "Must be one of: a, b.".
	Enum []string
}

// docError is a mistake in a doc comment, at a file line.
type docError struct {
	Line int
	Msg  string
}

type sectionKind int

const (
	sectionNone sectionKind = iota
	sectionArgs
	sectionReturns
)

// lazyRegexp compiles pattern on first use. kesoku gen is one command of
// many in the binary that imports this package, and compiling its patterns
// at init made this package's the costliest init of every other command,
// `kesoku tools list` included.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// headerRE matches a section header: "Args:", "Returns: the sum.". A
// full-width colon is accepted, as Chinese text is written with one.
var headerRE = lazyRegexp(`^(Args|Arguments|Parameters|Params|Returns|Return|Yields|参数|返回|返回值)\s*[:：]\s*(.*)$`)

// entryRE matches the first line of an Args entry: "name: text", "name
// (int): text", "名字：text". An ASCII colon must be followed by a space or
// the end of the line, so that "see http://x" is not an entry.
var entryRE = lazyRegexp(`^([\p{L}_][\p{L}\p{N}_]*)\s*(?:\([^()]*\))?\s*(?::(?:\s+|$)|：\s*)(.*)$`)

// parseDoc parses the lines of a doc comment (directives already removed).
func parseDoc(lines []docLine) (*doc, []docError) {
	p := &docParser{lines: lines, base: -1}
	return p.parse()
}

type docParser struct {
	lines []docLine
	// base is the indentation of the comment's prose: that of its first
	// non-blank line. Section headers sit at it.
	base int
	d    doc
	errs []docError
}

func (p *docParser) errorf(line int, format string, args ...any) {
	p.errs = append(p.errs, docError{Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *docParser) parse() (*doc, []docError) {
	for _, l := range p.lines {
		if strings.TrimSpace(l.Text) != "" {
			p.base = indentOf(l.Text)
			break
		}
	}
	var body []docLine
	seen := map[sectionKind]int{}
	i := 0
	for i < len(p.lines) {
		l := p.lines[i]
		kind, rest := p.header(l.Text)
		if kind == sectionNone {
			body = append(body, l)
			i++
			continue
		}
		if prev, ok := seen[kind]; ok {
			p.errorf(l.Line, "second %s section (the first is at line %d)", sectionName(kind), prev)
		}
		seen[kind] = l.Line
		var n int
		if kind == sectionArgs {
			p.d.HasArgs = true
			n = p.args(i, rest)
		} else {
			n = p.returns(i, rest)
		}
		i += n
		// A section ends where the prose resumes: keep a blank line so
		// that what follows starts a new paragraph.
		body = append(body, docLine{Line: l.Line})
	}
	p.d.Paragraphs = paragraphs(body, p.base)
	return &p.d, p.errs
}

func sectionName(k sectionKind) string {
	if k == sectionArgs {
		return "Args:"
	}
	return "Returns:"
}

// header reports whether text is a section header at the base indentation.
func (p *docParser) header(text string) (sectionKind, string) {
	if strings.TrimSpace(text) == "" || indentOf(text) != p.base {
		return sectionNone, ""
	}
	m := headerRE().FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return sectionNone, ""
	}
	switch m[1] {
	case "Args", "Arguments", "Parameters", "Params", "参数":
		return sectionArgs, m[2]
	}
	return sectionReturns, m[2]
}

// args parses the Args section whose header is at line i and returns how
// many lines it spans.
func (p *docParser) args(start int, inline string) int {
	var cur *argDoc
	var text []string
	finish := func() {
		if cur == nil {
			return
		}
		cur.Text = joinProse(text)
		p.entryDetails(cur)
		p.d.Args = append(p.d.Args, cur)
		cur, text = nil, nil
	}
	startEntry := func(line int, s string) bool {
		m := entryRE().FindStringSubmatch(s)
		if m == nil {
			return false
		}
		finish()
		cur = &argDoc{Name: m[1], Line: line}
		if t := strings.TrimSpace(m[2]); t != "" {
			text = append(text, t)
		}
		return true
	}
	if inline != "" {
		// The next line, if it is an entry, says where entries start.
		if !startEntry(p.lines[start].Line, inline) {
			p.errorf(p.lines[start].Line, "Args: %q is not an entry of the form \"name: description\"", inline)
		}
	}
	n := p.section(start, -1, func(l docLine, s string, ind, entryIndent int, afterBlank bool) bool {
		if ind < entryIndent {
			return false
		}
		if ind == entryIndent {
			if startEntry(l.Line, s) {
				return true
			}
			// Unindented entries end at a blank line followed by prose.
			if afterBlank && entryIndent <= p.base {
				return false
			}
		}
		if cur == nil {
			p.errorf(l.Line, "Args: %q is not an entry of the form \"name: description\"", s)
			return true
		}
		text = append(text, s)
		return true
	})
	finish()
	return n
}

// returns parses the Returns section whose header is at line i and returns
// how many lines it spans.
func (p *docParser) returns(start int, inline string) int {
	var text []string
	if inline != "" {
		text = append(text, inline)
	}
	contentIndent := -1
	if inline != "" {
		contentIndent = p.base
	}
	n := p.section(start, contentIndent, func(_ docLine, s string, ind, indent int, afterBlank bool) bool {
		if ind < indent || afterBlank && ind <= p.base && indent <= p.base {
			return false
		}
		if afterBlank {
			text = append(text, "")
		}
		text = append(text, s)
		return true
	})
	var paras []string
	var cur []string
	for _, t := range append(text, "") {
		if t == "" {
			if len(cur) > 0 {
				paras = append(paras, joinProse(cur))
			}
			cur = nil
			continue
		}
		cur = append(cur, t)
	}
	p.d.Returns = strings.Join(paras, "\n\n")
	return n
}

// section walks the lines of the section whose header is at start,
// calling line with each non-blank one: its text trimmed, its
// indentation, the section's indentation (indent, or where that is
// negative the first line's) and whether blank lines came before it. The
// section ends at the next header, at the end of the comment, or where
// line returns false. section returns how many lines it spans: blank lines
// at its end belong to the prose that follows.
func (p *docParser) section(start, indent int, line func(l docLine, s string, ind, indent int, afterBlank bool) bool) int {
	i := start + 1
	sawBlank := false
	for ; i < len(p.lines); i++ {
		l := p.lines[i]
		s := strings.TrimSpace(l.Text)
		if s == "" {
			sawBlank = true
			continue
		}
		if k, _ := p.header(l.Text); k != sectionNone {
			break
		}
		ind := indentOf(l.Text)
		if indent < 0 {
			indent = ind
		}
		if !line(l, s, ind, indent, sawBlank) {
			break
		}
		sawBlank = false
	}
	for i > start+1 && strings.TrimSpace(p.lines[i-1].Text) == "" {
		i--
	}
	return i - start
}

// entryDetails reads "Defaults to X." and "Must be one of: a, b." from an
// entry's text.
func (p *docParser) entryDetails(a *argDoc) {
	if loc := defaultsRE().FindStringIndex(a.Text); loc != nil {
		v, raw, bare, err := parseDefault(a.Text[loc[1]:])
		if err != nil {
			p.errorf(a.Line, "Args entry %q: Defaults to: %v", a.Name, err)
		} else {
			a.HasDefault, a.Default, a.DefaultText, a.DefaultBare = true, v, raw, bare
		}
	}
	if loc := enumRE().FindStringIndex(a.Text); loc != nil {
		values, err := parseEnum(a.Text[loc[1]:])
		if err != nil {
			p.errorf(a.Line, "Args entry %q: Must be one of: %v", a.Name, err)
		} else {
			a.Enum = values
		}
	}
}

var (
	defaultsRE = lazyRegexp(`(?:^|[\s(（])[Dd]efaults to(?:\s+|$)`)
	enumRE     = lazyRegexp(`(?:^|[\s(（])[Mm]ust be one of\s*[:：]?\s*`)
)

// parseDefault reads the X of "Defaults to X." from s, which starts at X.
// X is a JSON value, a quoted string (`x`, 'x') or a bare word, which is a
// string unless it is JSON (10, true, null).
func parseDefault(s string) (v any, raw string, bare bool, err error) {
	if s == "" {
		return nil, "", false, fmt.Errorf("no value after \"Defaults to\"")
	}
	switch s[0] {
	case '"', '[', '{':
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return nil, "", false, fmt.Errorf("%q is not valid JSON: %v", clip(s), err)
		}
		raw = s[:dec.InputOffset()]
		return v, raw, false, nil
	case '`', '\'':
		end := strings.IndexByte(s[1:], s[0])
		if end < 0 {
			return nil, "", false, fmt.Errorf("%q has no closing %c", clip(s), s[0])
		}
		return s[1 : end+1], s[:end+2], false, nil
	}
	raw = strings.TrimSpace(s[:sentenceEnd(s, true)])
	if raw == "" {
		return nil, "", false, fmt.Errorf("no value after \"Defaults to\"")
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err == nil && dec.InputOffset() == int64(len(raw)) {
		return v, raw, true, nil
	}
	return raw, raw, true, nil
}

// parseEnum reads the list of "Must be one of: a, b, or c." from s, which
// starts at the first value.
func parseEnum(s string) ([]string, error) {
	list := strings.TrimSpace(s[:sentenceEnd(s, false)])
	if list == "" {
		return nil, fmt.Errorf("no values")
	}
	var values []string
	seen := map[string]bool{}
	for _, part := range enumSepRE().Split(list, -1) {
		v := strings.TrimSpace(part)
		v = strings.TrimPrefix(v, "or ")
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '`' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		if v == "" {
			return nil, fmt.Errorf("empty value in %q", list)
		}
		if seen[v] {
			return nil, fmt.Errorf("%q listed twice", v)
		}
		seen[v] = true
		values = append(values, v)
	}
	return values, nil
}

var enumSepRE = lazyRegexp(`\s*[,，、]\s*|\s+or\s+`)

// sentenceEnd returns where the sentence that s starts ends: at a full stop
// followed by a space or the end, an ideographic full stop, or, for a
// default's bare value, a semicolon or a comma followed by a space.
func sentenceEnd(s string, value bool) int {
	for i, r := range s {
		switch r {
		case '.':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t' || s[i+1] == '\n' {
				return i
			}
		case '。', '；':
			return i
		case ';', '，':
			if value {
				return i
			}
		case ',':
			if value && (i+1 == len(s) || s[i+1] == ' ') {
				return i
			}
		}
	}
	return len(s)
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	n := 40
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// indentOf measures a line's leading white space, a tab counting as four
// spaces. Only comparisons between lines of one comment matter.
func indentOf(s string) int {
	n := 0
	for _, r := range s {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

// paragraphs groups body lines into paragraphs. A paragraph with a line
// at the base indentation is prose: its lines are joined, except that list
// items keep their own lines. A paragraph indented as a whole (code, an
// indented list) keeps its lines, less their common indentation.
func paragraphs(lines []docLine, base int) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) == 0 {
			return
		}
		least := -1
		for _, l := range cur {
			if ind := indentOf(l); least < 0 || ind < least {
				least = ind
			}
		}
		if least > base {
			out = append(out, dedent(cur))
		} else {
			out = append(out, joinProseKeepingLists(cur))
		}
		cur = nil
	}
	for _, l := range lines {
		if strings.TrimSpace(l.Text) == "" {
			flush()
			continue
		}
		cur = append(cur, strings.TrimRightFunc(l.Text, unicode.IsSpace))
	}
	flush()
	return out
}

func dedent(lines []string) string {
	least := -1
	for _, l := range lines {
		if ind := indentOf(l); least < 0 || ind < least {
			least = ind
		}
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		// Cut whole characters of white space up to the least indentation.
		ind := 0
		j := 0
		for j < len(l) && ind < least && (l[j] == ' ' || l[j] == '\t') {
			if l[j] == '\t' {
				ind += 4 - ind%4
			} else {
				ind++
			}
			j++
		}
		b.WriteString(l[j:])
	}
	return b.String()
}

var listItemRE = lazyRegexp(`^(?:[-*+•]|\d+[.)])\s`)

func joinProseKeepingLists(lines []string) string {
	var parts []string
	var cur []string
	for _, l := range lines {
		s := strings.TrimSpace(l)
		if listItemRE().MatchString(s) && len(cur) > 0 {
			parts = append(parts, joinProse(cur))
			cur = nil
		}
		cur = append(cur, s)
	}
	parts = append(parts, joinProse(cur))
	return strings.Join(parts, "\n")
}

// joinProse joins wrapped lines with a space, or with nothing between
// Chinese or Japanese characters, which are written without spaces.
func joinProse(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if b.Len() > 0 {
			last, _ := utf8.DecodeLastRuneInString(b.String())
			first, _ := utf8.DecodeRuneInString(l)
			if !wide(last) && !wide(first) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

// wide reports whether r is a CJK character or full-width punctuation.
func wide(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) ||
		r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF
}

// encodeJSON encodes v compactly, without HTML escapes.
func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/jsonschema"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// Case is one task of an eval: a prompt for a session, and what the
// session is expected to do.
type Case struct {
	// ID names the case: its id, or case_N for the N-th case of the run.
	ID string
	// Pos is where the case is written.
	Pos yamlpos.Pos
	// Prompt is the user's prompt; System the system instruction.
	Prompt, System string
	// Tools chooses the tools offered, as --tools does; nil for the
	// command's choice.
	Tools []string
	// MaxTurns bounds the session's turns (0: the command's); Repeat is
	// how many times the case runs (0: the command's --repeat).
	MaxTurns, Repeat int
	Expect           Expect
	// unnamed says the file gave no id: ID is the case's place, renamed
	// when other files come before it.
	unnamed bool
}

// byteOrderMark is the UTF-8 byte order mark some editors write at the
// start of a file: no part of the file's first case, as it is none of a
// request file's first request.
const byteOrderMark = "\uFEFF"

// Limits on what an eval file may be: the YAML parser takes time that
// grows fast with a file's size, and a YAML or JSON file is parsed whole.
const (
	// MaxFileSize bounds a YAML or JSON eval file; a JSON Lines file may
	// be of any size, MaxLineSize bounding each line.
	MaxFileSize = 16 << 20
	MaxLineSize = 4 << 20
	maxDepth    = 64
	// MaxRepeat bounds a case's repeat.
	MaxRepeat = 1000
)

// caseKeys and expectKeys are the keys of a case and of its expect.
var (
	caseKeys     = []string{"id", "prompt", "system", "tools", "max_turns", "repeat", "expect"}
	expectKeys   = []string{"tools_called", "tools_not_called", "tool_sequence", "answer", "max_turns", "max_tokens"}
	sequenceKeys = []string{"calls", "mode"}
	callKeys     = []string{"name", "args"}
	answerKeys   = []string{"contains", "regex", "equals", "json_schema"}
)

// read reads the file, handing each case to r.emit as it is read.
func (r *reader) read() error {
	path := r.file
	if path == "-" {
		// Its format is known by a file's extension, which "-" has not.
		return errors.New("-: eval reads its cases from files (.yaml, .yml, .json, .jsonl or .ndjson), not from standard input")
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", path)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return r.lines(f)
	case ".yaml", ".yml", ".json":
	default:
		return fmt.Errorf("%s: an eval file is .yaml, .yml, .json, .jsonl or .ndjson", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return err
	}
	if len(data) > MaxFileSize {
		return fmt.Errorf("%s: larger than %d MiB: write a larger eval as JSON Lines", path, MaxFileSize>>20)
	}
	data = bytes.TrimPrefix(data, []byte(byteOrderMark))
	if strings.EqualFold(filepath.Ext(path), ".json") {
		if err := r.checkJSON(data); err != nil {
			return err
		}
		crAsSpace(data)
	}
	docs, err := r.parse(data)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if err := r.document(d.Body); err != nil {
			return err
		}
	}
	return r.done()
}

// lines reads a JSON Lines eval: a case per line, blank lines skipped. A
// line is read by the JSON reader of cases, and by the YAML parser only
// when that one finds something it does not take (a mistake, a value it
// leaves to it), so that every mistake is worded and placed as in a YAML
// file.
func (r *reader) lines(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, MaxLineSize)
	for sc.Scan() {
		r.line++
		raw := sc.Bytes()
		if r.line == 1 {
			raw = bytes.TrimPrefix(raw, []byte(byteOrderMark))
		}
		line := bytes.TrimLeftFunc(raw, unicode.IsSpace)
		if rest, ok := bytes.CutPrefix(line, []byte(byteOrderMark)); ok {
			line = bytes.TrimLeftFunc(rest, unicode.IsSpace) // where files were joined
		}
		r.indent = len(raw) - len(line)
		if line = bytes.TrimRightFunc(line, unicode.IsSpace); len(line) == 0 {
			continue
		}
		if line[0] != '{' {
			notObject := &yamlpos.NodeError{Pos: yamlpos.Pos{File: r.file, Line: r.line, Col: r.indent + 1}, Msg: "a line of a JSON Lines eval is one case, an object"}
			if err := r.mistaken(nil, notObject); err != nil {
				return err
			}
			continue
		}
		if c, ok := r.fast(line); ok {
			if err := r.name(c, c.ID == ""); err != nil {
				if err := r.mistaken(c, err); err != nil {
					return err
				}
				continue
			}
			if err := r.emit(c); err != nil {
				return err
			}
			r.n++
			continue
		}
		if err := r.checkJSON(line); err != nil {
			if err := r.mistaken(nil, err); err != nil {
				return err
			}
			continue
		}
		crAsSpace(line)
		docs, err := r.parse(line)
		if err != nil {
			if err := r.mistaken(nil, err); err != nil {
				return err
			}
			continue
		}
		for _, d := range docs {
			if err := r.oneCase(d.Body); err != nil {
				return err
			}
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &yamlpos.NodeError{Pos: yamlpos.Pos{File: r.file, Line: r.line + 1, Col: 1}, Msg: fmt.Sprintf("a line longer than %d MiB", MaxLineSize>>20)}
		}
		return err
	}
	return r.done()
}

// reader reads the cases of one file.
type reader struct {
	file string
	// line is the line of a JSON Lines file being read: positions in it
	// are on that line, indent bytes on. 0 for a whole document.
	line, indent int
	// n is how many cases the file gave so far.
	n int
	// ids are the ids of the file's cases so far, an unnamed one's its
	// place in the file.
	ids idIndex
	// emit takes each case, checked, in order.
	emit func(*Case) error
	// mistake, when set, takes the mistake of a case (c as far as it was
	// read, nil when nothing of it could be) and the file is read on, the
	// case counted in its place; when nil, the first mistake ends the read.
	mistake func(c *Case, err *yamlpos.NodeError) error
	// jdec and jbuf read the lines of JSON Lines (fast).
	jdec jsontext.Decoder
	jbuf bytes.Buffer
	// nodes are the values of the line fast reads, used of them so far:
	// kept for the next line, as a line's values die with it.
	nodes []*jnode
	used  int
}

func (r *reader) pos(n ast.Node) yamlpos.Pos {
	return r.onLine(yamlpos.Of(r.file, n))
}

// onLine is p, a place in the text parsed, a place in the file: in a
// JSON Lines file, on the line being read, as far on as the line is
// indented.
func (r *reader) onLine(p yamlpos.Pos) yamlpos.Pos {
	if r.line > 0 {
		p.Line = r.line
		if p.Col > 0 {
			p.Col += r.indent
		}
	}
	return p
}

func (r *reader) errAt(n ast.Node, format string, args ...any) error {
	return &yamlpos.NodeError{Pos: r.pos(n), Msg: fmt.Sprintf(format, args...)}
}

func (r *reader) parse(data []byte) ([]*ast.DocumentNode, error) {
	tokens, err := yamlpos.Lex(string(data), yamlpos.Bounds{Depth: maxDepth, Column: 2 * maxDepth})
	if err == nil {
		var docs []*ast.DocumentNode
		if docs, err = yamlpos.Parse(tokens); err == nil {
			return docs, nil
		}
	}
	var ye *yamlpos.Error
	if errors.As(err, &ye) {
		return nil, &yamlpos.NodeError{Pos: r.onLine(yamlpos.At(r.file, ye.Token)), Msg: ye.Error()}
	}
	return nil, err
}

// checkJSON refuses data, a JSON file or a line of JSON Lines, that is
// not one JSON value: the YAML parser that reads it next would take what
// JSON does not (a trailing comma, a comment, unquoted keys), and word a
// mistake as YAML's. The words are those of the request files'.
func (r *reader) checkJSON(data []byte) error {
	d := jsontext.NewDecoder(bytes.NewReader(data))
	big, err := skipValue(d)
	off, msg := int64(len(data)), "unexpected end of JSON input"
	var se *jsontext.SyntacticError
	var end int64
	if err == nil && big == "" {
		end = d.InputOffset()
		if _, err = d.ReadToken(); err == io.EOF {
			return nil
		}
	}
	switch {
	case err == nil && big != "":
		// A number no float64 holds: request files refuse it, where the
		// YAML parser would read it as text.
		off, msg = d.InputOffset()-int64(len(big)), fmt.Sprintf("number %s is out of range", big)
	case err == nil:
		// The decoder reads a stream of values; a JSON text is one.
		off = end + int64(len(data[end:])-len(bytes.TrimLeft(data[end:], " \t\r\n")))
		c, _ := utf8.DecodeRune(data[off:])
		msg = "invalid character " + strconv.QuoteRune(c) + " after top-level value"
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
	case errors.Is(err, jsontext.ErrDuplicateName) && errors.As(err, &se):
		off, msg = se.ByteOffset, fmt.Sprintf("duplicate key %q in an object", se.JSONPointer.LastToken())
	case errors.As(err, &se) && se.Err != nil:
		off, msg = se.ByteOffset, se.Err.Error()
		if strings.HasPrefix(msg, "invalid escape sequence ") {
			msg = "invalid escape sequence in string" // as far as the decoder read it
		}
	default:
		return err
	}
	off = min(max(off, 0), int64(len(data)))
	p := yamlpos.Pos{File: r.file, Line: 1 + bytes.Count(data[:off], []byte{'\n'}), Col: 1 + int(off) - (bytes.LastIndexByte(data[:off], '\n') + 1)}
	return &yamlpos.NodeError{Pos: r.onLine(p), Msg: "invalid JSON: " + msg}
}

// skipValue reads d's next value whole; big is the first number in it
// that no float64 holds, "" when none, the decoder just past it.
func skipValue(d *jsontext.Decoder) (big string, err error) {
	depth := 0
	for {
		tok, err := d.ReadToken()
		if err != nil {
			return "", err
		}
		switch tok.Kind() {
		case '0':
			if _, err := tok.Float(); err != nil {
				return tok.String(), nil
			}
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		}
		if depth == 0 {
			return "", nil
		}
	}
}

// crAsSpace makes each carriage return of data, checked JSON, a space:
// JSON holds one only as space between values, and ends no line there,
// where the YAML parser that reads data next would end one.
func crAsSpace(data []byte) {
	for i, c := range data {
		if c == '\r' {
			data[i] = ' '
		}
	}
}

// done checks what the file held as a whole.
func (r *reader) done() error {
	if r.n == 0 {
		return fmt.Errorf("%s: holds no cases", r.file)
	}
	return nil
}

// document reads a YAML or JSON document: a case, a list, or {cases}.
func (r *reader) document(n ast.Node) error {
	if seq, ok := n.(*ast.SequenceNode); ok {
		return r.list(seq)
	}
	m := yamlpos.Mapping(n)
	if m == nil {
		return r.errAt(n, "an eval file holds a case, a list of cases or {cases: [...]}, not %s", yamlpos.KindOf(n))
	}
	for _, mv := range m.Values {
		if k, _ := yamlpos.ScalarText(mv.Key); k == "cases" {
			if len(m.Values) > 1 {
				return r.errAt(m.Values[0].Key, "an eval file with cases: holds nothing else")
			}
			seq, ok := mv.Value.(*ast.SequenceNode)
			if !ok {
				return r.errAt(mv.Value, "cases: want a list of cases, not %s", yamlpos.KindOf(mv.Value))
			}
			return r.list(seq)
		}
	}
	return r.oneCase(n)
}

func (r *reader) list(seq *ast.SequenceNode) error {
	for i, item := range seq.Values {
		if tk := item.GetToken(); tk != nil && tk.Type == token.ImplicitNullType && tk.Position != nil && i < len(seq.Entries) {
			// goccy/go-yaml places an empty item at its dash, or one
			// column further when it is the list's last: just after
			// the "- ", as request files place it.
			tk.Position.Column = seq.Entries[i].Start.Position.Column + 2
		}
		if err := r.oneCase(item); err != nil {
			return err
		}
	}
	return nil
}

// entries are a mapping's keys and values, each key one of known.
func (r *reader) entries(n ast.Node, what string, known []string) (map[string]ast.Node, error) {
	m := yamlpos.Mapping(n)
	if m == nil {
		return nil, r.errAt(n, "%s: want a mapping, not %s", what, yamlpos.KindOf(n))
	}
	out := map[string]ast.Node{}
	for _, mv := range m.Values {
		k, ok := yamlpos.ScalarText(mv.Key)
		if !ok {
			return nil, r.errAt(mv.Key, "%s: a key must be a name, not %s", what, yamlpos.KindOf(mv.Key))
		}
		if !slices.Contains(known, k) {
			msg := fmt.Sprintf("%s: unknown key %q", what, k)
			if s := english.Suggest(k, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, r.errAt(mv.Key, "%s: want %s", msg, strings.Join(known, ", "))
		}
		v := mv.Value
		if v == nil {
			v = &ast.NullNode{BaseNode: &ast.BaseNode{}}
		}
		if _, null := v.(*ast.NullNode); null {
			continue // a key without a value sets nothing
		}
		out[k] = v
	}
	return out, nil
}

func (r *reader) oneCase(n ast.Node) error {
	c, err := r.readCase(n)
	if err != nil {
		return r.mistaken(c, err)
	}
	if err := r.emit(c); err != nil {
		return err
	}
	r.n++
	return nil
}

// mistaken is err, a mistake in the case c, to end the read with; or,
// when the reader takes mistakes and err is one placed in the file, nil
// once it has taken it and counted the case, so that the next is read.
func (r *reader) mistaken(c *Case, err error) error {
	var ne *yamlpos.NodeError
	if r.mistake == nil || !errors.As(err, &ne) {
		return err
	}
	if c == nil {
		c = &Case{Pos: ne.Pos}
	}
	if err := r.mistake(c, ne); err != nil {
		return err
	}
	r.n++
	return nil
}

// readCase reads and checks a case; c is the case as far as it was read
// when err says its mistake.
func (r *reader) readCase(n ast.Node) (c *Case, err error) {
	c = &Case{Pos: r.pos(n)}
	if m := yamlpos.Mapping(n); m != nil && len(m.Values) > 0 {
		// A mapping's node stands at its first colon; the case starts at
		// its first key.
		c.Pos = r.pos(m.Values[0].Key)
	}
	what := fmt.Sprintf("case %d", r.n+1)
	kv, err := r.entries(n, what, caseKeys)
	if err != nil {
		// The mistake is told of the case's id where it has one, after
		// the key that is wrong or before it.
		if m := yamlpos.Mapping(n); m != nil {
			for _, mv := range m.Values {
				if k, _ := yamlpos.ScalarText(mv.Key); k == "id" {
					c.ID, _ = yamlpos.ScalarText(mv.Value)
				}
			}
		}
		return c, err
	}
	if v, ok := kv["id"]; ok {
		if c.ID, err = r.text(v, what+": id"); err != nil {
			return c, err
		}
		if c.ID == "" {
			return c, r.errAt(v, "%s: id: empty", what)
		}
		what = fmt.Sprintf("case %q", c.ID)
	}
	if err := r.name(c, c.ID == ""); err != nil {
		return c, err
	}
	v, ok := kv["prompt"]
	if !ok {
		return c, &yamlpos.NodeError{Pos: c.Pos, Msg: what + ": no prompt"}
	}
	if c.Prompt, err = r.text(v, what+": prompt"); err != nil {
		return c, err
	}
	if strings.TrimSpace(c.Prompt) == "" {
		return c, r.errAt(v, "%s: the prompt is empty", what)
	}
	if v, ok := kv["system"]; ok {
		if c.System, err = r.text(v, what+": system"); err != nil {
			return c, err
		}
	}
	if v, ok := kv["tools"]; ok {
		if c.Tools, err = r.names(v, what+": tools", true); err != nil {
			return c, err
		}
		if c.Tools == nil {
			c.Tools = []string{} // tools: "" offers none
		}
	}
	if v, ok := kv["max_turns"]; ok {
		if c.MaxTurns, err = r.count(v, what+": max_turns", 1, 10_000); err != nil {
			return c, err
		}
	}
	if v, ok := kv["repeat"]; ok {
		if c.Repeat, err = r.count(v, what+": repeat", 1, MaxRepeat); err != nil {
			return c, err
		}
	}
	if v, ok := kv["expect"]; ok {
		if err := r.expect(v, what+": expect", &c.Expect); err != nil {
			return c, err
		}
	}
	return c, nil
}

// name names c case_N when the file gave it no id, N its place in the
// file, and checks that no other case of the file has its id.
func (r *reader) name(c *Case, unnamed bool) error {
	what := fmt.Sprintf("case %q", c.ID)
	if unnamed {
		c.ID, c.unnamed = "case_"+strconv.Itoa(r.n+1), true
		what = fmt.Sprintf("case %d", r.n+1)
	}
	first, dup, err := r.ids.add(c.ID, c.Pos)
	if err != nil {
		return err
	}
	if dup {
		return &yamlpos.NodeError{Pos: c.Pos, Msg: fmt.Sprintf("%s: the id of another case too (first at line %d)", what, first.Line)}
	}
	return nil
}

func (r *reader) expect(n ast.Node, what string, e *Expect) error {
	kv, err := r.entries(n, what, expectKeys)
	if err != nil {
		return err
	}
	if v, ok := kv["tools_called"]; ok {
		if e.ToolsCalled, err = r.names(v, what+".tools_called", false); err != nil {
			return err
		}
	}
	if v, ok := kv["tools_not_called"]; ok {
		if e.ToolsNotCalled, err = r.names(v, what+".tools_not_called", false); err != nil {
			return err
		}
	}
	if v, ok := kv["tool_sequence"]; ok {
		if e.Sequence, err = r.sequence(v, what+".tool_sequence"); err != nil {
			return err
		}
	}
	if v, ok := kv["answer"]; ok {
		if e.Answer, err = r.answer(v, what+".answer"); err != nil {
			return err
		}
	}
	if v, ok := kv["max_turns"]; ok {
		if e.MaxTurns, err = r.count(v, what+".max_turns", 1, 10_000); err != nil {
			return err
		}
	}
	if v, ok := kv["max_tokens"]; ok {
		n, err := r.count(v, what+".max_tokens", 1, 1<<50)
		if err != nil {
			return err
		}
		e.MaxTokens = int64(n)
	}
	return nil
}

func (r *reader) sequence(n ast.Node, what string) (*Sequence, error) {
	s := &Sequence{Mode: Exact}
	var list ast.Node
	if _, ok := n.(*ast.SequenceNode); ok {
		list = n // tool_sequence: [a, b] is calls: [a, b], exactly
	} else {
		kv, err := r.entries(n, what, sequenceKeys)
		if err != nil {
			return nil, err
		}
		if v, ok := kv["mode"]; ok {
			if s.Mode, err = r.text(v, what+".mode"); err != nil {
				return nil, err
			}
			if !slices.Contains(Modes, s.Mode) {
				msg := fmt.Sprintf("%s.mode: %q is not a mode", what, s.Mode)
				if sug := english.Suggest(s.Mode, Modes); sug != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", sug)
				}
				return nil, r.errAt(v, "%s: want %s", msg, strings.Join(Modes, ", "))
			}
		}
		if list = kv["calls"]; list == nil {
			return nil, r.errAt(n, "%s: no calls", what)
		}
	}
	seq, ok := list.(*ast.SequenceNode)
	if !ok {
		return nil, r.errAt(list, "%s.calls: want a list of tool names or {name, args}, not %s", what, yamlpos.KindOf(list))
	}
	for i, item := range seq.Values {
		at := fmt.Sprintf("%s.calls[%d]", what, i)
		if name, ok := yamlpos.ScalarText(item); ok {
			if name == "" {
				return nil, r.errAt(item, "%s: want a tool's name, not an empty text", at)
			}
			s.Calls = append(s.Calls, Call{Name: name})
			continue
		}
		kv, err := r.entries(item, at, callKeys)
		if err != nil {
			return nil, err
		}
		var c Call
		v, ok := kv["name"]
		if !ok {
			return nil, r.errAt(item, "%s: no name", at)
		}
		if c.Name, err = r.text(v, at+".name"); err != nil {
			return nil, err
		}
		if c.Name == "" {
			return nil, r.errAt(v, "%s.name: want a tool's name, not an empty text", at)
		}
		if v, ok := kv["args"]; ok {
			if yamlpos.Mapping(v) == nil {
				return nil, r.errAt(v, "%s.args: want a mapping of arguments, not %s", at, yamlpos.KindOf(v))
			}
			if c.Args, err = r.json(v); err != nil {
				return nil, err
			}
		}
		s.Calls = append(s.Calls, c)
	}
	return s, nil
}

func (r *reader) answer(n ast.Node, what string) (*AnswerCheck, error) {
	kv, err := r.entries(n, what, answerKeys)
	if err != nil {
		return nil, err
	}
	if len(kv) != 1 {
		return nil, r.errAt(n, "%s: want one of %s", what, strings.Join(answerKeys, ", "))
	}
	a := &AnswerCheck{}
	for k, v := range kv {
		switch k {
		case "contains":
			a.Contains, err = r.text(v, what+".contains")
		case "equals":
			var s string
			s, err = r.text(v, what+".equals")
			a.Equals = &s
		case "regex":
			var s string
			if s, err = r.text(v, what+".regex"); err == nil {
				if a.Regex, err = regexp.Compile(s); err != nil {
					return nil, r.errAt(v, "%s.regex: %v", what, err)
				}
			}
		case "json_schema":
			if a.SchemaDoc, err = r.json(v); err != nil {
				return nil, err
			}
			doc, derr := jsonschema.Decode(a.SchemaDoc)
			if derr == nil {
				a.Schema, derr = jsonschema.Compile("kesoku:eval/answer", doc, jsonschema.Options{})
			}
			if derr != nil {
				return nil, r.errAt(v, "%s.json_schema: %v", what, derr)
			}
		}
	}
	return a, err
}

// text reads a scalar as text: a string as written, a number or boolean
// as its text.
func (r *reader) text(n ast.Node, what string) (string, error) {
	s, ok := yamlpos.ScalarText(n)
	if !ok {
		return "", r.errAt(n, "%s: want text, not %s", what, yamlpos.KindOf(n))
	}
	return s, nil
}

// names reads a list of tool names; commaList also takes "a,b" as
// --tools does.
func (r *reader) names(n ast.Node, what string, commaList bool) ([]string, error) {
	if s, ok := yamlpos.ScalarText(n); ok && commaList {
		var out []string
		for _, name := range strings.Split(s, ",") {
			if name = strings.TrimSpace(name); name != "" {
				out = append(out, name)
			}
		}
		return out, nil
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, r.errAt(n, "%s: want a list of tool names, not %s", what, yamlpos.KindOf(n))
	}
	var out []string
	for _, item := range seq.Values {
		s, ok := yamlpos.ScalarText(item)
		if !ok || s == "" {
			return nil, r.errAt(item, "%s: want a tool's name, not %s", what, yamlpos.KindOf(item))
		}
		out = append(out, s)
	}
	return out, nil
}

// count reads a whole number within [lo, hi].
func (r *reader) count(n ast.Node, what string, lo, hi int) (int, error) {
	s, _ := yamlpos.ScalarText(n)
	v, err := strconv.Atoi(s)
	if err != nil || v < lo || v > hi {
		return 0, r.errAt(n, "%s: want a whole number from %d to %d, not %s", what, lo, hi, describe(n))
	}
	return v, nil
}

// json encodes a node as JSON, its mistakes placed in the file.
func (r *reader) json(n ast.Node) (json.RawMessage, error) {
	b, err := yamlpos.JSON(r.file, n)
	var ne *yamlpos.NodeError
	if errors.As(err, &ne) {
		ne.Pos = r.onLine(ne.Pos)
	}
	return b, err
}

// describe says what a value is for a message: a scalar as written, else
// its kind.
func describe(n ast.Node) string {
	if s, ok := yamlpos.ScalarText(n); ok {
		return strconv.Quote(s)
	}
	return yamlpos.KindOf(n)
}

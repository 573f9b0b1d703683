package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/prices"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// MaxFileSize bounds a config file. A config file is small; a project's
// is read before anyone approved it, and the YAML parser takes time
// quadratic in some shapes of input, so a hostile one must stay small.
const MaxFileSize = 256 << 10

// maxDepth bounds the nesting of a config file, and maxTokens its YAML
// tokens, for the same reason: goccy/go-yaml takes time quadratic in the
// tokens on some shapes (an unclosed flow mapping of 20,000 tokens takes
// a quarter of a second, of 240,000 tokens 15 s). A config file of
// 20,000 tokens holds thousands of settings.
const (
	maxDepth  = 64
	maxTokens = 20_000
)

// File is one config file, read and checked.
type File struct {
	// Path is the file's absolute path.
	Path string
	// Origin says how it came to be read.
	Origin Origin
	// Sum is the hex SHA-256 of the bytes read: what an approval records.
	Sum string
	// Settings are the flag defaults it gives, in file order. A key given
	// no value (`jobs:`) leaves the flag's default and is not among them.
	Settings []*Setting
	// Sections are its sections (`tools:`, `mcpServers:`, `prices:`) by
	// key.
	Sections map[string]*Section
	// Prices are the model prices its prices: section gives.
	Prices prices.Table
	// Hooks are the hooks its hooks: section declares, in the order
	// written.
	Hooks []*Hook
	// Permissions are the rules its permissions: section gives, in file
	// order.
	Permissions policy.Rules
	// Named are the files its settings name whose content is approved
	// with it (mcp-config's), read with it when it was found; none for a
	// file named or the user's own, which need no approval.
	Named []*NamedFile
}

// NamedFile is a file that a config file names whose content decides what
// the config does: the servers of an mcp-config file start programs. It
// is read once, with the config file, so that the content approved is
// the content used.
type NamedFile struct {
	// Setting is the setting that names it.
	Setting *Setting
	// Path is its absolute path.
	Path string
	// Sum is the hex SHA-256 of its content.
	Sum  string
	data []byte
	// err is why it could not be read: an error of the config file only
	// once the config is approved, or being approved; until then the
	// refusal says what matters first.
	err error
}

// Setting is one flag default of a config file.
type Setting struct {
	// Key is the flag's name.
	Key string
	// Values is the value as text: one for a scalar, a list's items.
	Values []string
	// List says the value was a list.
	List bool
	// KeyPos is where the key is; Pos where its value is.
	KeyPos, Pos yamlpos.Pos
	// File is the file it is in.
	File *File
}

// Value is the value as one line of text, for messages.
func (s *Setting) Value() string {
	if s.List {
		return "[" + strings.Join(s.Values, ", ") + "]"
	}
	return s.Values[0]
}

// resolved are the values as a flag takes them: a path relative to the
// file's own directory (the one rule, resolvePath).
func (s *Setting) resolved() []string {
	if !rules[s.Key].path {
		return s.Values
	}
	values := make([]string, len(s.Values))
	for i, v := range s.Values {
		values[i] = resolvePath(s.File, v)
	}
	return values
}

// Effect is what a setting that needs approval lets kesoku do, in words.
type Effect struct {
	Setting *Setting
	// Text says it: "write records to /p/records.jsonl".
	Text string
}

// Effects are what f's settings that need approval let kesoku do, in file
// order: what kesoku trust shows before it approves f. The sections
// (tools, mcpServers) are the tool sources' to say.
func (f *File) Effects() []Effect {
	var out []Effect
	for _, s := range f.Settings {
		if does := rules[s.Key].does; does != "" {
			v := &Setting{Values: s.resolved(), List: s.List}
			out = append(out, Effect{Setting: s, Text: fmt.Sprintf(does, v.Value())})
		}
	}
	return out
}

// Section is a section of a config file, kept as the YAML it is for the
// tool source that reads it.
type Section struct {
	// Key is the section's key: tools, mcpServers.
	Key string
	// Pos is where the key is.
	Pos yamlpos.Pos
	// Node is the section's value, a mapping, with the positions of all it
	// holds.
	Node *ast.MappingNode
	// File is the file it is in.
	File *File
}

// Consequential returns the keys of f that need the user's approval when
// f was found rather than named, each with what it decides, in file
// order.
func (f *File) Consequential() []string {
	var out []string
	add := func(key string) {
		out = append(out, fmt.Sprintf("%s (%s)", key, rules[key].consequential))
	}
	for _, s := range f.Settings {
		if rules[s.Key].consequential != "" {
			add(s.Key)
		}
	}
	for _, key := range SectionKeys() {
		if f.Sections[key] != nil && rules[key].consequential != "" {
			add(key)
		}
	}
	return out
}

// ReadFile reads and checks the config file at path. keys are the flag
// names it may set. A file that is not there is an error matching
// os.ErrNotExist.
func ReadFile(path string, origin Origin, keys []string) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	data, err := readBounded(abs)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", abs, err)
	}
	f, err := Parse(abs, data, keys)
	var me *MistakesError
	if errors.As(err, &me) {
		for _, mf := range me.Config.Files {
			mf.Origin = origin
		}
	}
	if err != nil {
		return nil, err
	}
	f.Origin = origin
	if origin == Found {
		f.readNamed()
	}
	return f, nil
}

// readNamed reads the files that f's settings name whose content is
// approved with f.
func (f *File) readNamed() {
	for _, s := range f.Settings {
		if !rules[s.Key].names {
			continue
		}
		for _, path := range s.resolved() {
			n := &NamedFile{Setting: s, Path: path}
			if n.data, n.err = readBounded(path); n.err != nil {
				n.err = &Error{Pos: s.Pos, Msg: fmt.Sprintf("%s: %s: %v", s.Key, path, n.err)}
			}
			sum := sha256.Sum256(n.data)
			n.Sum = hex.EncodeToString(sum[:])
			f.Named = append(f.Named, n)
		}
	}
}

// NamedErr is why a file that f names could not be read, nil when all
// could.
func (f *File) NamedErr() error {
	for _, n := range f.Named {
		if n.err != nil {
			return n.err
		}
	}
	return nil
}

// readBounded reads a regular file of at most MaxFileSize bytes. It
// checks the type before opening: a FIFO would block the open. Its errors
// do not name the path ("no such file or directory", not "stat
// /p/kesoku.yaml: ..."): the caller names it once, with what it is.
func readBounded(path string) (data []byte, err error) {
	defer func() {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
	}()
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err = io.ReadAll(io.LimitReader(fh, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("larger than %d KiB: not a config file", MaxFileSize>>10)
	}
	return data, nil
}

// Parse checks data, the content of the config file at path (absolute),
// and returns its settings and sections. keys are the flag names it may
// set. Mistakes in its keys are a *MistakesError, every one of them.
func Parse(path string, data []byte, keys []string) (f *File, err error) {
	f, m, err := parseMapping(path, data)
	if err != nil || m == nil {
		return f, err
	}
	fail := func(tk *token.Token, format string, args ...any) error {
		return &Error{Pos: f.pos(tk), Msg: fmt.Sprintf(format, args...)}
	}
	known := sortedKeys(keys)
	// Every mistake is told, not only the first: a file is fixed in one
	// go. (The parser refuses a key given twice.)
	var errs []error
	for _, mv := range m.Values {
		key, ok := yamlpos.ScalarText(mv.Key)
		if !ok {
			errs = append(errs, fail(mv.Key.GetToken(), "a key must be a name, not %s", yamlpos.KindOf(mv.Key)))
			continue
		}
		keyPos := f.pos(mv.Key.GetToken())
		r := rules[key]
		switch {
		case r.refused != 0:
			errs = append(errs, &RefusedKeyError{Pos: keyPos, Key: key, Why: r.refused})
			continue
		case r.section:
			if err := f.section(key, keyPos, mv.Value); err != nil {
				errs = append(errs, err)
			}
			continue
		case !slices.Contains(known, key):
			msg := fmt.Sprintf("unknown key %s", quoteKey(key))
			if s := suggest(key, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			errs = append(errs, &Error{Pos: keyPos, Msg: msg + ": a key is the name of a flag, without its dashes"})
			continue
		}
		s, err := f.setting(key, keyPos, mv.Value)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if s != nil {
			f.Settings = append(f.Settings, s)
		}
	}
	if len(errs) > 0 {
		// The settings that are right go with the mistakes, for their
		// values to be checked too.
		return nil, &MistakesError{Config: &Config{Files: []*File{f}}, Errs: mistakes(errs...)}
	}
	return f, nil
}

// JoinByPlace is the mistakes of errs, each on a line of its own, in the
// order of their places in the files, each once (errs may hold joins of
// their own, and the same mistake found twice); one mistake is itself, and
// none is nil.
func JoinByPlace(errs ...error) error {
	var flat []error
	seen := map[string]bool{}
	var add func(err error)
	add = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				add(e)
			}
			return
		}
		if err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			flat = append(flat, err)
		}
	}
	for _, err := range errs {
		add(err)
	}
	switch len(flat) {
	case 0:
		return nil
	case 1:
		return flat[0]
	}
	slices.SortStableFunc(flat, func(a, b error) int {
		pa, pb := errPlace(a), errPlace(b)
		if c := strings.Compare(pa.File, pb.File); c != 0 {
			return c
		}
		if pa.Line != pb.Line {
			return pa.Line - pb.Line
		}
		return pa.Col - pb.Col
	})
	return errors.Join(flat...)
}

// errPlace is where in a file err is about; nothing for an error of no
// place.
func errPlace(err error) yamlpos.Pos {
	var e *Error
	var r *RefusedKeyError
	switch {
	case errors.As(err, &e):
		return e.Pos
	case errors.As(err, &r):
		return r.Pos
	}
	return yamlpos.Pos{}
}

// ServersKey is the key of the MCP servers in a config file and in the
// files of .mcp.json's shape.
const ServersKey = "mcpServers"

// ReadServers reads a file of MCP servers in the shape that .mcp.json,
// Claude Desktop and Gemini CLI use ({"mcpServers": {...}}), named with
// --mcp-config: read as it is, with the same bounds and positions as a
// config file; its other keys belong to the program it was written for
// and are left alone. Named, it is approved by being named.
func ReadServers(path string) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, &ServersFileError{Path: path, Err: err}
	}
	data, err := readBounded(abs)
	if err != nil {
		return nil, &ServersFileError{Path: abs, Err: err}
	}
	return ParseServers(abs, data)
}

// ParseServers is ReadServers of data, the content of the file at path.
func ParseServers(path string, data []byte) (f *File, err error) {
	f, m, err := parseMapping(path, data)
	if err != nil {
		return nil, err
	}
	f.Origin = Named
	if m == nil {
		return nil, &Error{Pos: yamlpos.Pos{File: path}, Msg: "no mcpServers: want {\"mcpServers\": {\"name\": {\"command\": ...}}}"}
	}
	for _, mv := range m.Values {
		if key, ok := yamlpos.ScalarText(mv.Key); ok && key == ServersKey {
			if err := f.section(key, f.pos(mv.Key.GetToken()), mv.Value); err != nil {
				return nil, err
			}
			return f, nil
		}
	}
	return nil, &Error{Pos: yamlpos.Pos{File: path}, Msg: "no mcpServers: want {\"mcpServers\": {\"name\": {\"command\": ...}}}"}
}

// parseMapping parses data, the content of the file at path, within the
// bounds of a config file, and returns its top-level mapping: nil for a
// file that is empty or only comments.
func parseMapping(path string, data []byte) (*File, *ast.MappingNode, error) {
	sum := sha256.Sum256(data)
	f := &File{Path: path, Sum: hex.EncodeToString(sum[:]), Sections: map[string]*Section{}}
	fail := func(tk *token.Token, format string, args ...any) error {
		return &Error{Pos: f.pos(tk), Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxFileSize {
		return nil, nil, &Error{Pos: yamlpos.Pos{File: path}, Msg: fmt.Sprintf("larger than %d KiB: not a config file", MaxFileSize>>10)}
	}
	tokens, err := yamlpos.Lex(string(data), yamlpos.Bounds{Depth: maxDepth, Column: 2 * maxDepth})
	if err == nil && len(tokens) > maxTokens {
		return nil, nil, fail(tokens[maxTokens], "more than %d YAML tokens: not a config file", maxTokens)
	}
	var docs []*ast.DocumentNode
	if err == nil {
		docs, err = yamlpos.Parse(tokens)
	}
	if ye, ok := err.(*yamlpos.Error); ok {
		e := &Error{Pos: f.pos(ye.Token), Msg: ye.Error()}
		e.Snippet = yamlpos.Snippet(string(data), e.Pos)
		return nil, nil, e
	}
	if len(docs) == 0 {
		return f, nil, nil // empty, or only comments
	}
	if len(docs) > 1 {
		tk := docs[1].Start
		if tk == nil {
			tk = docs[1].Body.GetToken()
		}
		return nil, nil, fail(tk, "a config file holds one YAML document, not several")
	}
	body := docs[0].Body
	m := yamlpos.Mapping(body)
	if m == nil {
		return nil, nil, fail(body.GetToken(), "a config file is a mapping of settings (jobs: 8), not %s", yamlpos.KindOf(body))
	}
	return f, m, nil
}

func (f *File) pos(tk *token.Token) yamlpos.Pos { return yamlpos.At(f.Path, tk) }

// setting turns the value of key into a Setting; nil for no value.
func (f *File) setting(key string, keyPos yamlpos.Pos, v ast.Node) (*Setting, error) {
	s := &Setting{Key: key, KeyPos: keyPos, Pos: keyPos, File: f}
	if v == nil {
		return nil, nil
	}
	s.Pos = f.pos(v.GetToken())
	switch x := v.(type) {
	case *ast.NullNode:
		return nil, nil
	case *ast.SequenceNode:
		s.List = true
		for _, item := range x.Values {
			text, ok := yamlpos.ScalarText(item)
			if !ok {
				return nil, &Error{Pos: f.pos(item.GetToken()), Msg: fmt.Sprintf("%s: a list item must be a single value, not %s", key, yamlpos.KindOf(item))}
			}
			s.Values = append(s.Values, text)
		}
		return s, nil
	}
	text, ok := yamlpos.ScalarText(v)
	if !ok {
		return nil, &Error{Pos: s.Pos, Msg: fmt.Sprintf("%s: want a value, not %s", key, yamlpos.KindOf(v))}
	}
	s.Values = []string{text}
	return s, nil
}

// section keeps the value of the section key, which must be a mapping.
func (f *File) section(key string, keyPos yamlpos.Pos, v ast.Node) error {
	switch x := v.(type) {
	case nil, *ast.NullNode:
		return nil
	case *ast.MappingNode, *ast.MappingValueNode:
		f.Sections[key] = &Section{Key: key, Pos: keyPos, Node: yamlpos.Mapping(x), File: f}
		switch key {
		case PricesKey:
			return f.parsePrices(yamlpos.Mapping(x))
		case HooksKey:
			return f.parseHooks(yamlpos.Mapping(x))
		case PermissionsKey:
			return f.parsePermissions(yamlpos.Mapping(x))
		}
		return nil
	}
	return &Error{Pos: f.pos(v.GetToken()), Msg: fmt.Sprintf("%s: want a mapping of names to declarations, not %s", key, yamlpos.KindOf(v))}
}

// quoteKey quotes key for a message, cut to a length a name can have.
func quoteKey(key string) string {
	if len(key) > 64 {
		r := []rune(key)
		if len(r) > 64 {
			return strconv.Quote(string(r[:64])) + "…"
		}
	}
	return strconv.Quote(key)
}

// suggest is english.Suggest for a key, which may be as long as a file:
// a name is short, and comparing a long one with every name would take
// long for nothing.
func suggest(key string, known []string) string {
	if len(key) > 64 {
		return ""
	}
	return english.Suggest(key, known)
}

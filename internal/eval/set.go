package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"iter"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/kesoku/kesoku/internal/yamlpos"
)

// Set is the cases of an eval's files, read in two passes so that its
// memory does not grow with the cases. Open reads every file once,
// checking every case before anything runs, and writes each, checked,
// to a spool (a temporary file, one line of JSON a case), keeping the
// first ones as it read them (keptCases); All hands those out and reads
// the rest again from the spool, a case at a time, as the cases run.
// What the run needs of the whole set is counted on the way: the cases
// and runs of each file, the lists of tools the cases offer. While Open
// reads, the check of ids keeps a hash of each id (8 bytes, and the spool
// offset of its case), not the id, and as much again of each id folded
// when asked (OpenOptions.Capitals); they are dropped when Open returns.
type Set struct {
	paths []string
	files []fileCount
	n     int
	first string
	tools []ToolList
	// maxRepeat is the largest repeat a case gives.
	maxRepeat int
	// capitals is the first case whose id differs from an earlier one's
	// only in capitals (nil for none).
	capitals *CapitalsError
	// kept are the first cases as Open read them, while they fit in
	// keptCases and keptBytes of spool; keptEnd is where the spool goes
	// on after them.
	kept    []*Case
	keptEnd int64

	spool *os.File
	name  string // the spool's name while Close is to remove it
	w     *bufio.Writer
	size  int64
	buf   []byte
}

// fileCount is what a file holds: its cases that give no repeat, the
// runs of those that do, and all its cases.
type fileCount struct {
	plain   int64
	repeats int64
	cases   int64
}

// ToolList is a list of tools that cases offer (nil: the command's
// choice), with the first case that offers it.
type ToolList struct {
	Tools []string
	Pos   yamlpos.Pos
	// Expected are the tools the expects of its cases name, each where a
	// case first names it: a name that is no tool makes a check that
	// can go only one way.
	Expected []Named
	named    map[string]bool
}

// Named is a tool an expect names: its case, and where.
type Named struct {
	Tool, Case string
	Pos        yamlpos.Pos
}

// keptCases and keptBytes bound the cases a Set keeps as Open read them:
// the first of the set, which All hands out without reading them back
// from the spool — the whole of most datasets — while what the set holds
// stays bounded however many cases follow.
const (
	keptCases = 1024
	keptBytes = 256 << 10
)

// OpenOptions are what Open looks for beyond mistakes.
type OpenOptions struct {
	// Capitals notes the first case whose id differs from an earlier
	// case's only in capitals (Set.Capitals): their cassettes would
	// share a file where file names ignore case.
	Capitals bool
	// Mistakes, when set, takes the mistake of each case that has one,
	// and the files are read on, as validate lists every problem: the
	// case keeps its place (the cases after it are numbered as when it is
	// put right) but is not in the Set. A mistake of a file as a whole (it
	// is no YAML, or holds no cases) still ends Open; so does an error of
	// Mistakes.
	Mistakes func(Mistake) error
}

// Mistake is the mistake of one case, for OpenOptions.Mistakes.
type Mistake struct {
	// File is the index of the case's file among those Open reads.
	File int
	// ID is the case's id, or case_N when it has none or none was read.
	ID string
	// Err is the mistake, at its place.
	Err *yamlpos.NodeError
}

// Message is the mistake's words, without the case they are of: ID
// names it.
func (m Mistake) Message() string {
	// The words begin "case N: " or "case \"id\": " (the id quoted as Go
	// quotes it).
	msg := m.Err.Msg
	rest, ok := strings.CutPrefix(msg, "case ")
	if !ok {
		return msg
	}
	if q, err := strconv.QuotedPrefix(rest); err == nil {
		rest = rest[len(q):]
	} else {
		rest = strings.TrimLeft(rest, "0123456789")
	}
	if rest, ok = strings.CutPrefix(rest, ": "); !ok {
		return msg
	}
	return rest
}

// Open reads the cases of the eval files at paths as one run. A file is
// YAML (.yaml, .yml), JSON (.json) or JSON Lines (.jsonl, .ndjson); a
// YAML or JSON file holds one case, a list of them, or {cases: [...]}.
// Every mistake is an error at its file:line:col, the first one found; a
// file's own come before an id that a case of an earlier file has too.
// A case without an id is case_N, N its place in the whole run, and an
// id that two cases share, in one file or two, is a mistake at the
// second. Nothing of the cases is held but the spool and the first few
// (keptCases): the caller closes the Set, which removes the spool.
func Open(paths []string, o OpenOptions) (_ *Set, err error) {
	f, name, err := tempFile("kesoku-cases-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("create a temporary file for the cases: %w", err)
	}
	s := &Set{paths: paths, spool: f, name: name, w: bufio.NewWriterSize(f, 64<<10)}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	all := s.index(func(sc *spooled) string { return sc.ID })
	var folded *hashedIDs
	if o.Capitals {
		folded = s.index(func(sc *spooled) string { return foldASCII(sc.ID) })
	}
	seenTools := map[string]int{}
	// skipped counts the cases Mistakes took: they keep their places in
	// the numbering of cases without an id.
	skipped := 0
	for i, path := range paths {
		var fc fileCount
		// A file's own mistakes come first, wherever they are in it; of
		// the ids that cases of an earlier file have too, the first.
		var later error
		r := reader{file: path, ids: all}
		if i > 0 {
			r.ids = s.index(func(sc *spooled) string {
				if sc.Local > 0 {
					return "case_" + strconv.Itoa(sc.Local)
				}
				return sc.ID
			})
		}
		if o.Mistakes != nil {
			r.mistake = func(c *Case, err *yamlpos.NodeError) error {
				id := c.ID
				if id == "" || c.unnamed {
					id = "case_" + strconv.Itoa(s.n+skipped+1)
				}
				skipped++
				return o.Mistakes(Mistake{File: i, ID: id, Err: err})
			}
		}
		r.emit = func(c *Case) error {
			local := 0
			if c.unnamed {
				local = r.n + 1
				c.ID = "case_" + strconv.Itoa(s.n+skipped+1)
			}
			// The first file's cases are numbered as in the run: its own
			// index is the run's.
			if later == nil && i > 0 {
				first, dup, err := all.add(c.ID, c.Pos)
				if err != nil {
					return err
				}
				if dup {
					ne := &yamlpos.NodeError{Pos: c.Pos, Msg: fmt.Sprintf("case %q: the id of another case too (first at %s)", c.ID, first)}
					if o.Mistakes != nil {
						// Told now, as is every one after it.
						skipped++
						return o.Mistakes(Mistake{File: i, ID: c.ID, Err: ne})
					}
					later = ne
				}
			}
			fc.cases++
			if c.Repeat > 0 {
				fc.repeats += int64(c.Repeat)
				s.maxRepeat = max(s.maxRepeat, c.Repeat)
			} else {
				fc.plain++
			}
			if s.n == 0 {
				s.first = c.ID
			}
			if folded != nil && s.capitals == nil {
				first, dup, err := folded.add(foldASCII(c.ID), c.Pos)
				if err != nil {
					return err
				}
				if dup {
					s.capitals = &CapitalsError{ID: c.ID, Pos: c.Pos, First: first}
				}
			}
			key := ToolsKey(c.Tools)
			li, ok := seenTools[key]
			if !ok {
				li = len(s.tools)
				seenTools[key] = li
				s.tools = append(s.tools, ToolList{Tools: c.Tools, Pos: c.Pos, named: map[string]bool{}})
			}
			for _, name := range c.Expect.Tools() {
				if l := &s.tools[li]; !l.named[name] {
					l.named[name] = true
					l.Expected = append(l.Expected, Named{Tool: name, Case: c.ID, Pos: c.Pos})
				}
			}
			s.n++
			if err := s.add(c, i, local); err != nil {
				return err
			}
			if len(s.kept) == s.n-1 && len(s.kept) < keptCases && s.size <= keptBytes {
				s.kept, s.keptEnd = append(s.kept, c), s.size
			}
			return nil
		}
		if err := r.read(); err != nil {
			return nil, err
		}
		if later != nil {
			return nil, later
		}
		s.files = append(s.files, fc)
	}
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("write the cases to a temporary file: %w", err)
	}
	s.w = nil
	return s, nil
}

// ToolsKey names a list of tools as a map key; nil, the command's choice,
// is a name no list has.
func ToolsKey(tools []string) string {
	if tools == nil {
		return "\x00"
	}
	// Quoted, names cannot run into each other; made for every case, so
	// without fmt's reflection.
	var b strings.Builder
	for _, t := range tools {
		b.WriteString(strconv.Quote(t))
	}
	return b.String()
}

// CapitalsError says that two cases' ids differ only in capitals, which
// file names where case does not count (macOS's, Windows's) do not tell
// apart: the cases would share a cassette there.
type CapitalsError struct {
	ID string
	// Pos is the case's place, First the earlier case's.
	Pos, First yamlpos.Pos
}

func (e *CapitalsError) Error() string {
	return fmt.Sprintf("%s: case %q: the case at %s has this id but for capitals", e.Pos, e.ID, e.First)
}

// Capitals is the first case whose id differs from an earlier case's
// only in capitals, nil when no two do or Open was not asked to look.
func (s *Set) Capitals() *CapitalsError { return s.capitals }

// foldASCII is id with its ASCII capitals made small: what a cassette's
// file name made of it is where case does not count. Such a name keeps
// ASCII letters as they are and writes any other byte it escapes as %XX
// in capital hex, '%' itself included, so that only the id's own ASCII
// letters can differ in case (cassette's TestPathInFoldsAsEvalDoes).
func foldASCII(id string) string {
	for i := 0; i < len(id); i++ {
		if c := id[i]; c >= 'A' && c <= 'Z' {
			b := []byte(id)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return id
}

// Len is how many cases the set has.
func (s *Set) Len() int { return s.n }

// First is the id of the first case.
func (s *Set) First() string { return s.first }

// Tools are the lists of tools the cases offer, each once, in the order
// of the cases that first offer them: checking them in this order finds
// the first case that offers a tool that is not there.
func (s *Set) Tools() []ToolList { return s.tools }

// Repeats says some case runs more than once when a case that gives no
// repeat runs repeat times.
func (s *Set) Repeats(repeat int) bool { return repeat > 1 || s.maxRepeat > 1 }

// Runs is how many runs the set has when a case that gives no repeat
// runs repeat times.
func (s *Set) Runs(repeat int) int64 {
	var n int64
	for _, fc := range s.files {
		n += fc.plain*int64(max(repeat, 1)) + fc.repeats
	}
	return n
}

// FileAt is the file of the case of the run at position (1-based), when a
// case that gives no repeat runs repeat times; "" past the end.
func (s *Set) FileAt(position int64, repeat int) string {
	for i, fc := range s.files {
		n := fc.plain*int64(max(repeat, 1)) + fc.repeats
		if position <= n {
			return s.paths[i]
		}
		position -= n
	}
	return ""
}

// Cases is how many cases the file at index i of the set holds.
func (s *Set) Cases(i int) int { return int(s.files[i].cases) }

// FileStart is a file of the set, and the position of the first run of
// its cases.
type FileStart struct {
	Name  string
	First int64
}

// Starts are the files of the set, each with the position of its first
// run when a case that gives no repeat runs repeat times: what FileAt
// says, as data.
func (s *Set) Starts(repeat int) []FileStart {
	starts := make([]FileStart, len(s.files))
	first := int64(1)
	for i, fc := range s.files {
		starts[i] = FileStart{Name: s.paths[i], First: first}
		first += fc.plain*int64(max(repeat, 1)) + fc.repeats
	}
	return starts
}

// All gives the cases in order: the ones Open kept as they are, then the
// rest read again from the spool one at a time, each when the one before
// has been taken. It may be called again, and while other calls go on;
// the kept cases are the same each time, and no caller changes a case.
func (s *Set) All() iter.Seq2[*Case, error] {
	return func(yield func(*Case, error) bool) {
		for _, c := range s.kept {
			if !yield(c, nil) {
				return
			}
		}
		br := bufio.NewReaderSize(io.NewSectionReader(s.spool, s.keptEnd, s.size-s.keptEnd), 64<<10)
		var d jsontext.Decoder
		for {
			line, err := br.ReadBytes('\n')
			if err == io.EOF && len(line) == 0 {
				return
			}
			if err != nil {
				yield(nil, fmt.Errorf("read the cases from their temporary file: %w", err))
				return
			}
			c, err := s.decode(&d, line)
			if !yield(c, err) || err != nil {
				return
			}
		}
	}
}

// Close removes the spool.
func (s *Set) Close() error {
	err := s.spool.Close()
	if s.name != "" {
		os.Remove(s.name)
	}
	return err
}

// tempFile creates a temporary file and removes it at once where the
// system lets an open file be removed, so that nothing is left behind
// whatever ends the program; name is "" then.
func tempFile(pattern string) (f *os.File, name string, err error) {
	f, err = os.CreateTemp("", pattern)
	if err != nil {
		return nil, "", err
	}
	if os.Remove(f.Name()) != nil {
		return f, f.Name(), nil
	}
	return f, "", nil
}

// spooled is a case as the spool holds it: checked, its regex and schema
// as written, compiled again when it is read.
type spooled struct {
	ID string `json:"id"`
	// Local is an unnamed case's place in its file.
	Local    int            `json:"local,omitempty"`
	File     int            `json:"file"`
	Line     int            `json:"line"`
	Col      int            `json:"col"`
	Prompt   string         `json:"prompt"`
	System   string         `json:"system,omitempty"`
	Tools    *[]string      `json:"tools,omitempty"`
	MaxTurns int            `json:"max_turns,omitempty"`
	Repeat   int            `json:"repeat,omitempty"`
	Expect   *spooledExpect `json:"expect,omitempty"`
}

type spooledExpect struct {
	ToolsCalled    []string       `json:"called,omitempty"`
	ToolsNotCalled []string       `json:"not_called,omitempty"`
	Sequence       *Sequence      `json:"sequence,omitempty"`
	Answer         *spooledAnswer `json:"answer,omitempty"`
	MaxTurns       int            `json:"max_turns,omitempty"`
	MaxTokens      int64          `json:"max_tokens,omitempty"`
}

type spooledAnswer struct {
	Contains *string         `json:"contains,omitempty"`
	Regex    *string         `json:"regex,omitempty"`
	Equals   *string         `json:"equals,omitempty"`
	Schema   json.RawMessage `json:"schema,omitempty"`
}

// add writes c, of the file at index file, to the spool.
func (s *Set) add(c *Case, file, local int) error {
	b, err := json.Marshal(spool(c, file, local))
	if err != nil {
		return err
	}
	s.size += int64(len(b)) + 1
	s.w.Write(b) // a bufio.Writer keeps its first error for the last write
	if err := s.w.WriteByte('\n'); err != nil {
		return fmt.Errorf("write the cases to a temporary file: %w", err)
	}
	return nil
}

// spool is c as the spool holds it.
func spool(c *Case, file, local int) *spooled {
	sc := &spooled{
		ID: c.ID, Local: local, File: file, Line: c.Pos.Line, Col: c.Pos.Col,
		Prompt: c.Prompt, System: c.System, MaxTurns: c.MaxTurns, Repeat: c.Repeat,
	}
	if c.Tools != nil {
		sc.Tools = &c.Tools
	}
	if e := c.Expect; e.ToolsCalled != nil || e.ToolsNotCalled != nil || e.Sequence != nil || e.Answer != nil || e.MaxTurns > 0 || e.MaxTokens > 0 {
		se := &spooledExpect{ToolsCalled: e.ToolsCalled, ToolsNotCalled: e.ToolsNotCalled, Sequence: e.Sequence, MaxTurns: e.MaxTurns, MaxTokens: e.MaxTokens}
		if a := e.Answer; a != nil {
			se.Answer = &spooledAnswer{Equals: a.Equals, Schema: a.SchemaDoc}
			switch {
			case a.Regex != nil:
				re := a.Regex.String()
				se.Answer.Regex = &re
			case a.Equals == nil && a.SchemaDoc == nil:
				se.Answer.Contains = &a.Contains
			}
		}
		sc.Expect = se
	}
	return sc
}

// decode reads a line of the spool back into its case.
func (s *Set) decode(d *jsontext.Decoder, line []byte) (*Case, error) {
	sc, err := unspool(d, line)
	if err != nil {
		return nil, fmt.Errorf("read the cases from their temporary file: %w", err)
	}
	c := &Case{
		ID: sc.ID, Pos: yamlpos.Pos{File: s.paths[sc.File], Line: sc.Line, Col: sc.Col},
		Prompt: sc.Prompt, System: sc.System, MaxTurns: sc.MaxTurns, Repeat: sc.Repeat,
	}
	if sc.Tools != nil {
		c.Tools = *sc.Tools
	}
	if se := sc.Expect; se != nil {
		c.Expect = Expect{ToolsCalled: se.ToolsCalled, ToolsNotCalled: se.ToolsNotCalled, Sequence: se.Sequence, MaxTurns: se.MaxTurns, MaxTokens: se.MaxTokens}
		if sa := se.Answer; sa != nil {
			a := &AnswerCheck{Equals: sa.Equals}
			switch {
			case sa.Contains != nil:
				a.Contains = *sa.Contains
			case sa.Regex != nil:
				re, err := regexp.Compile(*sa.Regex)
				if err != nil {
					return nil, fmt.Errorf("%s: case %q: expect.answer.regex: %w", c.Pos, c.ID, err)
				}
				a.Regex = re
			case sa.Schema != nil:
				if a.Schema = compileSchema(sa.Schema); a.Schema == nil {
					return nil, fmt.Errorf("%s: case %q: expect.answer.json_schema does not compile", c.Pos, c.ID)
				}
				a.SchemaDoc = sa.Schema
			}
			c.Expect.Answer = a
		}
	}
	return c, nil
}

// at reads the case the spool holds at offset off.
func (s *Set) at(off int64) (*spooled, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("write the cases to a temporary file: %w", err)
	}
	line, err := bufio.NewReader(io.NewSectionReader(s.spool, off, s.size-off)).ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("read the cases from their temporary file: %w", err)
	}
	sc, err := unspool(new(jsontext.Decoder), line)
	if err != nil {
		return nil, fmt.Errorf("read the cases from their temporary file: %w", err)
	}
	return sc, nil
}

// idIndex says whether an id was seen before, and where.
type idIndex interface {
	// add notes id, of the case at pos; dup says a case before has it
	// too, at first.
	add(id string, pos yamlpos.Pos) (first yamlpos.Pos, dup bool, err error)
}

// exactIDs is an idIndex of the ids themselves.
type exactIDs map[string]yamlpos.Pos

func (m exactIDs) add(id string, pos yamlpos.Pos) (yamlpos.Pos, bool, error) {
	if first, ok := m[id]; ok {
		return first, true, nil
	}
	m[id] = pos
	return pos, false, nil
}

// hashedIDs is an idIndex of the ids' hashes, each with the spool offset
// of its first case, where the id is read back when another has its
// hash: an id the same is a duplicate, another (a collision of 64-bit
// hashes) joins the few kept whole.
type hashedIDs struct {
	s     *Set
	hash  func(string) uint64
	byKey map[uint64]int64
	exact exactIDs
	// idOf is the id a spooled case has in this index.
	idOf func(*spooled) string
}

func (s *Set) index(idOf func(*spooled) string) *hashedIDs {
	seed := maphash.MakeSeed()
	hash := func(id string) uint64 { return maphash.String(seed, id) }
	return &hashedIDs{s: s, hash: hash, byKey: map[uint64]int64{}, exact: exactIDs{}, idOf: idOf}
}

// add notes id, of the case to be written next to the spool.
func (h *hashedIDs) add(id string, pos yamlpos.Pos) (yamlpos.Pos, bool, error) {
	if first, ok := h.exact[id]; ok {
		return first, true, nil
	}
	key := h.hash(id)
	off, ok := h.byKey[key]
	if !ok {
		h.byKey[key] = h.s.size
		return pos, false, nil
	}
	sc, err := h.s.at(off)
	if err != nil {
		return pos, false, err
	}
	first := yamlpos.Pos{File: h.s.paths[sc.File], Line: sc.Line, Col: sc.Col}
	if other := h.idOf(sc); other != id {
		h.exact[other] = first
		h.exact[id] = pos
		return pos, false, nil
	}
	return first, true, nil
}

// Package diff compares the records of two runs request by request: what
// a tool returned is data, and CI should notice when it changes. It pairs
// the tool_result records of two records files by the request they
// answer, compares what matters (the tool's name, the status, the error's
// kind, the content, by value) and reports each place that differs. It
// streams both files at once; memory holds only the records that the
// other file has not reached yet (none when both files are in the same
// order, as two runs of one request file are) and the two records being
// compared, each once, as its file holds it: values are compared on the
// records' own text, never decoded.
package diff

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// File is one side of a comparison: a records file being read.
type File struct {
	Name    string
	Records *records.Reader
}

// Options say what Compare leaves out.
type Options struct {
	// Ignore are places of a record left out, with everything under them.
	Ignore []Path
	// Messages compares the error's message too. It is left out by
	// default: messages hold temporary paths, durations and the wording of
	// other programs' errors, while the kind says what happened.
	Messages bool
	// MaxChanges keeps at most that many changes of a request in its
	// Difference, and counts the others (Difference.More). 0 keeps them
	// all: a request with very many is then handed to emit in several
	// Differences of a few hundred changes each, one after another, so
	// that memory holds no more of them.
	MaxChanges int
	// Same, when set, is called for every request whose records compare
	// equal, with its id and tool, in the order found among emit's calls.
	Same func(request, name string) error
}

// Kind says how the records of a request differ.
type Kind string

// The kinds of difference.
const (
	// Changed: both files answer the request, differently.
	Changed Kind = "changed"
	// NewError: the old record succeeded, the new one is an error.
	NewError Kind = "new_error"
	// Fixed: the old record is an error, the new one succeeded.
	Fixed Kind = "fixed"
	// OnlyOld: the request has a record in the old file only.
	OnlyOld Kind = "only_old"
	// OnlyNew: the request has a record in the new file only.
	OnlyNew Kind = "only_new"
)

// Difference is how the records of one request differ.
type Difference struct {
	// Request is the id of the request the records answer.
	Request string
	// Name is the tool's name: the new record's, when there is one.
	Name string
	Kind Kind
	// OldLine and NewLine are the records' lines in each file, 0 where
	// the file has none.
	OldLine, NewLine int
	// Changes are the places that differ, in the order of the record's
	// fields and then of keys and indexes; none for OnlyOld and OnlyNew.
	// They are valid until emit returns.
	Changes []Change
	// More is how many places differ beyond Changes, under
	// Options.MaxChanges.
	More int
}

// Compare pairs the tool_result records of old and new and calls emit for
// every request whose records differ, as soon as it knows; the Difference
// is valid until emit returns. Records are
// paired by the request they answer: a record's call_id where it has one
// (the tool_result records of a session transcript, which `kesoku run`
// replays under that id), otherwise its parent_id. Records of other types
// and records that name no request are skipped. Where a file holds more
// than one record of a request, an aborted record gives way to a later one
// (a run finished with --resume appends it); other repeats are paired in
// turn, the second of old with the second of new.
//
// Both files are read at once, a record from each in turn; a record is
// kept only until its partner in the other file is read, so that memory
// holds only what one file has not reached yet: nothing when both are in
// the same order, at most the smaller file when they are not.
func Compare(ctx context.Context, old, new File, opts Options, emit func(*Difference) error) (Summary, error) {
	m := &merge{
		cmp:      comparer{ignore: ignoreSet(opts.Ignore), messages: opts.Messages},
		same:     opts.Same,
		emit:     emit,
		sum:      Summary{Old: old.Name, New: new.Name},
		interned: map[string]string{},
	}
	m.w.max = opts.MaxChanges
	m.w.flush = func(cs []Change) error {
		m.d.Changes, m.d.More = cs, 0
		return m.emit(&m.d)
	}
	m.sides[0] = newSide(old, OnlyOld)
	m.sides[1] = newSide(new, OnlyNew)
	for n := 0; !m.sides[0].done || !m.sides[1].done; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return m.sum, ctx.Err()
		}
		var got [2]*entry
		for i := range m.sides {
			if m.sides[i].done {
				continue
			}
			var err error
			if got[i], err = m.next(i); err != nil {
				return m.sum, err
			}
		}
		if err := m.take(got[0], got[1]); err != nil {
			return m.sum, err
		}
	}
	return m.sum, nil
}

// entry is a record waiting for its partner.
type entry struct {
	r    result
	line int
	seq  int    // its place among the records read from its file
	next *entry // the next record of the same request in the same file
}

// side is one file being read.
type side struct {
	File
	only Kind
	done bool
	seq  int
	// lines and records count the file's lines and the Message records
	// among them.
	lines, records int
	// pending are records waiting for the other file's record of their
	// request, each request's in the order read.
	pending map[string]*entry
	// aborted are aborted records that a later record of their request in
	// this file may replace; they are taken as they are at the file's end.
	aborted map[string]*entry
}

func newSide(f File, only Kind) *side {
	return &side{File: f, only: only, pending: map[string]*entry{}, aborted: map[string]*entry{}}
}

type merge struct {
	sides    [2]*side
	cmp      comparer
	emit     func(*Difference) error
	same     func(request, name string) error
	sum      Summary
	interned map[string]string
	// w compares the records of each request in turn, and d is what it
	// hands on: one of each, for the whole comparison.
	w walker
	d Difference
}

// next reads the next tool_result record of side i; at the file's end it
// finishes the side and returns nil.
func (m *merge) next(i int) (*entry, error) {
	s := m.sides[i]
	for s.Records.Scan() {
		h, err := s.Records.Head()
		if records.IsTorn(err) {
			// The last line of a run killed mid-write: its request has no
			// record, which the user is told why.
			m.sum.Torn = append(m.sum.Torn, s.Name)
			continue
		}
		if err != nil {
			return nil, err
		}
		s.lines++
		switch h.Type {
		case message.TypeText, message.TypeToolCall, message.TypeToolResult, records.TypeShardEnd:
			s.records++
		}
		if h.Type != message.TypeToolResult {
			continue
		}
		r := resultOf(&h)
		if r.key == "" {
			continue
		}
		line, _ := s.Records.Pos()
		s.seq++
		return &entry{r: r, line: line, seq: s.seq}, nil
	}
	if err := s.Records.Err(); err != nil {
		return nil, err
	}
	if s.lines > 0 && s.records == 0 {
		// A request file, say: compared as records, it would answer no
		// request, and a CI job comparing the wrong files would pass.
		return nil, fmt.Errorf("%s: none of its %d %s is a Message record: diff compares the records that run and session write", s.Name, s.lines, english.Plural(s.lines, "line", "lines"))
	}
	return nil, m.finish(i)
}

// take pairs or keeps the records just read from each side, a of old and
// b of new (nil for a side that has ended).
func (m *merge) take(a, b *entry) error {
	if a != nil && b != nil && a.r.key == b.r.key && !a.aborted() && !b.aborted() &&
		m.sides[0].pending[a.r.key] == nil && m.sides[1].pending[a.r.key] == nil {
		// Both files in one order: the common case, paired without
		// being kept, as place would pair them.
		delete(m.sides[0].aborted, a.r.key)
		delete(m.sides[1].aborted, a.r.key)
		return m.pair(a, b)
	}
	for i, e := range [2]*entry{a, b} {
		if e == nil {
			continue
		}
		s := m.sides[i]
		if e.aborted() {
			m.keep(e)
			s.aborted[e.r.key] = e
			continue
		}
		delete(s.aborted, e.r.key)
		if err := m.place(i, e, false); err != nil {
			return err
		}
	}
	return nil
}

func (e *entry) aborted() bool { return e.r.status == string(message.StatusAborted) }

// place pairs e, a record of side i, with the other side's waiting record
// of its request, or keeps it waiting (kept: it is ready to wait already).
func (m *merge) place(i int, e *entry, kept bool) error {
	s, o := m.sides[i], m.sides[1-i]
	if w := o.pending[e.r.key]; w != nil {
		if w.next != nil {
			o.pending[e.r.key] = w.next
		} else {
			delete(o.pending, e.r.key)
		}
		if i == 0 {
			return m.pair(e, w)
		}
		return m.pair(w, e)
	}
	if o.done {
		return m.only(s, e)
	}
	if !kept {
		m.keep(e)
	}
	if w := s.pending[e.r.key]; w != nil {
		for w.next != nil {
			w = w.next
		}
		w.next = e
	} else {
		s.pending[e.r.key] = e
	}
	return nil
}

// keep readies e for waiting: its content copied out of the line, which
// the next line read takes, into memory of its own size; and the strings
// that repeat from record to record (names, statuses, kinds) shared, so
// that a million records kept waiting do not hold a million copies of
// "calculate_sum".
func (m *merge) keep(e *entry) {
	r := &e.r
	if r.content != nil {
		c := make([]byte, len(r.content))
		copy(c, r.content)
		r.content = c
	}
	r.name = m.intern(r.name)
	r.status = m.intern(r.status)
	r.errKind = m.intern(r.errKind)
}

// maxInterned bounds the strings intern shares: tool names, statuses and
// error kinds are few, and a file of a million names is no reason to hold
// them twice.
const maxInterned = 4096

func (m *merge) intern(s string) string {
	if v, ok := m.interned[s]; ok {
		return v
	}
	if len(m.interned) < maxInterned {
		m.interned[s] = s
	}
	return s
}

// finish ends side i: its aborted records are taken as they are, and the
// other side's waiting records will find no partner.
func (m *merge) finish(i int) error {
	s, o := m.sides[i], m.sides[1-i]
	for _, e := range inOrder(s.aborted) {
		if err := m.place(i, e, true); err != nil {
			return err
		}
	}
	clear(s.aborted)
	s.done = true
	for _, e := range inOrder(o.pending) {
		for ; e != nil; e = e.next {
			if err := m.only(o, e); err != nil {
				return err
			}
		}
	}
	clear(o.pending)
	return nil
}

// inOrder returns the entries of m in the order they were read.
func inOrder(m map[string]*entry) []*entry {
	return slices.SortedFunc(maps.Values(m), func(a, b *entry) int { return cmp.Compare(a.seq, b.seq) })
}

func (m *merge) pair(old, new *entry) error {
	m.sum.Total++
	d := &m.d
	*d = Difference{Request: new.r.key, Name: new.r.name, Kind: Changed, OldLine: old.line, NewLine: new.line}
	if d.Name == "" {
		d.Name = old.r.name
	}
	switch {
	case !old.r.isError && new.r.isError:
		d.Kind = NewError
	case old.r.isError && !new.r.isError:
		d.Kind = Fixed
	}
	w := &m.w
	w.kept, w.found, w.handed, w.err = w.kept[:0], 0, 0, nil
	m.cmp.records(w, &old.r, &new.r)
	if w.err != nil {
		return fmt.Errorf("%s:%d: content: %w", m.sides[1].Name, new.line, w.err)
	}
	if w.found == 0 {
		m.sum.Same++
		if m.same != nil {
			return m.same(d.Request, d.Name)
		}
		return nil
	}
	switch d.Kind {
	case NewError:
		m.sum.NewErrors++
	case Fixed:
		m.sum.Fixed++
	default:
		m.sum.Changed++
	}
	if len(w.kept) == 0 && w.handed > 0 {
		return nil // every change handed on already
	}
	d.Changes, d.More = w.kept, w.found-w.handed-len(w.kept)
	return m.emit(d)
}

func (m *merge) only(s *side, e *entry) error {
	m.sum.Total++
	if s.only == OnlyOld {
		m.sum.OnlyOld++
	} else {
		m.sum.OnlyNew++
	}
	d := &Difference{Request: e.r.key, Name: e.r.name, Kind: s.only}
	if s.only == OnlyOld {
		d.OldLine = e.line
	} else {
		d.NewLine = e.line
	}
	return m.emit(d)
}

package records

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/message"
)

// The flags of a span.
const (
	spanRewrite = 1 << iota
	spanFailed
	spanAborted
	// spanBudget: an eval's run whose verdict the budget cut, which a
	// later block of its position replaces.
	spanBudget
)

// part is one shard's records file, read once to find its records.
type part struct {
	name  string
	index int    // among the parts given
	spans []span // in request order
	// eval says the part is an eval's: each span is a block, a run's
	// transcript and its verdict.
	eval bool
	// end is what its shard_end line says, nil where it has none after
	// its last record: its run did not finish, or it lost its last lines.
	end *ShardEnd
}

// UnfinishedError says a part of a merge is of a shard whose run did not
// finish, which resuming that run does. Msg says what is missing and
// ends where the advice begins; Torn says the part's last record is cut
// short.
type UnfinishedError struct {
	Msg  string
	Torn bool
}

func (e *UnfinishedError) Error() string {
	if e.Torn {
		return e.Msg + " resume its shard's run, which finishes it"
	}
	return e.Msg + " resume its run"
}

// Merge writes the records of the files parts — the -o files of the N
// shards of one run (kesoku run --shard K/N, K = 1…N), in any order — to
// w, as the whole run would have written them: one record per request,
// in request order, each line as its shard wrote it.
//
// Each record's place is its position, which the shard wrote (never a
// number read out of an id: a user's own ids may be call_2, call_1). A
// shard resumed with --resume may hold an aborted or failed record of a
// request and, later, the one of its run again: the later record of a
// position takes the place of the earlier. One that succeeded is never
// run again, so a second record of it is refused.
//
// Each part ends with the shard_end line its shard's run wrote when it
// finished (ShardEnd): which shard of how many, of how many requests.
// Parts that cannot be the N shards of one run are refused, saying which
// part and why: a part whose last line is cut short (its run was killed
// mid-write), one that does not end with its shard_end line (its run did
// not finish, or it lost its last lines), one that lacks a record of a
// request of its shard although it ends, or holds another shard's, two
// parts of one shard, a part missing. Nothing is written then. Any number
// of parts is merged, a few open at a time.
func Merge(parts []string, w io.Writer) (MergeReport, error) {
	m, err := OpenMerge(parts)
	if err != nil {
		return m.sum, err
	}
	return m.Write(w)
}

// Merging is a merge whose parts were read and found to be the shards of
// one run, before anything is written.
type Merging struct {
	parts   []string
	sum     MergeReport
	byShard []*part
	total   int
}

// OpenMerge reads the parts of a merge (see Merge), and refuses them as
// Merge does. Its Merging is never nil: its report so far is that of the
// parts read.
func OpenMerge(parts []string) (*Merging, error) {
	m := &Merging{parts: parts, sum: MergeReport{Parts: len(parts)}}
	kinds := &kindTable{}
	ps := make([]*part, len(parts))
	for i, name := range parts {
		p, replaced, err := readPart(name, kinds)
		if err != nil {
			return m, err
		}
		p.index = i
		ps[i] = p
		m.sum.Replaced += replaced.aborted + replaced.failed
		m.sum.ReplacedFailed += replaced.failed
	}
	byShard, err := placeShards(ps)
	if err != nil {
		return m, err
	}
	var first *part
	for _, p := range byShard {
		switch {
		case len(p.spans) == 0:
		case first == nil:
			first = p
		case p.eval != first.eval:
			return m, fmt.Errorf("%s and %s are not shards of one command's output: one holds kesoku eval's records, the other kesoku run's", first.name, p.name)
		}
	}
	m.sum.Eval = first != nil && first.eval
	for _, p := range byShard {
		m.total += len(p.spans) // only once the parts are whole
	}
	m.byShard = byShard
	for _, s := range m.inOrder {
		m.sum.add(s.flags&spanFailed != 0, s.flags&spanAborted != 0, kinds.kind(s.kind))
	}
	return m, nil
}

// Report is what the merge found so far: of the parts read.
func (m *Merging) Report() MergeReport { return m.sum }

// Eval says the parts are kesoku eval's.
func (m *Merging) Eval() bool { return m.sum.Eval }

// End is what the parts' shard_end lines say of the whole run, the
// first shard's; zero for no part.
func (m *Merging) End() ShardEnd {
	if len(m.byShard) == 0 {
		return ShardEnd{}
	}
	return *m.byShard[0].end
}

// inOrder yields every position from 1 to the last, once, from the shard
// of its place: position p is the ((p-1)/N)-th record of shard (p-1) mod
// N.
func (m *Merging) inOrder(yield func(int, span) bool) {
	n := len(m.byShard)
	for k := range m.total {
		p := m.byShard[k%n]
		if !yield(p.index, p.spans[k/n]) {
			return
		}
	}
}

// Write writes the merged records to w (see Merge).
func (m *Merging) Write(w io.Writer) (MergeReport, error) {
	// The parts are read again, by name, a few open at a time: a merge
	// of any number of parts stays within the files a process may open.
	src := newLineFiles(m.parts)
	defer src.Close()
	return m.sum, writeSpans(w, src, m.inOrder)
}

// replacements counts the records of a part that gave way to a later
// one of their request: aborted ones, and error records, which a resumed
// run runs again.
type replacements struct{ aborted, failed int }

// readPart reads the records file of a shard: its requests in order, each
// with its last record, and how many records gave way to a later one of
// their request. A request answered with success and then again is
// refused: a resumed run never runs it again, so the part is not one
// shard's file (one joined with itself, say).
func readPart(name string, kinds *kindTable) (_ *part, replaced replacements, err error) {
	// A part is read twice, to find its records and to copy them: a FIFO
	// or a device cannot be (and opening a FIFO waits for its writer).
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return nil, replaced, fmt.Errorf("%s: is a directory", name)
	} else if err == nil && !st.Mode().IsRegular() {
		return nil, replaced, &NotRegularError{Path: name, Mode: st.Mode()}
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, replaced, err
	}
	// Read now to find its records, and again, a few parts open at a
	// time, to copy them.
	defer f.Close()
	p := &part{name: name}
	rd := NewReader(f, name)
	// The part's first record says whose it is: a run's file is its
	// tool_result records, an eval's begins with a run's transcript (or a
	// verdict alone).
	decided, firstLine := false, 0
	var br blockReader
	for rd.Scan() {
		h, err := rd.Head()
		line, _ := rd.Pos()
		switch {
		case IsTorn(err):
			return nil, replaced, &UnfinishedError{Msg: fmt.Sprintf("%s:%d: its last record is cut short (the run that wrote it was killed mid-write):", name, line), Torn: true}
		case err != nil:
			return nil, replaced, err
		case h.Type == TypeShardEnd:
			e, err := shardEndOf(h)
			if err != nil {
				return nil, replaced, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			if br.pending > 0 {
				return nil, replaced, fmt.Errorf("%s:%d: a shard's end after records of a run without its verdict: this is no shard's file as kesoku eval wrote it", name, line)
			}
			p.end = &e
			continue
		case !decided:
			decided, p.eval, firstLine = true, h.Type != message.TypeToolResult, line
		}
		// A record after a shard_end line is of a run that went on (a
		// resumed one, say): the end is no longer the part's.
		p.end = nil
		off, n := rd.Span()
		var s span
		if p.eval {
			var ok bool
			if s, ok, _ = br.line(h, off, n); !ok {
				continue
			}
			switch {
			case h.Position <= 0:
				return nil, replaced, fmt.Errorf("%s:%d: a verdict without its position in the eval: merge joins the records that the shards of kesoku eval write", name, line)
			case s.n < 0:
				return nil, replaced, fmt.Errorf("%s:%d: a run's records of more than 2 GiB", name, line)
			}
			if h.Error != nil {
				s.kind = kinds.index(h.Error.Kind)
			}
		} else {
			switch {
			case h.Type != message.TypeToolResult || h.ParentID == "":
				return nil, replaced, fmt.Errorf("%s:%d: not a record of kesoku run (a tool_result with a parent_id)", name, line)
			case h.Position <= 0:
				return nil, replaced, fmt.Errorf("%s:%d: a record without its position in the run: merge joins the records that the shards of kesoku run write "+
					"(this one is of another writer, or of a kesoku before records had positions: run the shard again)", name, line)
			}
			s = span{pos: h.Position, off: off, n: int32(n)}
			if h.IsError || h.Error != nil {
				s.flags |= spanFailed
				if h.Error != nil {
					s.kind = kinds.index(h.Error.Kind)
				}
			}
			if h.Status == message.StatusAborted {
				s.flags |= spanAborted
			}
		}
		// A later record of a position is a resumed run's: it replaces.
		if k := len(p.spans); k == 0 || p.spans[k-1].pos < s.pos {
			p.spans = append(p.spans, s)
		} else if i, found := slices.BinarySearchFunc(p.spans, s.pos, func(a span, pos int64) int { return cmp.Compare(a.pos, pos) }); found {
			switch was := p.spans[i].flags; {
			case was&(spanAborted|spanBudget) != 0:
				replaced.aborted++
			case was&spanFailed != 0 && !p.eval:
				replaced.failed++
			case p.eval:
				return nil, replaced, fmt.Errorf("%s:%d: a second verdict of run %d (case %q), which line %d ended with a final verdict: "+
					"a resumed eval never runs a run that has one again, so this is no shard's file as kesoku eval wrote it (a part joined with itself, or with another eval's?)",
					name, line, s.pos, h.ParentID, lineAt(f, p.spans[i].off+int64(p.spans[i].n)-1))
			default:
				return nil, replaced, fmt.Errorf("%s:%d: a second record of request %d (id %q), which line %d answered with success: "+
					"a resumed run never runs a request that succeeded again, so this is no shard's file as kesoku run wrote it (a part joined with itself, or with another run's?)",
					name, line, s.pos, h.ParentID, lineAt(f, p.spans[i].off))
			}
			p.spans[i] = s
		} else {
			p.spans = slices.Insert(p.spans, i, s)
		}
	}
	if br.pending > 0 {
		if len(p.spans) == 0 {
			return nil, replaced, fmt.Errorf("%s:%d: not a record of kesoku run (a tool_result with a parent_id), and no verdict of kesoku eval follows it", name, firstLine)
		}
		// Records of a run after the last verdict: the run was cut.
		p.end = nil
	}
	if err := rd.Err(); err != nil {
		return nil, replaced, err
	}
	return p, replaced, nil
}

// lineAt is the number of the line of f that starts at off: for the
// message that names a line read before, which a span does not keep.
func lineAt(f *os.File, off int64) int {
	n := 1
	br := bufio.NewReader(io.NewSectionReader(f, 0, off))
	for {
		b, err := br.ReadSlice('\n')
		if len(b) > 0 && b[len(b)-1] == '\n' {
			n++
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return n
		}
	}
}

// placeShards finds which shard of the run each part is, from the
// shard_end line it ends with, and refuses parts that cannot be the
// shards of one run: N parts are shards 1 to N of N, of one run of R
// requests, shard K holding a record of every request at positions K,
// K+N, K+2N… up to R. It returns the parts in shard order.
func placeShards(ps []*part) ([]*part, error) {
	var first *part
	for _, p := range ps {
		if p.end == nil {
			what := "its last record is not its shard's end (a shard_end line)"
			if len(p.spans) == 0 {
				what = "it holds no record, nor its shard's end (a shard_end line)"
			}
			return nil, &UnfinishedError{Msg: fmt.Sprintf("%s: %s: the shard's run did not finish, or the file lost its last lines;", p.name, what)}
		}
		if first == nil {
			first = p
			continue
		}
		if e, f := p.end, first.end; e.Shards != f.Shards || e.Requests != f.Requests {
			return nil, fmt.Errorf("%s and %s are not shards of one run: one is of %d shards of %d requests, the other of %d shards of %d requests",
				first.name, p.name, f.Shards, f.Requests, e.Shards, e.Requests)
		} else if e.Threshold != f.Threshold {
			// The merged eval passes by one threshold: taking either
			// would pass or fail it silently.
			return nil, fmt.Errorf("%s and %s are not shards of one eval: their pass@1 thresholds differ (%s, %s)", first.name, p.name, thresholdText(f.Threshold), thresholdText(e.Threshold))
		}
	}
	if len(ps) == 0 {
		return nil, nil
	}
	// The number of shards is checked before anything is made of it: a
	// part's end may say any number.
	n := first.end.Shards
	if n != int64(len(ps)) {
		if n < int64(len(ps)) {
			return nil, fmt.Errorf("%d parts given, but they are shards of %d (%s says): a part given twice, or one of another run?", len(ps), n, first.name)
		}
		have := map[int64]bool{}
		for _, p := range ps {
			have[p.end.Shard] = true
		}
		var missing []string
		for k := int64(1); k <= n && len(missing) < 8; k++ {
			if !have[k] {
				missing = append(missing, fmt.Sprint(k))
			}
		}
		return nil, fmt.Errorf("a part is missing: the parts are shards of %d (%s says), and %d %s given; shard %s of %d %s not among them",
			n, first.name, len(ps), english.Plural(len(ps), "is", "are"), strings.Join(missing, ", "), n, english.Plural(len(missing), "is", "are"))
	}
	byShard := make([]*part, n)
	for _, p := range ps {
		k := p.end.Shard
		if q := byShard[k-1]; q != nil {
			return nil, fmt.Errorf("%s and %s both hold shard %d of %d", q.name, p.name, k, n)
		}
		byShard[k-1] = p
	}
	for k, p := range byShard {
		shard := int64(k + 1)
		want := p.end.Records()
		for j, s := range p.spans {
			switch at := shard + int64(j)*n; {
			case s.pos > p.end.Requests:
				return nil, fmt.Errorf("%s (shard %d of %d) holds a record of request %d, past the run's %d requests its end says", p.name, shard, n, s.pos, p.end.Requests)
			case s.pos < at:
				return nil, fmt.Errorf("%s (shard %d of %d) holds a record of request %d, which is not its shard's", p.name, shard, n, s.pos)
			case s.pos > at:
				return nil, &UnfinishedError{Msg: fmt.Sprintf("%s (shard %d of %d) has no record of request %d: it holds %d of its %d requests;", p.name, shard, n, at, len(p.spans), want)}
			}
		}
		if got := int64(len(p.spans)); got != want {
			return nil, &UnfinishedError{Msg: fmt.Sprintf("%s (shard %d of %d) holds %d of its %d requests (of the run's %d): it has no record of request %d, yet it ends as finished: it lost records;",
				p.name, shard, n, got, want, p.end.Requests, shard+got*n)}
		}
	}
	return byShard, nil
}

// kindTable numbers the error kinds of the records merged, so that a span
// holds its kind in a byte.
type kindTable struct{ kinds []message.ErrorKind }

func (t *kindTable) index(k message.ErrorKind) uint8 {
	if i := slices.Index(t.kinds, k); i >= 0 {
		return uint8(i + 1)
	}
	if len(t.kinds) == math.MaxUint8-1 {
		return math.MaxUint8 // more kinds than any writer has: one for the rest
	}
	t.kinds = append(t.kinds, k)
	return uint8(len(t.kinds))
}

func (t *kindTable) kind(i uint8) message.ErrorKind {
	switch {
	case i == 0:
		return ""
	case int(i) > len(t.kinds):
		return "other"
	}
	return t.kinds[i-1]
}

// readErr says that reading the file name failed, naming it once: an
// error of the file's own (*fs.PathError) already says "read NAME".
func readErr(name string, err error) error {
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		return err
	}
	return fmt.Errorf("read %s: %w", name, err)
}

// thresholdText says an eval's pass@1 threshold, where 0 is none (every
// run must pass).
func thresholdText(t float64) string {
	if t == 0 {
		return "none"
	}
	return strconv.FormatFloat(t, 'g', -1, 64)
}

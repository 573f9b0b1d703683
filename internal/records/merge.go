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
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/message"
)

// The flags of a span.
const (
	spanRewrite = 1 << iota
	spanFailed
	spanAborted
)

// part is one shard's records file, read once to find its records.
type part struct {
	name  string
	spans []span // in request order
	shard int64  // which of the run's shards it is, once known; 0 before
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
// run again, so a second record of it is refused. Parts that cannot be the N shards of one run are
// refused, saying which part and why, as far as the records tell: a part
// whose last record is cut short (its run was killed mid-write), a part
// that lacks a record of a request of its shard, or whose requests are
// another shard's, a part missing. Nothing is written then.
func Merge(parts []string, w io.Writer) (Summary, error) {
	sum := Summary{Command: CommandMerge, Parts: len(parts)}
	if len(parts) > math.MaxInt16 {
		return sum, fmt.Errorf("%d parts: merge joins at most %d", len(parts), math.MaxInt16)
	}
	kinds := &kindTable{}
	ps := make([]*part, len(parts))
	total := 0
	for i, name := range parts {
		p, replaced, err := readPart(name, int16(i), kinds)
		if err != nil {
			return sum, err
		}
		ps[i] = p
		total += len(p.spans)
		sum.Replaced += replaced.aborted + replaced.failed
		sum.ReplacedFailed += replaced.failed
	}
	byShard, err := placeShards(ps)
	if err != nil {
		return sum, err
	}
	// The parts are read again, by name, a few open at a time: a merge
	// of any number of parts stays within the files a process may open.
	src := newLineFiles(parts)
	defer src.Close()
	// Every position from 1 to the last is held, once, by the shard of its
	// place: position p is the ((p-1)/N)-th record of shard (p-1) mod N.
	n := len(byShard)
	inOrder := func(yield func(span) bool) {
		for k := range total {
			if !yield(byShard[k%n].spans[k/n]) {
				return
			}
		}
	}
	for s := range inOrder {
		sum.add(s.flags&spanFailed != 0, s.flags&spanAborted != 0, kinds.kind(s.kind))
	}
	return sum, writeSpans(w, src, inOrder)
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
func readPart(name string, index int16, kinds *kindTable) (_ *part, replaced replacements, err error) {
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
	for rd.Scan() {
		h, err := rd.Head()
		line, _ := rd.Pos()
		switch {
		case IsTorn(err):
			return nil, replaced, &UnfinishedError{Msg: fmt.Sprintf("%s:%d: its last record is cut short (the run that wrote it was killed mid-write):", name, line), Torn: true}
		case err != nil:
			return nil, replaced, err
		case h.Type != message.TypeToolResult || h.ParentID == "":
			return nil, replaced, fmt.Errorf("%s:%d: not a record of kesoku run (a tool_result with a parent_id)", name, line)
		case h.Position <= 0:
			return nil, replaced, fmt.Errorf("%s:%d: a record without its position in the run: merge joins the records that the shards of kesoku run write "+
				"(this one is of another writer, or of a kesoku before records had positions: run the shard again)", name, line)
		}
		off, n := rd.Span()
		s := span{pos: h.Position, off: off, n: int32(n), part: index}
		if h.IsError || h.Error != nil {
			s.flags |= spanFailed
			if h.Error != nil {
				s.kind = kinds.index(h.Error.Kind)
			}
		}
		if h.Status == message.StatusAborted {
			s.flags |= spanAborted
		}
		// A later record of a position is a resumed run's: it replaces.
		if k := len(p.spans); k == 0 || p.spans[k-1].pos < s.pos {
			p.spans = append(p.spans, s)
		} else if i, found := slices.BinarySearchFunc(p.spans, s.pos, func(a span, pos int64) int { return cmp.Compare(a.pos, pos) }); found {
			switch was := p.spans[i].flags; {
			case was&spanAborted != 0:
				replaced.aborted++
			case was&spanFailed != 0:
				replaced.failed++
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
// positions of its records, and refuses parts that cannot be the shards of
// one run: N parts are shards 1 to N of N, shard K holding the requests at
// positions K, K+N, K+2N…, every one up to the last of the run. It returns
// the parts in shard order.
func placeShards(ps []*part) ([]*part, error) {
	n := int64(len(ps))
	// step is what every part's positions are apart: the number of shards
	// of their run, or a multiple of it.
	step := int64(0)
	var stepOf *part
	for _, p := range ps {
		if len(p.spans) < 2 {
			continue
		}
		for _, s := range p.spans[1:] {
			if d := s.pos - p.spans[0].pos; d > 0 {
				if g := gcd(step, d); g != step {
					step, stepOf = g, p
				}
			}
		}
	}
	if step != 0 && step%n != 0 {
		return nil, shardsOf(ps, step, stepOf)
	}
	byShard := make([]*part, n)
	var empty []*part
	last := int64(0)
	for _, p := range ps {
		if len(p.spans) == 0 {
			empty = append(empty, p)
			continue
		}
		last = max(last, p.spans[len(p.spans)-1].pos)
		p.shard = (p.spans[0].pos-1)%n + 1
		if q := byShard[p.shard-1]; q != nil {
			if step == 0 {
				return nil, fmt.Errorf("%s and %s cannot both be among %d shards of one run (one holds request %d, the other request %d): is a part missing, or given twice?",
					q.name, p.name, n, q.spans[0].pos, p.spans[0].pos)
			}
			return nil, fmt.Errorf("%s and %s both hold shard %d of %d", q.name, p.name, p.shard, n)
		}
		byShard[p.shard-1] = p
	}
	for k := int64(1); k <= n; k++ {
		p := byShard[k-1]
		if p == nil {
			if k > last {
				// A shard with nothing to do: an empty part is it.
				byShard[k-1], empty = empty[0], empty[1:]
				continue
			}
			if len(empty) == 0 {
				return nil, fmt.Errorf("no part holds shard %d of %d (request %d is of it): a part is missing", k, n, k)
			}
			names := make([]string, len(empty))
			for i, e := range empty {
				names[i] = e.name
			}
			return nil, &UnfinishedError{Msg: fmt.Sprintf("%s %s no record, but shard %d of %d has requests (request %d): the shard is unfinished;",
				strings.Join(names, " and "), english.Plural(len(empty), "holds", "hold"), k, n, k)}
		}
		// Its requests are k, k+n, …, up to the run's last request.
		want := (last-k)/n + 1
		if got := int64(len(p.spans)); got != want {
			missing := k
			for j, s := range p.spans {
				if s.pos != k+int64(j)*n {
					missing = k + int64(j)*n
					break
				}
				missing = s.pos + n
			}
			return nil, &UnfinishedError{Msg: fmt.Sprintf("%s (shard %d of %d) holds %d of its %d requests up to request %d of the run: it has no record of request %d; "+
				"the shard is unfinished or was cut short:", p.name, k, n, got, want, last, missing)}
		}
	}
	return byShard, nil
}

// shardsOf is the error of parts whose positions are step apart, which is
// no multiple of their number: shards of another number, some of them not
// given, or parts of other runs.
func shardsOf(ps []*part, step int64, stepOf *part) error {
	n := int64(len(ps))
	// The run's number of shards divides step, and is at least the number
	// of parts that hold records, each of another shard.
	held := 0
	for _, p := range ps {
		if len(p.spans) > 0 {
			held++
		}
	}
	for shards := n + 1; shards <= step; shards++ {
		if step%shards != 0 {
			continue
		}
		have := map[int64]bool{}
		distinct := true
		for _, p := range ps {
			if len(p.spans) == 0 {
				continue
			}
			k := (p.spans[0].pos-1)%shards + 1
			distinct = distinct && !have[k]
			have[k] = true
		}
		if !distinct || len(have) != held {
			continue
		}
		var missing []string
		for k := int64(1); k <= shards && len(missing) < 8; k++ {
			if !have[k] {
				missing = append(missing, fmt.Sprint(k))
			}
		}
		return fmt.Errorf("a part is missing: the parts are shards of %d (the requests of %s are %d apart), and %d %s given; "+
			"shard %s of %d %s not among them", shards, stepOf.name, step, n, english.Plural(int(n), "is", "are"),
			strings.Join(missing, ", "), shards, english.Plural(len(missing), "is", "are"))
	}
	return fmt.Errorf("the parts cannot be the %d shards of one run: the requests of %s are %d apart, not a multiple of %d", n, stepOf.name, step, n)
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
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

package records

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"

	"github.com/kesoku/kesoku/message"
)

// An eval's records file is made of blocks: the records of one run of a
// case (its transcript) and, last, the run's verdict, whose position is
// the run's place in the whole eval. A block is every line after the
// previous verdict (or the file's start, or a shard_end line) up to and
// including its verdict: lines after the last verdict are a run cut short.

// Verdicts is what --resume knows of an earlier eval from its records
// file: the verdict of each run, by position. A verdict of kind budget is
// not final (the run was cut, and runs again); any other is, and a run
// with a final verdict is not run again.
type Verdicts struct {
	mu   sync.Mutex
	runs map[int64]verdictOf
	// came are the positions the resumed eval came to: run again, or
	// skipped with their block kept. Compact keeps the blocks of these
	// alone.
	came map[int64]bool
	// ends are the shards whose end the file holds.
	ends []ShardEnd
}

// ShardMismatchError says that a file which ends a shard is resumed as
// another shard's (or the shards are as many no more): the run or eval
// would drop the records it holds, which are not the share it comes to.
type ShardMismatchError struct {
	Path string
	// End is what the file's shard_end says; Shard and Shards are the
	// share of the eval that resumes it.
	End           ShardEnd
	Shard, Shards int64
}

func (e *ShardMismatchError) Error() string {
	return fmt.Sprintf("%s ends shard %d of %d, not %d of %d: each shard goes on with its own file",
		e.Path, e.End.Shard, e.End.Shards, e.Shard, e.Shards)
}

// CheckShard refuses a file that ends a shard other than shard of shards,
// when the resumed eval is sharded: its compaction would drop the runs of
// the other share. An eval that is not sharded comes to every run, and
// may finish a shard's file.
func (v *Verdicts) CheckShard(path string, shard, shards int64) error {
	return checkShard(v.ends, path, shard, shards)
}

func checkShard(ends []ShardEnd, path string, shard, shards int64) error {
	if shards == 0 {
		return nil
	}
	for _, e := range ends {
		if e.Shard != shard || e.Shards != shards {
			return &ShardMismatchError{Path: path, End: e, Shard: shard, Shards: shards}
		}
	}
	return nil
}

type verdictOf struct {
	caseID        string
	repeat        int
	final, failed bool
}

// NewVerdicts returns Verdicts that know of no verdict yet.
func NewVerdicts() *Verdicts {
	return &Verdicts{runs: map[int64]verdictOf{}, came: map[int64]bool{}}
}

// isFinal reports whether a verdict's head is final: one the budget cut is
// not.
func isFinal(h Head) bool {
	return h.Error == nil || h.Error.Kind != message.KindBudget
}

// Add notes one record of the earlier eval, in the order of the file. A
// later verdict of a position replaces an earlier one, unless the earlier
// was final and the later is not.
func (v *Verdicts) Add(h Head) {
	if h.Type != message.TypeVerdict || h.Position <= 0 {
		return
	}
	was, ok := v.runs[h.Position]
	final := isFinal(h)
	if ok && was.final && !final {
		return
	}
	v.runs[h.Position] = verdictOf{caseID: h.ParentID, repeat: h.Repeat, final: final, failed: h.IsError}
}

// Skip says whether the run at position, the repeat-th of the case
// caseID, has a final verdict, and whether that verdict failed; it notes
// that the resumed eval came to the run. A final verdict of another case
// or another of its runs (the eval files or --repeat changed since) does
// not count: the run runs again and its block replaces the old.
func (v *Verdicts) Skip(position int64, caseID string, repeat int) (failed, ok bool) {
	if v == nil {
		return false, false
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.came[position] = true
	r, found := v.runs[position]
	if !found || !r.final || r.caseID != caseID || r.repeat != 0 && r.repeat != repeat {
		return false, false
	}
	return r.failed, true
}

// come notes that the resumed eval wrote a block of position.
func (v *Verdicts) come(position int64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.came[position] = true
}

// Len is how many runs have a final verdict.
func (v *Verdicts) Len() int {
	n := 0
	for _, r := range v.runs {
		if r.final {
			n++
		}
	}
	return n
}

// ResumeEval opens the eval records file at path (created if need be) to
// go on with the eval that wrote it, as Resume does a run's: its lock
// taken, its verdicts read (Resumed.Verdicts), its torn last line cut.
// Compact then leaves one block per run in position order.
func ResumeEval(path string) (*Resumed, error) {
	f, err := openLocked(path, os.O_RDWR)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &ReadError{fmt.Errorf("%s is a directory", path)}
	}
	v := NewVerdicts()
	rd := NewReader(f, path)
	first := true
	for rd.Scan() {
		h, err := rd.Head()
		if IsTorn(err) {
			break
		}
		if err != nil {
			f.Close()
			return nil, &ReadError{err}
		}
		if first && h.Type != TypeShardEnd {
			// An eval's file begins with a run's transcript or a verdict;
			// a run's tool_result records would be dropped by the
			// compaction as no run's.
			first = false
			if h.Type == message.TypeToolResult {
				line, _ := rd.Pos()
				f.Close()
				return nil, &ReadError{fmt.Errorf("%s:%d: a record of kesoku run, not of kesoku eval: --resume goes on with the eval that wrote the file", path, line)}
			}
		}
		if h.Type == TypeShardEnd {
			e, err := shardEndOf(h)
			if err != nil {
				line, _ := rd.Pos()
				f.Close()
				return nil, &ReadError{fmt.Errorf("%s:%d: %w", path, line, err)}
			}
			v.ends = append(v.ends, e)
		}
		v.Add(h)
	}
	if err := rd.Err(); err != nil {
		f.Close()
		return nil, &ReadError{err}
	}
	return resumeAt(f, path, NewFinished(), v)
}

// blockReader finds the blocks of an eval's records file, one line at a
// time: each verdict closes the block begun after the previous one.
type blockReader struct {
	start   int64 // where the current block begins
	pending int   // its lines before the verdict
}

// line takes the next line of the file, at off, n bytes, with its head.
// It returns the block the line closes (a verdict's), ok false for a
// line within a block; a shard_end line ends any block begun, and its
// lines (a run cut short) are counted in cut.
func (b *blockReader) line(h Head, off, n int64) (s span, ok bool, cut int) {
	end := off + n
	switch h.Type {
	case TypeShardEnd:
		cut, b.start, b.pending = b.pending, end, 0
		return span{}, false, cut
	case message.TypeVerdict:
		s = span{pos: h.Position, off: b.start}
		size := end - b.start
		if size > math.MaxInt32 {
			size = -1
		}
		s.n = int32(size)
		if h.IsError || h.Error != nil {
			s.flags |= spanFailed
		}
		if !isFinal(h) {
			s.flags |= spanBudget
		}
		b.start, b.pending = end, 0
		return s, true, 0
	}
	b.pending++
	return span{}, false, 0
}

// compactBlocks is Compact of an eval's file: each run the resumed eval
// came to keeps one block, its last final one (else its last one), the
// blocks in position order; the end line, when set, last.
func (r *Resumed) compactBlocks(end *message.Record) (Compaction, error) {
	var c Compaction
	if err := r.Flush(); err != nil {
		return c, err
	}
	st, err := r.f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		if end != nil {
			r.Writer.Write(end)
		}
		return c, r.Close()
	}
	best := map[int64]span{}
	same := true
	var last int64
	var br blockReader
	rd := NewReader(io.NewSectionReader(r.f, 0, st.Size()), r.path)
	for rd.Scan() {
		h, err := rd.Head()
		if err != nil {
			r.Close()
			return c, fmt.Errorf("compact %s: %w", r.path, err)
		}
		off, n := rd.Span()
		if off >= r.base && br.start < r.base {
			// The resumed eval's records begin a block anew: what came
			// before them without a verdict was a run cut short.
			c.Dropped += br.pending
			br.start, br.pending = r.base, 0
			same = same && c.Dropped == 0
		}
		s, ok, cut := br.line(h, off, n)
		if h.Type == TypeShardEnd {
			same = false
			c.Dropped += cut
			continue
		}
		if !ok {
			continue
		}
		if s.n < 0 {
			line, _ := rd.Pos()
			r.Close()
			return c, fmt.Errorf("compact %s: line %d: a run's records of more than 2 GiB", r.path, line)
		}
		if !r.Verdicts.came[s.pos] {
			c.Dropped++
			same = false
			continue
		}
		if s.pos <= last {
			same = false
		}
		last = s.pos
		was, found := best[s.pos]
		if found && was.flags&spanBudget == 0 && s.flags&spanBudget != 0 {
			c.Replaced++
			continue
		}
		if found {
			c.Replaced++
		}
		best[s.pos] = s
	}
	if err := rd.Err(); err != nil {
		r.Close()
		return c, fmt.Errorf("compact %s: %w", r.path, err)
	}
	if br.pending > 0 {
		// Records after the last verdict: a run cut short by a kill.
		same = false
		c.Dropped += br.pending
	}
	if same && c.Replaced == 0 {
		if end != nil {
			r.Writer.Write(end)
		}
		return c, r.Close()
	}
	spans := make([]span, 0, len(best))
	for _, s := range best {
		spans = append(spans, s)
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.pos, b.pos) })
	if err := r.rewrite(spans, end); err != nil {
		return c, err
	}
	c.Rewritten = true
	return c, r.Close()
}

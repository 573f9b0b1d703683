package records

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"

	"github.com/kesoku/kesoku/message"
)

// Compaction says what Compact did to a records file.
type Compaction struct {
	// Replaced is how many records of the earlier run gave way to the
	// resumed run's (aborted records, and those of requests run again);
	// Dropped how many answered no request of the resumed run (its request
	// files are not those of the earlier run).
	Replaced, Dropped int
	// Rewritten says the file was rewritten; false when it held one record
	// per request in request order already.
	Rewritten bool
}

// Compact ends a resumed run that read every request: the file is
// rewritten to hold exactly one record per request, in request order, as
// a run that was never interrupted would have written it — the records
// of the skipped requests as they were (given their place in this run),
// the new records for the others, and none of the records they replaced.
// The new file is written beside the old one and renamed into its place
// under the lock (Replace), so that a kill at any moment leaves the old
// file, with the new records appended, or the new one. The Resumed is
// closed by it.
//
// A run cut short must not be compacted: the records of the requests it
// did not read are still the only ones there are.
func (r *Resumed) Compact() (Compaction, error) {
	var c Compaction
	if err := r.Flush(); err != nil {
		return c, err
	}
	st, err := r.f.Stat()
	if err != nil || !st.Mode().IsRegular() || r.Finished.records > maxOrdinal {
		// Nothing to rename over, or more records than the set can tell
		// apart: left as it is, which --resume reads as well.
		return c, r.Close()
	}
	spans, same, err := r.plan(st.Size(), &c)
	if err != nil {
		r.Close()
		return c, fmt.Errorf("compact %s: %w", r.path, err)
	}
	if !same {
		err = replaceLocked(r.path, r.f, func(w io.Writer) error {
			return writeSpans(w, []*os.File{r.f}, slices.Values(spans))
		})
		if err != nil {
			r.Close()
			return c, fmt.Errorf("compact %s: %w", r.path, err)
		}
		c.Rewritten = true
	}
	return c, r.Close()
}

// plan reads the file up to size and returns the lines to keep, in
// request order, and whether they are the file as it is.
func (r *Resumed) plan(size int64, c *Compaction) (spans []span, same bool, err error) {
	rd := NewReader(io.NewSectionReader(r.f, 0, size), r.path)
	same = true
	var ordinal int64
	for rd.Scan() {
		h, err := rd.Head()
		if err != nil {
			// The file is the run's own, under its lock, its torn line cut
			// when it was opened: a line that is no record now is a change
			// made behind the lock's back.
			return nil, false, err
		}
		off, n := rd.Span()
		s := span{pos: h.Position, off: off, n: int32(n)}
		if off < r.base {
			ordinal++
			p, ok := r.Finished.kept(h.ParentID, ordinal)
			if !ok || h.Type != message.TypeToolResult {
				if h.Type == message.TypeToolResult && r.Finished.seen(h.ParentID) {
					c.Replaced++
				} else {
					c.Dropped++
				}
				same = false
				continue
			}
			s.pos = p
			if h.Position != p {
				s.flags |= spanRewrite
			}
		} else if h.Position <= 0 {
			line, _ := rd.Pos()
			return nil, false, fmt.Errorf("line %d: a record of this run without a position", line)
		}
		if n > maxRecordLine+2 {
			line, _ := rd.Pos()
			return nil, false, fmt.Errorf("line %d: a record of %d bytes", line, n)
		}
		if s.flags&spanRewrite != 0 || len(spans) > 0 && spans[len(spans)-1].pos >= s.pos {
			same = false
		}
		spans = append(spans, s)
	}
	if err := rd.Err(); err != nil {
		return nil, false, err
	}
	slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.pos, b.pos) })
	for i := 1; i < len(spans); i++ {
		if spans[i].pos == spans[i-1].pos {
			return nil, false, fmt.Errorf("two records of the request at position %d", spans[i].pos)
		}
	}
	return spans, same, nil
}

// span is one record line to copy: where it lies in which file, and the
// place it goes to. 24 bytes: a merge or a compaction holds one a record.
type span struct {
	pos  int64
	off  int64
	n    int32
	part int16
	// flags: spanRewrite says the line goes out with pos as its position
	// (the record of a request that moved, or one written before
	// positions); spanFailed and spanAborted what the record says, and
	// kind its error's kind, numbered by a kindTable.
	flags, kind uint8
}

// writeSpans copies the lines of spans, in their order, from files to w,
// each without the space around it and with one line end.
func writeSpans(w io.Writer, files []*os.File, spans iter.Seq[span]) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for s := range spans {
		if cap(buf) < int(s.n) || cap(buf) > longLine && int(s.n) <= longLine {
			buf = make([]byte, s.n)
		}
		buf = buf[:s.n]
		f := files[s.part]
		if got, err := f.ReadAt(buf, s.off); got < len(buf) {
			if err == nil || errors.Is(err, io.EOF) {
				err = errors.New("the file changed while it was read")
			}
			return readErr(f.Name(), err)
		}
		text, _ := lineText(buf)
		if s.flags&spanRewrite != 0 {
			var rec message.Record
			if err := json.Unmarshal(text, &rec); err != nil {
				return fmt.Errorf("%s: %w", f.Name(), err)
			}
			rec.Position = s.pos
			line, err := AppendRecord(nil, &rec)
			if err != nil {
				return fmt.Errorf("%s: %w", f.Name(), err)
			}
			text = line
		}
		if _, err := bw.Write(text); err != nil {
			return err
		}
		if err := bw.WriteByte('\n'); err != nil {
			return err
		}
	}
	return bw.Flush()
}

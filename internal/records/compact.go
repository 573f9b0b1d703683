package records

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
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
	// per request in request order already, or when it was left as it is.
	Rewritten bool
	// Foreign is how many records the file holds that answer no request
	// (a tool's own, written through its Store): a file that holds any is
	// left as it is, with the resumed run's records after the earlier's,
	// rather than lose them.
	Foreign int
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
	if r.foreign > 0 {
		c.Foreign = r.foreign
		return c, r.Close()
	}
	if !r.afterOld && r.Finished.unchanged() {
		return c, r.Close()
	}
	st, err := r.f.Stat()
	if err != nil || !st.Mode().IsRegular() || r.Finished.tooMany {
		// Nothing to rename over, or positions past what the entries
		// hold: left as it is, which --resume reads as well.
		return c, r.Close()
	}
	spans, same, err := r.plan(st.Size(), &c)
	if err != nil {
		r.Close()
		return c, fmt.Errorf("compact %s: %w", r.path, err)
	}
	if c.Foreign > 0 {
		return Compaction{Foreign: c.Foreign}, r.Close()
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

// Write writes a record of the resumed run.
func (r *Resumed) Write(rec *message.Record) error {
	r.note(rec)
	return r.Writer.Write(rec)
}

// Append is the Store method: a tool's records, written through its
// ToolContext, go to the file too.
func (r *Resumed) Append(ctx context.Context, recs ...*message.Record) error {
	for _, rec := range recs {
		r.note(rec)
	}
	return r.Writer.Append(ctx, recs...)
}

// note notes what Compact must know of a record the resumed run writes.
func (r *Resumed) note(rec *message.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case rec.Type != message.TypeToolResult || rec.Position <= 0:
		r.foreign++
	case rec.Position <= r.Finished.last:
		r.afterOld = true
	}
}

// plan reads the file up to size and returns the lines to keep, in
// request order, and whether they are the file as it is.
func (r *Resumed) plan(size int64, c *Compaction) (spans []span, same bool, err error) {
	rd := NewReader(io.NewSectionReader(r.f, 0, size), r.path)
	same = true
	for rd.Scan() {
		h, err := rd.Head()
		if err != nil {
			// The file is the run's own, under its lock, its torn line cut
			// when it was opened: a line that is no record now is a change
			// made behind the lock's back.
			return nil, false, err
		}
		off, n := rd.Span()
		if h.Type != message.TypeToolResult || h.ParentID == "" || off >= r.base && h.Position <= 0 {
			c.Foreign++
			continue
		}
		if n > maxRecordLine+2 {
			line, _ := rd.Pos()
			return nil, false, fmt.Errorf("line %d: a record of %d bytes", line, n)
		}
		s := span{pos: h.Position, off: off, n: int32(n)}
		if off < r.base {
			p, ok := int64(0), false
			if h.Status != message.StatusAborted {
				p, ok = r.Finished.kept(h.ParentID, h.Position)
			}
			if !ok {
				if r.Finished.seen(h.ParentID) {
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
	// Of several records kept for one request (a request finished twice,
	// in files written before records had positions), the last counts.
	out := spans[:0]
	for i, s := range spans {
		if i+1 < len(spans) && spans[i+1].pos == s.pos {
			if spans[i+1].off < r.base && s.off < r.base {
				c.Replaced++
				continue
			}
			return nil, false, fmt.Errorf("two records of the request at position %d", s.pos)
		}
		out = append(out, s)
	}
	return out, same, nil
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
	readers := make([]lineSource, len(files))
	for i, f := range files {
		readers[i].f = f
	}
	var buf []byte
	for s := range spans {
		if cap(buf) < int(s.n) || cap(buf) > longLine && int(s.n) <= longLine {
			buf = make([]byte, s.n)
		}
		buf = buf[:s.n]
		src := &readers[s.part]
		if err := src.read(buf, s.off); err != nil {
			return readErr(src.f.Name(), err)
		}
		text, _ := lineText(buf)
		if s.flags&spanRewrite != 0 {
			var rec message.Record
			if err := json.Unmarshal(text, &rec); err != nil {
				return fmt.Errorf("%s: %w", src.f.Name(), err)
			}
			rec.Position = s.pos
			line, err := AppendRecord(nil, &rec)
			if err != nil {
				return fmt.Errorf("%s: %w", src.f.Name(), err)
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

// lineSource reads the lines of a file at their offsets, through a buffer
// while they come one after another, as a shard's records do and most of
// a resumed file's: a read of the file for each line would cost a system
// call a record.
type lineSource struct {
	f   *os.File
	br  *bufio.Reader
	off int64 // where br stands in the file
}

// read fills buf from the file at off.
func (s *lineSource) read(buf []byte, off int64) error {
	switch {
	case s.br != nil && off == s.off:
	case s.br != nil && off > s.off && off-s.off <= int64(s.br.Buffered()):
		s.br.Discard(int(off - s.off))
	default:
		r := io.NewSectionReader(s.f, off, math.MaxInt64-off)
		if s.br == nil {
			s.br = bufio.NewReaderSize(r, 256<<10)
		} else {
			s.br.Reset(r)
		}
	}
	n, err := io.ReadFull(s.br, buf)
	s.off = off + int64(n)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("the file changed while it was read")
	}
	return err
}

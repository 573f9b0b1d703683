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
//
// end, when not nil, is the line that ends the file (a shard's
// shard_end): written last, after the records, and the earlier run's
// taken away.
func (r *Resumed) Compact(end *message.Record) (Compaction, error) {
	if r.Verdicts != nil {
		return r.compactBlocks(end)
	}
	var c Compaction
	// left leaves the file as it is, the end after the new records.
	left := func() error {
		if end != nil {
			r.Writer.Write(end)
		}
		return r.Close()
	}
	if err := r.Flush(); err != nil {
		return c, err
	}
	if r.foreign > 0 {
		c.Foreign = r.foreign
		return c, left()
	}
	if !r.afterOld && r.Finished.unchanged() {
		return c, left()
	}
	st, err := r.f.Stat()
	if err != nil || !st.Mode().IsRegular() || r.Finished.tooMany {
		// Nothing to rename over, or positions past what the entries
		// hold: left as it is, which --resume reads as well.
		return c, left()
	}
	spans, same, err := r.plan(st.Size(), &c)
	if err != nil {
		r.Close()
		return c, fmt.Errorf("compact %s: %w", r.path, err)
	}
	if c.Foreign > 0 {
		return Compaction{Foreign: c.Foreign}, left()
	}
	if same {
		return c, left()
	}
	if err := r.rewrite(spans, end); err != nil {
		return c, err
	}
	c.Rewritten = true
	return c, r.Close()
}

// rewrite replaces the file, under its lock, with the lines of spans in
// their order and end (when not nil) last, and closes r if that fails.
func (r *Resumed) rewrite(spans []span, end *message.Record) error {
	err := replaceLocked(r.path, r.f, func(w io.Writer) error {
		inFile := func(yield func(int, span) bool) {
			for _, s := range spans {
				if !yield(0, s) {
					return
				}
			}
		}
		if err := writeSpans(w, fileLines(r.f, r.path), inFile); err != nil {
			return err
		}
		if end == nil {
			return nil
		}
		line, err := AppendRecord(nil, end)
		if err != nil {
			return err
		}
		_, err = w.Write(append(line, '\n'))
		return err
	})
	if err != nil {
		r.Close()
		return fmt.Errorf("compact %s: %w", r.path, err)
	}
	return nil
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
	case r.Verdicts != nil:
		// An eval's: every record is of a block.
		if rec.Type == message.TypeVerdict {
			r.Verdicts.come(rec.Position)
		}
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
		if h.Type == TypeShardEnd {
			// An earlier run's end: the file ends anew.
			same = false
			continue
		}
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

// span is one record line to copy: where it lies in its file, and the
// place it goes to. 24 bytes: a merge or a compaction holds one a record.
type span struct {
	pos int64
	off int64
	n   int32
	// flags: spanRewrite says the line goes out with pos as its position
	// (the record of a request that moved, or one written before
	// positions); spanFailed and spanAborted what the record says, and
	// kind its error's kind, numbered by a kindTable.
	flags, kind uint8
}

// writeSpans copies the lines of spans, in their order, from the files of
// src to w, each without the space around it and with one line end:
// spans yields each with the index of its file in src.
func writeSpans(w io.Writer, src *lineFiles, spans iter.Seq2[int, span]) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for part, s := range spans {
		if cap(buf) < int(s.n) || cap(buf) > longLine && int(s.n) <= longLine {
			buf = make([]byte, s.n)
		}
		buf = buf[:s.n]
		if err := src.read(part, buf, s.off); err != nil {
			return readErr(src.names[part], err)
		}
		text, _ := lineText(buf)
		if s.flags&spanRewrite != 0 {
			var rec message.Record
			if err := json.Unmarshal(text, &rec); err != nil {
				return fmt.Errorf("%s: %w", src.names[part], err)
			}
			rec.Position = s.pos
			line, err := AppendRecord(nil, &rec)
			if err != nil {
				return fmt.Errorf("%s: %w", src.names[part], err)
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

// maxOpenParts bounds the files of a merge's parts open at once: a merge
// of 1,000 shards stays far within the 1,024 files a process may commonly
// open, whatever else it holds.
const maxOpenParts = 32

// lineFiles reads the lines of files at their offsets: the parts of a
// merge, or a resumed file. Lines come one after another in each file, as
// a shard's records do and most of a resumed file's, so each file is read
// a chunk at a time into a buffer of its own (a read of the file for each
// line would cost a system call a record); and the files are opened when
// they are read, at most maxOpenParts at a time, the one read longest ago
// closed first, so that any number of parts can be joined.
type lineFiles struct {
	names []string
	files []*os.File // nil where not open
	// kept are files the caller opened and closes: never closed here.
	kept  bool
	open  []int // the indexes of the open files, the one read last at the end
	bufs  []lineBuf
	chunk int
}

// lineBuf is what a file's last read brought in: its bytes from off.
type lineBuf struct {
	data []byte
	off  int64
}

// newLineFiles reads the files named names, opening them as it needs.
func newLineFiles(names []string) *lineFiles {
	// 32 MiB of buffers at most between them, up to 256 KiB each: a merge
	// of a thousand parts holds as much as one of a hundred. Past 8,192
	// parts a buffer would hold less than a few records: each line is read
	// on its own.
	chunk := min((32<<20)/max(len(names), 1), 256<<10)
	if chunk < 4<<10 {
		chunk = 0
	}
	return &lineFiles{names: names, files: make([]*os.File, len(names)), bufs: make([]lineBuf, len(names)), chunk: chunk}
}

// fileLines reads the lines of f, open already and left open.
func fileLines(f *os.File, name string) *lineFiles {
	return &lineFiles{names: []string{name}, files: []*os.File{f}, kept: true, bufs: make([]lineBuf, 1), chunk: 256 << 10}
}

// read fills dst from file i at off.
func (l *lineFiles) read(i int, dst []byte, off int64) error {
	b := &l.bufs[i]
	if off >= b.off && off+int64(len(dst)) <= b.off+int64(len(b.data)) {
		copy(dst, b.data[off-b.off:])
		return nil
	}
	f, err := l.file(i)
	if err != nil {
		return err
	}
	into := dst
	if len(dst) < l.chunk {
		if cap(b.data) < l.chunk {
			b.data = make([]byte, l.chunk)
		}
		into = b.data[:l.chunk]
	}
	n, err := f.ReadAt(into, off)
	if n < len(dst) {
		if err == nil || errors.Is(err, io.EOF) {
			err = errors.New("the file changed while it was read")
		}
		b.data = b.data[:0]
		return err
	}
	if len(dst) < l.chunk {
		b.data, b.off = into[:n], off
		copy(dst, b.data)
	}
	return nil
}

// file is file i, opened if need be, the one read longest ago closed to
// stay within maxOpenParts.
func (l *lineFiles) file(i int) (*os.File, error) {
	if f := l.files[i]; f != nil {
		if !l.kept {
			if k := slices.Index(l.open, i); k >= 0 {
				l.open = append(slices.Delete(l.open, k, k+1), i)
			}
		}
		return f, nil
	}
	if len(l.open) >= maxOpenParts {
		oldest := l.open[0]
		l.open = l.open[1:]
		l.files[oldest].Close()
		l.files[oldest] = nil
	}
	f, err := os.Open(l.names[i])
	if err != nil {
		return nil, err
	}
	l.files[i] = f
	l.open = append(l.open, i)
	return f, nil
}

// Close closes the files it opened.
func (l *lineFiles) Close() {
	if l.kept {
		return
	}
	for _, i := range l.open {
		l.files[i].Close()
		l.files[i] = nil
	}
	l.open = nil
}

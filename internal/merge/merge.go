// Package merge owns kesoku merge: joining the records files of a run's
// shards (kesoku run --shard K/N, K = 1 … N) back into the one file the
// whole run would have written, in request order.
//
// Shard K holds the requests at positions K, K+N, K+2N… in that order, so
// the whole run's order is the shards' records taken in turn: the first of
// shard 1, the first of shard 2, …, the second of shard 1… A shard's file
// may hold more than one record of a request: an interrupted shard's
// aborted records, followed by those --resume appended. Each request keeps
// its place (where its first record is) and its last record: an aborted
// record gives way to a later record of its id; a finished one does not
// (a later finished record of the same id is another request, refused as
// a duplicate id).
package merge

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// Summary counts the merged records.
type Summary struct {
	// Records is how many there are; Failed how many are errors, Aborted
	// how many of those were cut short (a shard left unfinished).
	Records, Failed, Aborted int
	// Replaced is how many records gave way to a later one of their
	// request (a shard resumed).
	Replaced int
}

// part is one shard's records file, read once to find its requests.
type part struct {
	name  string
	f     *os.File
	slots []slot
	// shard is the shard the positional ids (call_P) say it is, 0 when
	// they do not say.
	shard int
}

// slot is one request's record: where its line is, and what it says.
type slot struct {
	off  int64
	pos  int64 // the P of an id call_P, 0 for another id
	n    int32
	err  bool
	stop bool // aborted
}

// Merge writes the records of the shard files parts, given as shards 1 to
// N (or in any order, when the requests' ids are positional, call_P),
// to w in request order, one record per request.
func Merge(parts []string, w io.Writer) (Summary, error) {
	var sum Summary
	ps := make([]*part, len(parts))
	for i, name := range parts {
		p, replaced, err := read(name)
		if err != nil {
			for _, q := range ps[:i] {
				q.f.Close()
			}
			return sum, err
		}
		defer p.f.Close()
		ps[i] = p
		sum.Replaced += replaced
	}
	ps, err := order(ps)
	if err != nil {
		return sum, err
	}
	if err := check(ps); err != nil {
		return sum, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for j := 0; ; j++ {
		wrote := false
		for _, p := range ps {
			if j >= len(p.slots) {
				continue
			}
			s := p.slots[j]
			if cap(buf) < int(s.n)+1 {
				buf = make([]byte, s.n, 2*s.n+1)
			}
			buf = buf[:s.n]
			if _, err := p.f.ReadAt(buf, s.off); err != nil {
				return sum, readErr(p.name, err)
			}
			buf = append(bytes.TrimRight(buf, "\r\n"), '\n')
			if _, err := bw.Write(buf); err != nil {
				return sum, err
			}
			wrote = true
			sum.Records++
			if s.err {
				sum.Failed++
			}
			if s.stop {
				sum.Aborted++
			}
		}
		if !wrote {
			break
		}
	}
	return sum, bw.Flush()
}

// head is what merge reads of a record.
type head struct {
	ParentID string `json:"parent_id"`
	Type     string `json:"type"`
	Status   string `json:"status"`
	IsError  bool   `json:"is_error"`
}

// read reads a shard's file: its requests in order, each with its last
// record; replaced is how many records gave way to a later one.
func read(name string) (_ *part, replaced int, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	p := &part{name: name, f: f}
	// open holds the requests whose last record so far is aborted, by id:
	// a later record of the id takes its place.
	open := map[string]int{}
	br := bufio.NewReaderSize(f, 64<<10)
	var off int64
	for line := 1; ; line++ {
		text, rerr := br.ReadBytes('\n')
		start := off
		off += int64(len(text))
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return nil, 0, readErr(name, rerr)
		}
		last := errors.Is(rerr, io.EOF)
		if t := bytes.TrimSpace(text); len(t) > 0 {
			if line == 1 {
				t = bytes.TrimPrefix(t, []byte("\uFEFF"))
			}
			var h head
			if err := json.Unmarshal(t, &h); err != nil {
				if last {
					// A torn last line, a writer killed mid-line: kesoku
					// run --resume cuts it too.
					break
				}
				return nil, 0, fmt.Errorf("%s:%d: not a record: %w", name, line, err)
			}
			if h.Type != "tool_result" || h.ParentID == "" {
				return nil, 0, fmt.Errorf("%s:%d: not a record of kesoku run (a tool_result with a parent_id)", name, line)
			}
			if len(text) > 1<<31-1 {
				return nil, 0, fmt.Errorf("%s:%d: a record of more than 2 GiB", name, line)
			}
			s := slot{off: start, n: int32(len(text)), pos: position(h.ParentID), err: h.IsError, stop: h.Status == "aborted"}
			if i, ok := open[h.ParentID]; ok {
				p.slots[i] = s
				replaced++
				if !s.stop {
					delete(open, h.ParentID)
				}
			} else {
				if s.stop {
					open[h.ParentID] = len(p.slots)
				}
				p.slots = append(p.slots, s)
			}
		}
		if last {
			break
		}
	}
	return p, replaced, nil
}

// position is the P of a positional id call_P, 0 for any other id.
func position(id string) int64 {
	n, ok := strings.CutPrefix(id, "call_")
	if !ok {
		return 0
	}
	p, err := strconv.ParseInt(n, 10, 64)
	if err != nil || p < 1 {
		return 0
	}
	return p
}

// order puts the parts in shard order: as given, unless their positional
// ids say each one's shard, which they do when the requests have no ids
// of their own.
func order(ps []*part) ([]*part, error) {
	n := int64(len(ps))
	byShard := make([]*part, len(ps))
	for _, p := range ps {
		for j, s := range p.slots {
			if s.pos > 0 && (s.pos-1)/n == int64(j) {
				p.shard = int((s.pos-1)%n) + 1
				break
			}
		}
		if p.shard == 0 {
			return ps, nil // not every part says: as given
		}
		if q := byShard[p.shard-1]; q != nil {
			return nil, fmt.Errorf("%s and %s both hold shard %d of %d", q.name, p.name, p.shard, n)
		}
		byShard[p.shard-1] = p
	}
	return byShard, nil
}

// check refuses parts that are not the N shards of one run: their sizes
// must be those of N shares, and every positional id in its place.
func check(ps []*part) error {
	n := int64(len(ps))
	first := len(ps[0].slots)
	for k, p := range ps {
		if c := len(p.slots); c > first || c < first-1 || (k > 0 && c > len(ps[k-1].slots)) {
			return fmt.Errorf("%s holds %d requests and %s %d: the parts are not the %d shards of one run, in order "+
				"(a shard unfinished? run it again with --resume)", ps[0].name, first, p.name, c, n)
		}
		for j, s := range p.slots {
			if want := int64(j)*n + int64(k) + 1; s.pos > 0 && s.pos != want {
				return fmt.Errorf("%s: its record %d answers call_%d, but shard %d of %d holds request %d there: "+
					"give the parts in shard order, each of one run's --shard K/%d", p.name, j+1, s.pos, k+1, n, want, n)
			}
		}
	}
	return nil
}

// readErr says that reading the part name failed, naming it once: an
// error of the file's own (*fs.PathError) already says "read NAME".
func readErr(name string, err error) error {
	if _, ok := errors.AsType[*fs.PathError](err); ok {
		return err
	}
	return fmt.Errorf("read %s: %w", name, err)
}

package records

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kesoku/kesoku/message"
)

// maxRecordLine bounds one line of a records file: a record holds at most
// --max-output of content, escaped, and some fields.
const maxRecordLine = 256 << 20

// byteOrderMark is the UTF-8 byte order mark some editors and tools write
// at the start of a file. JSON does not allow it and nobody means it as
// data, so the Reader drops it wherever a line starts with it (a file
// made by concatenating files has one in the middle).
const byteOrderMark = "\uFEFF"

// longLine is how long a line may grow in the Reader's own buffer, which
// it keeps from line to line. A longer line of a file is measured first
// and then read once into a buffer of its own size: growing a buffer
// line by line to a record of 50 MiB would hold twice that, and leave as
// much again behind for the collector.
const longLine = 1 << 20

// Reader reads JSON Lines one line at a time, each line whole however long
// it is (up to a limit), in memory bounded by that limit: the one reader
// of kesoku's records files, and of JSON Lines request files. Blank lines
// are skipped; lines are numbered from 1, blank ones counted.
//
// Scan and Bytes give each line as it is; Record decodes it as a Record
// and Head reads only the fields that identify one, several times faster.
// ReadFile and Read are the short way to read a whole records file.
type Reader struct {
	br   *bufio.Reader
	name string
	max  int
	// at, when the input is a file that can be read at an offset, reads a
	// long line once it is measured; base is the file's offset where the
	// Reader began, and off how far it has read from there.
	at   io.ReaderAt
	base int64
	off  int64

	line, col int
	// spanOff and spanLen are where the current line lies in the input,
	// its space and line end included.
	spanOff int64
	spanLen int64
	text    []byte
	long    []byte
	tooLong bool
	ended   bool // the line had no line end: the stream's last
	eof     bool
	err     error
	head    headParser
}

// NewReader returns a Reader of r; name is the file's name in errors.
func NewReader(r io.Reader, name string) *Reader {
	rd := &Reader{br: bufio.NewReaderSize(r, 64<<10), name: name, max: maxRecordLine}
	if at, ok := r.(io.ReaderAt); ok {
		if s, ok := r.(io.Seeker); ok {
			// A pipe cannot say where it is, nor be read again.
			if base, err := s.Seek(0, io.SeekCurrent); err == nil {
				rd.at, rd.base = at, base
			}
		}
	}
	return rd
}

// SetMaxLine sets the longest line Scan keeps (256 MiB by default); a
// longer one is read to its end and dropped, and TooLong reports it.
func (r *Reader) SetMaxLine(n int) { r.max = n }

// Scan moves to the next line that is not blank, and reports whether there
// is one. At the end of the input, or after a read error, it returns false;
// Err says which.
func (r *Reader) Scan() bool {
	r.text = nil
	for !r.eof {
		r.line++
		start := r.off
		raw, tooLong, err := r.readLine()
		r.spanOff, r.spanLen = r.base+start, r.off-start
		if err != nil && !errors.Is(err, io.EOF) {
			if r.line == 1 {
				r.err = fmt.Errorf("read %s: %w", r.name, pathCause(err))
			} else {
				r.err = fmt.Errorf("read %s:%d: %w", r.name, r.line, pathCause(err))
			}
			r.eof = true
			return false
		}
		r.eof = err != nil
		r.ended = r.eof && !bytes.HasSuffix(raw, []byte("\n"))
		r.tooLong = tooLong
		if tooLong {
			r.text, r.col = nil, 1
			return true
		}
		if text, col := lineText(raw); len(text) > 0 {
			r.text, r.col = text, col
			return true
		}
	}
	return false
}

// lineText is a line without the space around it and a byte order mark
// before it, and the 1-based column where it starts.
func lineText(raw []byte) (text []byte, col int) {
	text = trimLeftSpace(raw)
	if b, ok := bytes.CutPrefix(text, []byte(byteOrderMark)); ok {
		text = trimLeftSpace(b)
	}
	col = 1 + len(raw) - len(text)
	return trimRightSpace(text), col
}

// pathCause is err without the *os.PathError around it, whose operation
// and path the Reader's own message already says ("read out.jsonl:3: is a
// directory", not "read out.jsonl:3: read out.jsonl: is a directory").
func pathCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readLine returns the next line with its line end, valid until the next
// call, or tooLong when it ran past the limit. err is io.EOF with the
// last line.
func (r *Reader) readLine() (line []byte, tooLong bool, err error) {
	start := r.off
	line, err = r.br.ReadSlice('\n')
	r.off += int64(len(line))
	if !errors.Is(err, bufio.ErrBufferFull) {
		if r.max > 0 && len(line) > r.max+1 && len(trimRightSpace(line)) > r.max {
			return nil, true, err
		}
		return line, false, err
	}
	r.long = append(r.long[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = r.br.ReadSlice('\n')
		r.off += int64(len(line))
		if tooLong {
			continue
		}
		if r.at != nil && len(r.long)+len(line) > longLine {
			last := r.long[len(r.long)-1]
			if len(line) > 0 {
				last = line[len(line)-1]
			}
			r.long = nil // kept for lines that fit it, not beside a long one
			return r.readLongAt(start, last, err)
		}
		r.long = append(r.long, line...)
		if r.max > 0 && len(r.long) > r.max {
			tooLong, r.long = true, r.long[:0]
		}
	}
	if cap(r.long) > longLine && !tooLong {
		// Keep a long line's buffer only while it is in use.
		line, r.long = r.long, nil
		return line, false, err
	}
	return r.long, tooLong, err
}

// readLongAt finishes reading a line too long for the Reader's own buffer,
// of a file that can be read at an offset: it reads on to the line's end
// (last is the last byte read, err what its read returned), and then the
// whole line again, into a buffer of exactly its size.
func (r *Reader) readLongAt(start int64, last byte, err error) (line []byte, tooLong bool, _ error) {
	for errors.Is(err, bufio.ErrBufferFull) {
		var chunk []byte
		chunk, err = r.br.ReadSlice('\n')
		r.off += int64(len(chunk))
		if len(chunk) > 0 {
			last = chunk[len(chunk)-1]
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	n := r.off - start
	text := n
	if last == '\n' {
		text--
	}
	if r.max > 0 && text > int64(r.max) {
		return nil, true, err
	}
	line = make([]byte, n)
	got, rerr := r.at.ReadAt(line, r.base+start)
	if got != len(line) && rerr != nil && !errors.Is(rerr, io.EOF) {
		return nil, false, rerr
	}
	if got != len(line) || line[n-1] != last {
		return nil, false, errors.New("the file changed while it was read")
	}
	return line, false, err
}

// Bytes returns the current line without the space around it (and without
// a byte order mark), valid until the next Scan; empty when TooLong.
func (r *Reader) Bytes() []byte { return r.text }

// Pos returns the current line's number and the 1-based byte column where
// its text starts.
func (r *Reader) Pos() (line, col int) { return r.line, r.col }

// Span returns where the current line lies in the input: its offset, and
// its length with the space around it and its line end. The offset is
// that of the file, for a Reader of a file read from where it stood.
func (r *Reader) Span() (off, n int64) { return r.spanOff, r.spanLen }

// TooLong reports whether the current line ran past the limit of
// SetMaxLine: it was skipped, and Bytes is empty.
func (r *Reader) TooLong() bool { return r.tooLong }

// Unterminated reports whether the current line is the last of the input
// and has no line end: in a records file, a record cut short by a crash or
// a kill, when it does not parse.
func (r *Reader) Unterminated() bool { return r.ended }

// Err returns the read error that ended Scan, nil at the end of the input.
func (r *Reader) Err() error { return r.err }

// lineError is the error of a line that is not a record.
func (r *Reader) lineError(err error) error {
	return fmt.Errorf("%s:%d: not a record: %w", r.name, r.line, err)
}

// errTorn is what Record and Head return for an unterminated last line
// that does not parse: not an error of the file, and not a record.
var errTorn = errors.New("torn last line")

func (r *Reader) check() error {
	if r.tooLong {
		return fmt.Errorf("%s:%d: line longer than %d bytes", r.name, r.line, r.max)
	}
	return nil
}

// Record decodes the current line as a Record.
func (r *Reader) Record() (*message.Record, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	var rec message.Record
	if err := json.Unmarshal(r.text, &rec); err != nil {
		if r.ended {
			return nil, errTorn
		}
		return nil, r.lineError(err)
	}
	return &rec, nil
}

// Head reads the current line's Head, checking that the line is one JSON
// object but building nothing of the rest (the content is checked, not
// decoded): a million records take about a second rather than several.
func (r *Reader) Head() (Head, error) {
	if err := r.check(); err != nil {
		return Head{}, err
	}
	h, err := r.head.parse(r.text)
	if err != nil {
		if r.ended {
			return Head{}, errTorn
		}
		return Head{}, r.lineError(err)
	}
	return h, nil
}

// IsTorn reports whether err, from Record or Head, says the current line
// is the torn last line of a file written by a process that died: a reader
// of records skips it, as Append cuts it off.
func IsTorn(err error) bool { return errors.Is(err, errTorn) }

// ReadFile calls fn for every record in the JSON Lines file at path, in
// order. A torn last line (a write cut short) is skipped; a bad line
// anywhere else is an error naming it.
func ReadFile(path string, fn func(*message.Record) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return Read(f, path, fn)
}

// Read is ReadFile over a reader; name is used in errors.
func Read(r io.Reader, name string, fn func(*message.Record) error) error {
	rd := NewReader(r, name)
	for rd.Scan() {
		rec, err := rd.Record()
		if IsTorn(err) {
			break
		}
		if err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return rd.Err()
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

func trimLeftSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

func trimRightSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// Buffered is how many bytes of the input the Reader holds unread: at 0,
// the next Scan reads the input, and may wait for it.
func (r *Reader) Buffered() int { return r.br.Buffered() }

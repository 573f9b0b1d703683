package message

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxRecordLine bounds one line of a records file: a record holds at most
// --max-output of content, escaped, and some fields.
const maxRecordLine = 256 << 20

// byteOrderMark is the UTF-8 byte order mark some editors and tools write
// at the start of a file. JSON does not allow it and nobody means it as
// data, so the Reader drops it wherever a line starts with it (a file
// made by concatenating files has one in the middle).
const byteOrderMark = "\uFEFF"

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

	line, col int
	text      []byte
	long      []byte
	tooLong   bool
	ended     bool // the line had no line end: the stream's last
	eof       bool
	err       error
	head      headParser
}

// NewReader returns a Reader of r; name is the file's name in errors.
func NewReader(r io.Reader, name string) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), name: name, max: maxRecordLine}
}

// SetMaxLine sets the longest line Scan keeps (256 MiB by default); a
// longer one is read to its end and dropped, and TooLong reports it.
func (r *Reader) SetMaxLine(n int) { r.max = n }

// Scan moves to the next line that is not blank, and reports whether there
// is one. At the end of the input, or after a read error, it returns false;
// Err says which.
func (r *Reader) Scan() bool {
	for !r.eof {
		r.line++
		raw, tooLong, err := r.readLine()
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
		text := trimLeftSpace(raw)
		if b, ok := bytes.CutPrefix(text, []byte(byteOrderMark)); ok {
			text = trimLeftSpace(b)
		}
		col := 1 + len(raw) - len(text)
		if text = trimRightSpace(text); len(text) > 0 {
			r.text, r.col = text, col
			return true
		}
	}
	r.text = nil
	return false
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
	line, err = r.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		if r.max > 0 && len(line) > r.max+1 && len(trimRightSpace(line)) > r.max {
			return nil, true, err
		}
		return line, false, err
	}
	r.long = append(r.long[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = r.br.ReadSlice('\n')
		if !tooLong {
			r.long = append(r.long, line...)
			if r.max > 0 && len(r.long) > r.max {
				tooLong, r.long = true, r.long[:0]
			}
		}
	}
	if cap(r.long) > 4<<20 && !tooLong {
		// Keep a long line's buffer only while it is in use.
		line, r.long = r.long, nil
		return line, false, err
	}
	return r.long, tooLong, err
}

// Bytes returns the current line without the space around it (and without
// a byte order mark), valid until the next Scan; empty when TooLong.
func (r *Reader) Bytes() []byte { return r.text }

// Pos returns the current line's number and the 1-based byte column where
// its text starts.
func (r *Reader) Pos() (line, col int) { return r.line, r.col }

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

// errTorn is what Next returns for an unterminated last line that does not
// parse: not an error of the file, and not a record.
var errTorn = errors.New("torn last line")

func (r *Reader) check() error {
	if r.tooLong {
		return fmt.Errorf("%s:%d: line longer than %d bytes", r.name, r.line, r.max)
	}
	return nil
}

// Record decodes the current line as a Record.
func (r *Reader) Record() (*Record, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	var rec Record
	if err := json.Unmarshal(r.text, &rec); err != nil {
		if r.ended {
			return nil, errTorn
		}
		return nil, r.lineError(err)
	}
	return &rec, nil
}

// Head is what identifies a record and what it answered, without decoding
// its content: what --resume needs of each record of a file it goes on
// from, and what diff compares.
type Head struct {
	SessionID string
	ParentID  string
	Type      Type
	Status    Status
	Name      string
	IsError   bool
	// ArgsHash is the record's args_hash.
	ArgsHash string
	// CallID is the record's call_id.
	CallID string
	// Content is the content's JSON as the line writes it, nil where the
	// record has none. From Reader.Head, it is valid until the next Scan.
	Content json.RawMessage
	// Error is the record's error, nil where it has none.
	Error *ErrorInfo
}

// Head returns the record's Head.
func (r *Record) Head() Head {
	return Head{SessionID: r.SessionID, ParentID: r.ParentID, Type: r.Type, Status: r.Status, Name: r.Name, IsError: r.IsError,
		ArgsHash: r.ArgsHash, CallID: r.CallID, Content: r.Content, Error: r.Error}
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
// of records skips it, as AppendFile cuts it off.
func IsTorn(err error) bool { return errors.Is(err, errTorn) }

// ReadFile calls fn for every record in the JSON Lines file at path, in
// order. A torn last line (a write cut short) is skipped; a bad line
// anywhere else is an error naming it.
func ReadFile(path string, fn func(*Record) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return Read(f, path, fn)
}

// Read is ReadFile over a reader; name is used in errors.
func Read(r io.Reader, name string, fn func(*Record) error) error {
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

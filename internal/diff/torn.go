package diff

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kesoku/kesoku/message"
)

// This file stands in for message.Reader and message.IsTorn, the one
// JSON Lines reader of records, until they reach main (wave1-req).

var errTorn = errors.New("torn last line")

// isTorn reports whether err says the current line is the torn last line
// of a file.
func isTorn(err error) bool { return errors.Is(err, errTorn) }

// NewReader returns a RecordReader of r; name is the file's name in
// errors.
func NewReader(r io.Reader, name string) RecordReader {
	return &lineReader{br: bufio.NewReaderSize(r, 64<<10), name: name}
}

type lineReader struct {
	br    *bufio.Reader
	name  string
	line  int
	text  []byte
	ended bool
	eof   bool
	err   error
}

func (r *lineReader) Scan() bool {
	for !r.eof {
		r.line++
		b, err := r.br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			r.err, r.eof = fmt.Errorf("read %s:%d: %w", r.name, r.line, err), true
			return false
		}
		r.eof = err != nil
		r.ended = r.eof && !bytes.HasSuffix(b, []byte("\n"))
		if r.text = bytes.TrimSpace(b); len(r.text) > 0 {
			return true
		}
	}
	return false
}

func (r *lineReader) Record() (*message.Record, error) {
	var rec message.Record
	if err := json.Unmarshal(r.text, &rec); err != nil {
		if r.ended {
			return nil, errTorn
		}
		return nil, fmt.Errorf("%s:%d: not a record: %w", r.name, r.line, err)
	}
	return &rec, nil
}

func (r *lineReader) Bytes() []byte   { return r.text }
func (r *lineReader) Pos() (int, int) { return r.line, 1 }
func (r *lineReader) Err() error      { return r.err }

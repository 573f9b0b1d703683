package request

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/internal/yamlpos"
)

// A YAML or JSON file is read once, before anything runs, into a spool: a
// temporary file that holds each request, checked, as a line "LINE COL
// DOC JSON" (its position, the number of its document, whose session_id
// may come after its requests, and the request as JSON). A file that does
// not parse thus runs nothing, memory stays bounded by the largest
// request, and the run streams the spool as JSON Lines, by their parser.
// (Reading the file a second time instead, with goccy/go-yaml, would take
// longer than the whole run may: bench/RESULTS.md.)

// spool is the spool of one file, written, then read once.
type spool struct {
	f   *os.File
	w   *bufio.Writer
	n   int
	buf []byte
	// name is the file's name while it is to be removed on Close: where
	// the system does not remove a file that is open.
	name string
}

// tempFile creates a temporary file and removes it at once where the
// system lets an open file be removed, so that nothing is left behind
// whatever ends the program; name is "" then.
func tempFile(pattern string) (f *os.File, name string, err error) {
	f, err = os.CreateTemp("", pattern)
	if err != nil {
		return nil, "", err
	}
	if os.Remove(f.Name()) != nil {
		return f, f.Name(), nil
	}
	return f, "", nil
}

func newSpool() (*spool, error) {
	f, name, err := tempFile("kesoku-requests-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("create a temporary file for the requests: %w", err)
	}
	return &spool{f: f, w: bufio.NewWriterSize(f, 64<<10), name: name}, nil
}

// add writes one request, read at pos in document doc.
func (s *spool) add(pos yamlpos.Pos, doc int, request []byte) error {
	if len(request) > MaxLine {
		return &ParseError{Pos: pos, Msg: fmt.Sprintf("a request larger than %d MiB as JSON: a file of requests holds smaller ones", MaxLine>>20)}
	}
	b := strconv.AppendInt(s.buf[:0], int64(pos.Line), 10)
	b = strconv.AppendInt(append(b, ' '), int64(pos.Col), 10)
	s.buf = append(strconv.AppendInt(append(b, ' '), int64(doc), 10), ' ')
	s.n++
	s.w.Write(s.buf) // a bufio.Writer keeps its first error for the last write
	s.w.Write(request)
	return s.w.WriteByte('\n')
}

// rewind ends the writing, and returns the reader of what was written.
func (s *spool) rewind() (io.Reader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, fmt.Errorf("write the requests to a temporary file: %w", err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return s.f, nil
}

func (s *spool) Close() error {
	err := s.f.Close()
	if s.name != "" {
		os.Remove(s.name)
	}
	return err
}

// spooled splits a line of the spool into its header and its request.
func spooled(line []byte) (lineNo, col, doc int, request []byte) {
	var f [3]int
	for i := range f {
		var num []byte
		num, line, _ = bytes.Cut(line, []byte{' '})
		f[i], _ = strconv.Atoi(string(num))
	}
	return f[0], f[1], f[2], line
}

// setSession notes the session_id of document doc.
func (f *File) setSession(doc int, id string) {
	if doc == 0 {
		f.SessionID = id
	}
	if f.sessions == nil {
		f.sessions = map[int]string{}
	}
	f.sessions[doc] = id
}

// appendJSON appends v, a value as YAML requests are converted, as JSON
// that the request parser reads back as the same value: a float stays a
// float (100.0, not 100, which reads as an integer). It stops with
// errTooLarge past MaxLine, which aliases can reach from a small file.
func appendJSON(b []byte, v any) (_ []byte, err error) {
	if len(b) > MaxLine {
		return b, errTooLarge
	}
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return records.AppendString(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return b, fmt.Errorf("%v is no JSON number", x)
		}
		start := len(b)
		b = strconv.AppendFloat(b, x, 'g', -1, 64)
		if !bytes.ContainsAny(b[start:], ".e") {
			b = append(b, ".0"...)
		}
		return b, nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendJSON(b, e); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		b = append(b, '{')
		keys := slices.AppendSeq(make([]string, 0, len(x)), maps.Keys(x)) // one allocation
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(records.AppendString(b, k), ':')
			if b, err = appendJSON(b, x[k]); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	return b, fmt.Errorf("%T is no JSON value", v)
}

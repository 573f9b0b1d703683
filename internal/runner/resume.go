package runner

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kesoku/kesoku/internal/message"
)

// ReadFinished returns the ids of the requests that have a finished record
// in the records file at path: any tool_result but an aborted one (SPEC §5,
// --resume). A file that does not exist has none; a torn last line (a run
// killed mid-write) is skipped, a bad line anywhere else is an error.
//
// It reads only parent_id, status and type of each record, without
// building the record: a million records take about a second rather than
// several.
func ReadFinished(path string) (*IDSet, error) {
	set := NewIDSet()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return set, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	p := &jsonParser{}
	var long []byte
	for n := 1; ; n++ {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A record with a large content: read it whole.
			long = append(long[:0], b...)
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = br.ReadSlice('\n')
				long = append(long, b...)
			}
			b = long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		if line := trimSpace(b); len(line) > 0 {
			parent, status, typ, perr := recordKeys(p, line)
			switch {
			case perr != nil && errors.Is(err, io.EOF):
				return set, nil // a torn last line
			case perr != nil:
				return nil, fmt.Errorf("%s:%d: not a record: %w", path, n, perr)
			case typ == string(message.TypeToolResult) && status != string(message.StatusAborted) && parent != "":
				set.Add(parent)
			}
		}
		if err != nil {
			return set, nil
		}
	}
}

// recordKeys reads the parent_id, status and type of a record line,
// skipping every other value.
func recordKeys(p *jsonParser, line []byte) (parent, status, typ string, err error) {
	p.data, p.i, p.depth = line, 0, 0
	if line[0] != '{' {
		return "", "", "", p.unexpected("looking for beginning of a record")
	}
	err = p.object(func(key string) error {
		p.skipSpace()
		var dst *string
		switch key {
		case "parent_id":
			dst = &parent
		case "status":
			dst = &status
		case "type":
			dst = &typ
		default:
			return p.skip()
		}
		if p.i < len(p.data) && p.data[p.i] == '"' {
			s, err := p.key()
			*dst = s
			return err
		}
		return p.skip()
	})
	if err == nil {
		err = p.end()
	}
	return parent, status, typ, err
}

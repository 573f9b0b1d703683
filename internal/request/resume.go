package request

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kesoku/kesoku/message"
)

// ReadFinished returns the ids of the requests that have a finished record
// in the records file at path: any tool_result but an aborted one (SPEC §5,
// --resume). It also returns the session_id that all the file's
// tool_result records share, "" when they do not share one: the session a
// resumed run goes on in, so that one batch's records are one session. A
// file that does not exist has none; a torn last line (a run killed
// mid-write) is skipped, a bad line anywhere else is an error.
//
// It reads only parent_id, status, type and session_id of each record,
// without building the record: a million records take about a second
// rather than several.
func ReadFinished(path string) (finished *IDSet, session string, err error) {
	set := NewIDSet()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return set, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	// A record with a large content is read whole: no limit.
	lines := &lineReader{br: bufio.NewReaderSize(f, 64<<10)}
	p := &jsonParser{}
	results := 0   // tool_result records read
	shared := true // and all of them in one session
	for n := 1; ; n++ {
		b, _, err := lines.next()
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, "", fmt.Errorf("read %s: %w", path, err)
		}
		if line := trimSpace(b); len(line) > 0 {
			k, perr := readRecordKeys(p, line)
			switch {
			case perr != nil && errors.Is(err, io.EOF):
				// A torn last line: skipped.
			case perr != nil:
				return nil, "", fmt.Errorf("%s:%d: not a record: %w", path, n, perr)
			case k.typ == string(message.TypeToolResult):
				if results++; results == 1 {
					session = k.session
				} else if k.session != session {
					shared = false
				}
				if k.status != string(message.StatusAborted) && k.parent != "" {
					set.Add(k.parent)
				}
			}
		}
		if err != nil {
			if !shared {
				session = ""
			}
			return set, session, nil
		}
	}
}

// recordKeys are the members of a record that --resume reads.
type recordKeys struct {
	parent, status, typ, session string
}

// readRecordKeys reads the parent_id, status, type and session_id of a
// record line, skipping every other value.
func readRecordKeys(p *jsonParser, line []byte) (k recordKeys, err error) {
	p.data, p.i, p.depth = line, 0, 0
	if line[0] != '{' {
		return k, p.unexpected("looking for beginning of a record")
	}
	err = p.object(func(key string) error {
		p.skipSpace()
		var dst *string
		switch key {
		case "parent_id":
			dst = &k.parent
		case "status":
			dst = &k.status
		case "type":
			dst = &k.typ
		case "session_id":
			dst = &k.session
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
	return k, err
}

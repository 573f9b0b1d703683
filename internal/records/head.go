package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/kesoku/kesoku/internal/jsonlex"
	"github.com/kesoku/kesoku/message"
)

// Head is what identifies a record and what it answered, without decoding
// its content: what --resume, merge and compaction need of each record of
// a file, and what diff compares.
type Head struct {
	SessionID string
	ParentID  string
	Type      message.Type
	Status    message.Status
	Name      string
	IsError   bool
	// ArgsHash is the record's args_hash.
	ArgsHash string
	// CallID is the record's call_id.
	CallID string
	// Position is the record's position: the place in its run of the
	// request it answers, 0 where it has none (or none that is a positive
	// integer).
	Position int64
	// Content is the content's JSON as the line writes it, nil where the
	// record has none. From Reader.Head, it is valid until the next Scan.
	Content json.RawMessage
	// Error is the record's error, nil where it has none.
	Error *message.ErrorInfo
}

// HeadOf returns the Head of a record.
func HeadOf(r *message.Record) Head {
	return Head{SessionID: r.SessionID, ParentID: r.ParentID, Type: r.Type, Status: r.Status, Name: r.Name, IsError: r.IsError,
		ArgsHash: r.ArgsHash, CallID: r.CallID, Position: r.Position, Content: r.Content, Error: r.Error}
}

// headParser reads the Head of a record line: it walks the top-level
// object, decodes the few members a Head has, and checks the syntax of
// everything else without building it. Its errors read as encoding/json's.
type headParser struct{ w jsonlex.Walker }

// maxHeadDepth bounds the nesting of a line, as encoding/json's.
const maxHeadDepth = 10000

func (p *headParser) parse(line []byte) (Head, error) {
	var h Head
	w := &p.w
	w.Reset(line)
	w.MaxDepth = maxHeadDepth
	if !w.Next() || w.Delim() != '{' {
		if c := bytes.TrimLeft(line, " \t\r\n"); len(c) > 0 {
			return h, fmt.Errorf("invalid character %s looking for beginning of a record", jsonlex.QuoteChar(c[0]))
		}
		return h, w.Err
	}
	for w.Next() && w.Delim() != '}' {
		dst, what := h.field(w.Str())
		if !w.Next() {
			break
		}
		switch c := w.Value()[0]; {
		case c == '"' && dst != nil:
			*dst = string(w.Str())
		case what == 'p' && '0' <= c && c <= '9':
			h.Position, _ = strconv.ParseInt(string(w.Value()), 10, 64)
			h.Position = max(h.Position, 0)
		case what == 'c':
			start := w.Start
			p.skip()
			h.Content = line[start:w.End]
		case what == 'e' && w.Delim() == '{':
			if h.Error == nil {
				h.Error = &message.ErrorInfo{}
			}
			for w.Next() && w.Delim() != '}' {
				var dst *string
				switch string(w.Str()) {
				case "kind":
					dst = (*string)(&h.Error.Kind)
				case "message":
					dst = &h.Error.Message
				}
				if w.Next() && dst != nil && w.Value()[0] == '"' {
					*dst = string(w.Str())
				}
				p.skip()
			}
		case what == 'e' && c == 'n':
			h.Error = nil
		case what == 'b' && (c == 't' || c == 'f'):
			h.IsError = c == 't'
		default:
			p.skip()
		}
	}
	if w.Next(); w.Err != nil {
		return h, w.Err
	}
	return h, nil
}

// field is where the member key of a record goes: a string of the Head,
// or p(osition), c(ontent), e(rror), b(ool is_error).
func (h *Head) field(key []byte) (*string, byte) {
	switch string(key) {
	case "session_id":
		return &h.SessionID, 0
	case "parent_id":
		return &h.ParentID, 0
	case "type":
		return (*string)(&h.Type), 0
	case "status":
		return (*string)(&h.Status), 0
	case "name":
		return &h.Name, 0
	case "args_hash":
		return &h.ArgsHash, 0
	case "call_id":
		return &h.CallID, 0
	case "position":
		return nil, 'p'
	case "content":
		return nil, 'c'
	case "error":
		return nil, 'e'
	case "is_error":
		return nil, 'b'
	}
	return nil, 0
}

// skip moves past the array or object the walker is at, if it is one.
func (p *headParser) skip() {
	if d := p.w.Delim(); d == '{' || d == '[' {
		p.w.Skip()
	}
}

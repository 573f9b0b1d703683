package records

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
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
	// Approval is a deferred record's approval.
	Approval string
	// Position is the record's position: the place in its run of the
	// request it answers, 0 where it has none (or none that is a positive
	// integer).
	Position int64
	// Repeat is a verdict's repeat: which run of its case it judges, 0
	// where it has none.
	Repeat int
	// Content is the content's JSON as the line writes it, nil where the
	// record has none. From Reader.Head, it is valid until the next Scan.
	Content json.RawMessage
	// Error is the record's error, nil where it has none.
	Error *message.ErrorInfo
}

// HeadOf returns the Head of a record.
func HeadOf(r *message.Record) Head {
	return Head{SessionID: r.SessionID, ParentID: r.ParentID, Type: r.Type, Status: r.Status, Name: r.Name, IsError: r.IsError,
		ArgsHash: r.ArgsHash, CallID: r.CallID, Approval: r.Approval, Position: r.Position, Repeat: r.Repeat, Content: r.Content, Error: r.Error}
}

// headParser reads the Head of a record line: it decodes the few members
// a Head has and skips the rest, its syntax checked but nothing of it built.
// Over a bytes.Buffer, the decoder reads the line in place, not a copy.
type headParser struct {
	b bytes.Buffer
	d jsontext.Decoder
}

// The string members of a record, in the order of parse's strs, and of its error.
var (
	headKeys  = []string{"session_id", "parent_id", "type", "status", "name", "args_hash", "call_id", "approval"}
	errorKeys = []string{"kind", "message"}
)

func (p *headParser) parse(line []byte) (Head, error) {
	var h Head
	d := &p.d
	p.b = *bytes.NewBuffer(line)
	d.Reset(&p.b, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if d.PeekKind() != '{' {
		if c := bytes.TrimLeft(line, " \t\r\n"); len(c) > 0 {
			return Head{}, fmt.Errorf("invalid character %s looking for beginning of a record", strconv.QuoteRune(rune(c[0])))
		}
		return Head{}, headError(io.EOF)
	}
	strs := []*string{&h.SessionID, &h.ParentID, (*string)(&h.Type), (*string)(&h.Status), &h.Name, &h.ArgsHash, &h.CallID, &h.Approval}
	err := p.object(headKeys, strs, func(key jsontext.Token) error {
		switch k, name := d.PeekKind(), key.String(); name {
		case "is_error":
			if k == 't' || k == 'f' {
				h.IsError = k == 't'
			}
		case "position", "repeat", "content":
			v, err := d.ReadValue()
			if end := int(d.InputOffset()); name == "content" {
				h.Content = line[end-len(v) : end]
			} else if err == nil && '0' <= v[0] && v[0] <= '9' {
				n, _ := strconv.ParseInt(string(v), 10, 64) // a fraction reads as 0
				if name == "position" {
					h.Position = n
				} else {
					h.Repeat = int(n)
				}
			}
			return err
		case "error":
			if k == 'n' {
				h.Error = nil
			} else if k == '{' {
				h.Error = cmp.Or(h.Error, new(message.ErrorInfo)) // a second error fills in the first
				return p.object(errorKeys, []*string{(*string)(&h.Error.Kind), &h.Error.Message}, nil)
			}
		}
		return d.SkipValue()
	})
	if err != nil {
		return Head{}, headError(err)
	}
	if rest := bytes.TrimLeft(line[d.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return Head{}, fmt.Errorf("invalid character %s after top-level value", strconv.QuoteRune(rune(rest[0])))
	}
	return h, nil
}

// object reads the object the decoder is at: a member named keys[i] into
// *dsts[i] if it is a string, any other by other (skipped where nil).
func (p *headParser) object(keys []string, dsts []*string, other func(key jsontext.Token) error) error {
	_, err := p.d.ReadToken()
	for err == nil && p.d.PeekKind() == '"' {
		var key, s jsontext.Token
		if key, err = p.d.ReadToken(); err != nil {
			break
		}
		switch i := slices.Index(keys, key.String()); {
		case i >= 0 && p.d.PeekKind() == '"':
			s, err = p.d.ReadToken()
			*dsts[i] = s.String()
		case i < 0 && other != nil:
			err = other(key)
		default:
			err = p.d.SkipValue()
		}
	}
	if err == nil {
		_, err = p.d.ReadToken() // the closing brace
	}
	return err
}

// headError is the mistake of a line that is no record, in the decoder's
// words.
func headError(err error) error {
	var se *jsontext.SyntacticError
	switch {
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("unexpected end of JSON input")
	case errors.As(err, &se) && se.Err != nil:
		return se.Err
	}
	return err
}

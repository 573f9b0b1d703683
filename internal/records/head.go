package records

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

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
type headParser struct {
	data []byte
	i    int
	// buf holds a string with escapes while it is decoded.
	buf []byte
}

// maxHeadDepth bounds the nesting the parser walks: a record's content is
// written by kesoku from JSON values of bounded depth.
const maxHeadDepth = 10000

type headError struct{ msg string }

func (e *headError) Error() string { return e.msg }

func (p *headParser) fail(format string, args ...any) error {
	return &headError{fmt.Sprintf(format, args...)}
}

func (p *headParser) unexpected(context string) error {
	if p.i >= len(p.data) {
		return p.fail("unexpected end of JSON input")
	}
	return p.fail("invalid character %s %s", jsonlex.QuoteChar(p.data[p.i]), context)
}

func (p *headParser) parse(line []byte) (Head, error) {
	p.data, p.i = line, 0
	var h Head
	p.space()
	if p.i >= len(p.data) || p.data[p.i] != '{' {
		return h, p.unexpected("looking for beginning of a record")
	}
	err := p.object(0, func(key []byte) error {
		var dst *string
		switch string(key) {
		case "session_id":
			dst = &h.SessionID
		case "parent_id":
			dst = &h.ParentID
		case "type":
			dst = (*string)(&h.Type)
		case "status":
			dst = (*string)(&h.Status)
		case "name":
			dst = &h.Name
		case "args_hash":
			dst = &h.ArgsHash
		case "call_id":
			dst = &h.CallID
		case "position":
			start := p.i
			if p.i >= len(p.data) || p.data[p.i] == '-' || p.data[p.i] < '0' || p.data[p.i] > '9' {
				return p.skip(1)
			}
			if err := p.number(); err != nil {
				return err
			}
			h.Position, _ = strconv.ParseInt(string(p.data[start:p.i]), 10, 64)
			if h.Position < 0 {
				h.Position = 0
			}
			return nil
		case "content":
			start := p.i
			err := p.skip(1)
			h.Content = p.data[start:p.i]
			return err
		case "error":
			return p.errorInfo(&h)
		case "is_error":
			if p.is("true") {
				h.IsError = true
				return nil
			}
			return p.skip(1)
		default:
			return p.skip(1)
		}
		if p.i < len(p.data) && p.data[p.i] == '"' {
			s, err := p.str()
			*dst = string(s)
			return err
		}
		return p.skip(1)
	})
	if err != nil {
		return h, err
	}
	p.space()
	if p.i < len(p.data) {
		return h, p.unexpected("after top-level value")
	}
	return h, nil
}

// errorInfo reads the error member: an object's kind and message, or
// null. A second error object fills in the first, as encoding/json does.
func (p *headParser) errorInfo(h *Head) error {
	switch {
	case p.i < len(p.data) && p.data[p.i] == '{':
		if h.Error == nil {
			h.Error = &message.ErrorInfo{}
		}
		return p.object(1, func(key []byte) error {
			var dst *string
			switch string(key) {
			case "kind":
				dst = (*string)(&h.Error.Kind)
			case "message":
				dst = &h.Error.Message
			default:
				return p.skip(2)
			}
			if p.i < len(p.data) && p.data[p.i] == '"' {
				s, err := p.str()
				*dst = string(s)
				return err
			}
			return p.skip(2)
		})
	case p.is("null"):
		h.Error = nil
		return nil
	}
	return p.skip(1)
}

// is moves past the literal w when the value at the offset is w, and
// otherwise stays, for skip to check what is there.
func (p *headParser) is(w string) bool {
	if len(p.data)-p.i >= len(w) && string(p.data[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

func (p *headParser) space() {
	for p.i < len(p.data) && isSpace(p.data[p.i]) {
		p.i++
	}
}

// object walks the object at the offset, calling member at each value
// (after the space before it); member must consume the value.
func (p *headParser) object(depth int, member func(key []byte) error) error {
	p.i++ // {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return nil
	}
	for {
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return p.unexpected("looking for beginning of object key string")
		}
		key, err := p.str()
		if err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return p.unexpected("after object key")
		}
		p.i++
		p.space()
		if member != nil {
			err = member(key)
		} else {
			err = p.skip(depth + 1)
		}
		if err != nil {
			return err
		}
		p.space()
		if p.i >= len(p.data) {
			return p.unexpected("")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return nil
		default:
			return p.unexpected("after object key:value pair")
		}
	}
}

// skip checks the value at the offset and moves past it.
func (p *headParser) skip(depth int) error {
	if depth > maxHeadDepth {
		return p.fail("nesting deeper than %d levels", maxHeadDepth)
	}
	p.space()
	if p.i >= len(p.data) {
		return p.unexpected("")
	}
	switch c := p.data[p.i]; {
	case c == '"':
		return p.skipStr()
	case c == '{':
		return p.object(depth, nil)
	case c == '[':
		p.i++
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return nil
		}
		for {
			if err := p.skip(depth + 1); err != nil {
				return err
			}
			p.space()
			if p.i >= len(p.data) {
				return p.unexpected("")
			}
			switch p.data[p.i] {
			case ',':
				p.i++
			case ']':
				p.i++
				return nil
			default:
				return p.unexpected("after array element")
			}
		}
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	}
	return p.unexpected("looking for beginning of value")
}

func (p *headParser) literal(w string) error {
	if len(p.data)-p.i >= len(w) && string(p.data[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return nil
	}
	for k := 0; k < len(w); k++ {
		if p.i+k >= len(p.data) || p.data[p.i+k] != w[k] {
			p.i += k
			return p.unexpected("in literal " + w + " (expecting " + strconv.QuoteRune(rune(w[k])) + ")")
		}
	}
	return nil
}

func (p *headParser) number() error {
	digits := func() int {
		n := 0
		for p.i < len(p.data) && '0' <= p.data[p.i] && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.data[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.data) && p.data[p.i] == '0':
		p.i++
	case digits() == 0:
		return p.unexpected("in numeric literal")
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return p.unexpected("after decimal point in numeric literal")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return p.unexpected("in exponent of numeric literal")
		}
	}
	return nil
}

// str decodes the string at the offset; the result is valid until the
// next call. Escapes are decoded as encoding/json decodes them.
func (p *headParser) str() ([]byte, error) {
	p.i++ // "
	start := p.i
	for p.i < len(p.data) {
		switch c := p.data[p.i]; {
		case c == '"':
			p.i++
			if s := p.data[start : p.i-1]; !utf8.Valid(s) {
				return p.validUTF8(s), nil
			}
			return p.data[start : p.i-1], nil
		case c == '\\':
			return p.strEscaped(start)
		case c < 0x20:
			return nil, p.fail("invalid character %s in string literal", jsonlex.QuoteChar(c))
		}
		p.i++
	}
	return nil, p.fail("unexpected end of JSON input")
}

// skipStr checks the string at the offset and moves past it, decoding
// nothing: a string skipped (a content of megabytes) is never copied.
func (p *headParser) skipStr() error {
	p.i++ // "
	for p.i < len(p.data) {
		switch c := p.data[p.i]; {
		case c == '"':
			p.i++
			return nil
		case c == '\\':
			if p.i+1 >= len(p.data) {
				return p.fail("unexpected end of JSON input")
			}
			switch e := p.data[p.i+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if _, ok := jsonlex.Hex4(p.data, p.i+2); !ok {
					p.i += 2
					return p.fail("invalid character in \\u hexadecimal character escape")
				}
				p.i += 6
			default:
				p.i++
				return p.fail("invalid character %s in string escape code", jsonlex.QuoteChar(e))
			}
		case c < 0x20:
			return p.fail("invalid character %s in string literal", jsonlex.QuoteChar(c))
		default:
			p.i++
		}
	}
	return p.fail("unexpected end of JSON input")
}

// validUTF8 is s with each byte that is not UTF-8 made U+FFFD, as
// encoding/json reads it.
func (p *headParser) validUTF8(s []byte) []byte {
	p.buf = jsonlex.AppendValidUTF8(p.buf[:0], s)
	return p.buf
}

func (p *headParser) strEscaped(start int) ([]byte, error) {
	b := jsonlex.AppendValidUTF8(p.buf[:0], p.data[start:p.i])
	b, next, err := jsonlex.AppendString(b, p.data, p.i)
	p.buf, p.i = b[:0], next
	if cap(b) > 64<<10 {
		p.buf = nil // a long string's buffer only while it is in use
	}
	if err != nil {
		return nil, p.fail("%s", err.Msg)
	}
	return b, nil
}

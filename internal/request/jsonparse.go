package request

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// maxDepth bounds the nesting of arrays and objects in a request: deeper
// input is refused rather than walked.
const maxDepth = 200

// syntaxError is a mistake in a JSON text, at byte offset Off of it.
type syntaxError struct {
	Off int
	Msg string
}

func (e *syntaxError) Error() string { return e.Msg }

// jsonParser decodes JSON into the values encoding/json produces for an
// `any` — map[string]any, []any, string, bool, nil — except that an
// integer that fits is an int64, or a uint64 above that (as from YAML), so
// that large integers keep every digit; a key given twice is refused. It
// reads tokens from a jsontext.Decoder. Its errors are *syntaxError.
type jsonParser struct {
	d   jsontext.Decoder
	buf bytes.Buffer
	src source
	// outer is the depth of the value read as a request: a list's items
	// are each bounded as a request of their own.
	outer int
	// b is the builder of the request being parsed (parseRequestLine).
	b requestBuilder
}

// Invalid UTF-8 is let through as encoding/json lets it, read as U+FFFD.
// A key given twice in one object is refused: JSON leaves its meaning open
// (encoding/json keeps the last), and a request whose arguments say two
// things must not run with either. YAML refuses it too.
var decoderOptions = []jsontext.Options{jsontext.AllowInvalidUTF8(true)}

// source is what the decoder reads: data, the text from offset base on
// as far as it was read, and then r, if any.
type source struct {
	r    io.Reader
	data []byte
	base int64
	read int // bytes of data handed to the decoder
	// limit is the offset past which nothing is read: a request too large.
	limit int64
	err   error // what r returned last, when it was no EOF
}

// errLimit is what source returns at its limit.
var errLimit = errors.New("request too large")

func (s *source) Read(p []byte) (int, error) {
	if s.read == len(s.data) {
		if s.r == nil {
			return 0, io.EOF
		}
		room := int(min(int64(jsonPiece), s.limit-s.base-int64(len(s.data))))
		if room <= 0 {
			return 0, errLimit
		}
		s.data = slices.Grow(s.data, room)
		n, err := s.r.Read(s.data[len(s.data) : len(s.data)+room])
		if s.data = s.data[:len(s.data)+n]; err != nil && err != io.EOF {
			s.err = err
		}
		if n == 0 {
			return 0, err
		}
	}
	n := copy(p, s.data[s.read:])
	s.read += n
	return n, nil
}

// at is the byte at offset off, 0 past what was read.
func (s *source) at(off int64) byte {
	if i := off - s.base; i >= 0 && i < int64(len(s.data)) {
		return s.data[i]
	}
	return 0
}

// next is the offset of the token at or after off: past space, and the
// commas and colons between tokens.
func (s *source) next(off int64) int64 {
	for c := s.at(off); c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == ':'; c = s.at(off) {
		off++
	}
	return off
}

// start reads data, one JSON text: over a bytes.Buffer, the decoder
// reads it in place rather than a copy.
func (p *jsonParser) start(data []byte) *jsontext.Decoder {
	p.src, p.outer = source{data: data}, 0
	p.buf = *bytes.NewBuffer(data)
	p.d.Reset(&p.buf, decoderOptions...)
	return &p.d
}

// parse decodes data, one JSON value and nothing after it.
func (p *jsonParser) parse(data []byte) (any, error) {
	p.start(data)
	v, err := p.value()
	if err == nil {
		err = p.end()
	}
	return v, err
}

// end checks that nothing follows the value read.
func (p *jsonParser) end() error {
	off := p.d.InputOffset()
	switch _, err := p.d.ReadToken(); err {
	case io.EOF:
		return nil
	case nil:
		// The decoder reads a stream of values; a JSON text is one.
		off = p.src.next(off)
		c := strconv.QuoteRune(rune(p.src.at(off)))
		return &syntaxError{int(off - p.src.base), "invalid character " + c + " after top-level value"}
	default:
		return p.mistake(err)
	}
}

// value decodes the next value.
func (p *jsonParser) value() (any, error) {
	d := &p.d
	tok, err := d.ReadToken()
	if err != nil {
		return nil, p.mistake(err)
	}
	switch k := tok.Kind(); k {
	case '{', '[':
		if d.StackDepth()-p.outer > maxDepth {
			return nil, &syntaxError{int(d.InputOffset() - 1 - p.src.base), "nesting deeper than " + strconv.Itoa(maxDepth) + " levels"}
		}
		if k == '[' {
			list := []any{}
			for d.PeekKind() != ']' {
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := d.ReadToken()
			return list, p.mistake(err)
		}
		m := make(map[string]any)
		for d.PeekKind() != '}' {
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			if m[key], err = p.value(); err != nil {
				return nil, err
			}
		}
		_, err := d.ReadToken()
		return m, p.mistake(err)
	case 'n':
		return nil, nil
	case 't', 'f':
		return tok.Bool(), nil
	case '"':
		return tok.String(), nil
	}
	return p.number(tok)
}

// str reads a key, or a string value.
func (p *jsonParser) str() (string, error) {
	tok, err := p.d.ReadToken()
	if err != nil {
		return "", p.mistake(err)
	}
	return tok.String(), nil
}

// number decodes a number: an int64 when it is an integer that fits, a
// uint64 when it fits that, a float64 otherwise.
func (p *jsonParser) number(tok jsontext.Token) (any, error) {
	if n, err := tok.Int(); err == nil {
		return n, nil
	}
	// Up to 2^64-1 an integer keeps its digits as a uint64, as from YAML:
	// ids and arguments read alike in both.
	if n, err := tok.Uint(); err == nil {
		return n, nil
	}
	f, err := tok.Float()
	if err != nil {
		lit := tok.String()
		return nil, &syntaxError{int(p.d.InputOffset() - int64(len(lit)) - p.src.base), fmt.Sprintf("number %s is out of range", lit)}
	}
	return f, nil
}

// mistake is an error of the decoder as a syntaxError, in the decoder's
// words, at its offset in the text.
func (p *jsonParser) mistake(err error) error {
	var se *jsontext.SyntacticError
	switch {
	case p.src.err != nil:
		return p.src.err // the file could not be read
	case err == nil || errors.Is(err, errLimit):
		return err
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		return &syntaxError{len(p.src.data), "unexpected end of JSON input"}
	case errors.Is(err, jsontext.ErrDuplicateName) && errors.As(err, &se):
		key := strconv.Quote(truncateForMessage(se.JSONPointer.LastToken()))
		return &syntaxError{int(se.ByteOffset - p.src.base), "duplicate key " + key + " in an object"}
	case errors.As(err, &se) && se.Err != nil:
		msg := se.Err.Error()
		// The decoder quotes a character past ASCII, or an escape, as far
		// as it had read it: quoted as its first byte, or not at all, it
		// reads alike however the file came in pieces.
		switch c := p.src.at(se.ByteOffset); {
		case strings.HasPrefix(msg, "invalid escape sequence "):
			msg = "invalid escape sequence in string"
		case c >= utf8.RuneSelf && strings.HasPrefix(msg, "invalid character '"):
			_, rest, _ := strings.Cut(msg[len("invalid character '"):], "' ")
			msg = fmt.Sprintf("invalid character '\\x%02x' %s", c, rest)
		}
		return &syntaxError{int(se.ByteOffset - p.src.base), msg}
	}
	return &syntaxError{0, err.Error()}
}

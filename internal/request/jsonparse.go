package request

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/kesoku/kesoku/internal/jsonlex"
)

// maxDepth bounds the nesting of arrays and objects in a request: deeper
// input is refused rather than walked.
const maxDepth = 200

// jsonParser decodes JSON into the values encoding/json produces for an
// `any` — map[string]any, []any, string, bool, nil — except that an
// integer that fits is an int64, or a uint64 above that (as from YAML), so
// that large integers keep every digit. It keeps the byte offset of every
// error and value, for file:line:column messages, bounds nesting, and is
// several times faster than reflection on the batch path.
type jsonParser struct {
	data  []byte
	i     int
	depth int
	// names keeps the short strings that recur from request to request
	// (keys, tool names).
	names interner
	// b is the builder of the request being parsed (parseRequestLine).
	b requestBuilder
}

// interner keeps short strings that recur, so that a batch allocates each
// once.
type interner struct{ m map[string]string }

// internable bounds the strings an interner keeps: short ones, and not
// too many, whatever the input.
const (
	maxInternLen   = 32
	maxInternCount = 4096
)

// intern returns s as a string, the same one each time for a short s.
func (in *interner) intern(s []byte) string {
	if len(s) > maxInternLen {
		return string(s)
	}
	if v, ok := in.m[string(s)]; ok {
		return v
	}
	v := string(s)
	if in.m == nil {
		in.m = make(map[string]string)
	}
	if len(in.m) < maxInternCount {
		in.m[v] = v
	}
	return v
}

// jsonError is a syntax error at a byte offset of the input.
type jsonError struct {
	off int
	msg string
}

func (e *jsonError) Error() string { return e.msg }

func (p *jsonParser) fail(format string, args ...any) error {
	return &jsonError{off: p.i, msg: fmt.Sprintf(format, args...)}
}

// unexpected reports the byte at the current offset, or the end of input.
func (p *jsonParser) unexpected(context string) error {
	if p.i >= len(p.data) {
		return p.fail("unexpected end of JSON input")
	}
	return p.fail("invalid character %s %s", jsonlex.QuoteChar(p.data[p.i]), context)
}

func (p *jsonParser) skipSpace() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// end checks that nothing but space follows the top-level value.
func (p *jsonParser) end() error {
	p.skipSpace()
	if p.i < len(p.data) {
		return p.unexpected("after top-level value")
	}
	return nil
}

// value decodes the value at the current offset.
func (p *jsonParser) value() (any, error) {
	p.skipSpace()
	if p.i >= len(p.data) {
		return nil, p.unexpected("")
	}
	switch c := p.data[p.i]; {
	case c == '"':
		return p.str()
	case c == '{':
		m := make(map[string]any)
		err := p.object(func(key string) error {
			if _, dup := m[key]; dup {
				return p.duplicateKey(key)
			}
			v, err := p.value()
			m[key] = v
			return err
		})
		return m, err
	case c == '[':
		list := []any{}
		err := p.array(func() error {
			v, err := p.value()
			list = append(list, v)
			return err
		})
		return list, err
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return true, p.word("true")
	case c == 'f':
		return false, p.word("false")
	case c == 'n':
		return nil, p.word("null")
	}
	return nil, p.unexpected("looking for beginning of value")
}

// duplicateKey is the error for a key given twice in one object: JSON
// leaves its meaning open (encoding/json keeps the last), and a request
// whose arguments say two things must not run with either. YAML refuses
// it too.
func (p *jsonParser) duplicateKey(key string) error {
	return p.fail("duplicate key %s in an object", strconv.Quote(truncateForMessage(key)))
}

func (p *jsonParser) word(w string) error {
	for k := 0; k < len(w); k++ {
		if p.i >= len(p.data) || p.data[p.i] != w[k] {
			return p.unexpected("in literal " + w + " (expecting " + strconv.QuoteRune(rune(w[k])) + ")")
		}
		p.i++
	}
	return nil
}

func (p *jsonParser) enter() error {
	if p.depth++; p.depth > maxDepth {
		return p.fail("nesting deeper than %d levels", maxDepth)
	}
	return nil
}

// object decodes the object at the current offset, calling member with
// each key when the offset is at its value; member must consume the value.
func (p *jsonParser) object(member func(key string) error) error {
	if err := p.enter(); err != nil {
		return err
	}
	p.i++ // {
	p.skipSpace()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		p.depth--
		return nil
	}
	for {
		p.skipSpace()
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return p.unexpected("looking for beginning of object key string")
		}
		key, err := p.key()
		if err != nil {
			return err
		}
		p.skipSpace()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return p.unexpected("after object key")
		}
		p.i++
		if err := member(key); err != nil {
			return err
		}
		p.skipSpace()
		if p.i >= len(p.data) {
			return p.unexpected("")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			p.depth--
			return nil
		default:
			return p.unexpected("after object key:value pair")
		}
	}
}

// array decodes the array at the current offset, calling elem when the
// offset is at each element; elem must consume it.
func (p *jsonParser) array(elem func() error) error {
	if err := p.enter(); err != nil {
		return err
	}
	p.i++ // [
	p.skipSpace()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		p.depth--
		return nil
	}
	for {
		p.skipSpace()
		if err := elem(); err != nil {
			return err
		}
		p.skipSpace()
		if p.i >= len(p.data) {
			return p.unexpected("")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			p.depth--
			return nil
		default:
			return p.unexpected("after array element")
		}
	}
}

// key decodes an object key: str, interned when it has no escapes.
func (p *jsonParser) key() (string, error) {
	start := p.i + 1
	for j := start; j < len(p.data); j++ {
		c := p.data[j]
		if c == '"' {
			p.i = j + 1
			return p.names.intern(p.data[start:j]), nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	return p.str()
}

// str decodes the string at the current offset (at its opening quote).
// Invalid UTF-8 and lone surrogates become U+FFFD, as in encoding/json.
func (p *jsonParser) str() (string, error) {
	p.i++ // "
	start := p.i
	ascii := true
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			s := p.data[start:p.i]
			p.i++
			if ascii || utf8.Valid(s) {
				return string(s), nil
			}
			return string(jsonlex.AppendValidUTF8(nil, s)), nil
		case c == '\\':
			return p.strSlow(start)
		case c < 0x20:
			return "", p.fail("invalid character %s in string literal", jsonlex.QuoteChar(c))
		case c >= utf8.RuneSelf:
			ascii = false
		}
		p.i++
	}
	return "", p.fail("unexpected end of JSON input")
}

// strSlow decodes a string with escapes, from start (after the opening
// quote); the offset is at the first backslash.
func (p *jsonParser) strSlow(start int) (string, error) {
	b := jsonlex.AppendValidUTF8(make([]byte, 0, p.i-start+16), p.data[start:p.i])
	b, next, err := jsonlex.AppendString(b, p.data, p.i)
	p.i = next
	if err != nil {
		return "", p.fail("%s", err.Msg)
	}
	return string(b), nil
}

// number decodes the number at the current offset: an int64 when it is
// an integer that fits, a float64 otherwise.
func (p *jsonParser) number() (any, error) {
	start := p.i
	if p.data[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.data) && '0' <= p.data[p.i] && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i >= len(p.data) {
		return nil, p.unexpected("in numeric literal")
	}
	switch c := p.data[p.i]; {
	case c == '0':
		p.i++
	case '1' <= c && c <= '9':
		digits()
	default:
		return nil, p.unexpected("in numeric literal")
	}
	integer := true
	if p.i < len(p.data) && p.data[p.i] == '.' {
		integer = false
		p.i++
		if digits() == 0 {
			return nil, p.unexpected("after decimal point in numeric literal")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		integer = false
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.unexpected("in exponent of numeric literal")
		}
	}
	lit := p.data[start:p.i]
	if integer {
		if len(lit) <= 18 { // fits an int64 whatever the digits
			var n int64
			neg := lit[0] == '-'
			d := lit
			if neg {
				d = d[1:]
			}
			for _, c := range d {
				n = n*10 + int64(c-'0')
			}
			if neg {
				n = -n
			}
			return n, nil
		}
		if n, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
			return n, nil
		}
		// Up to 2^64-1 an integer keeps its digits as a uint64, as from
		// YAML: ids and arguments read alike in both.
		if n, err := strconv.ParseUint(string(lit), 10, 64); err == nil {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		p.i = start
		return nil, p.fail("number %s is out of range", lit)
	}
	return f, nil
}

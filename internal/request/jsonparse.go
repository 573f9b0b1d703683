package request

import (
	"fmt"
	"strconv"

	"github.com/kesoku/kesoku/internal/jsonlex"
)

// maxDepth bounds the nesting of arrays and objects in a request: deeper
// input is refused rather than walked.
const maxDepth = 200

// jsonParser decodes JSON into the values encoding/json produces for an
// `any` — map[string]any, []any, string, bool, nil — except that an
// integer that fits is an int64, or a uint64 above that (as from YAML), so
// that large integers keep every digit; a key given twice is refused. Its
// errors are *jsonlex.SyntaxError, at the byte offset of the mistake.
type jsonParser struct {
	w jsonlex.Walker
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

// start walks data to its first token.
func (p *jsonParser) start(data []byte) *jsonlex.Walker {
	p.w.Reset(data)
	p.w.MaxDepth = maxDepth
	p.w.Next()
	return &p.w
}

// parse decodes data, one JSON value and nothing after it.
func (p *jsonParser) parse(data []byte) (any, error) {
	if p.start(data).Err != nil {
		return nil, p.w.Err
	}
	v, err := p.value()
	if err == nil {
		p.w.Next()
		err = p.w.Err
	}
	return v, err
}

// value decodes the value whose first token the walker is at.
func (p *jsonParser) value() (any, error) {
	w := &p.w
	switch w.Delim() {
	case '{':
		m := make(map[string]any)
		for w.Next() && w.Delim() != '}' {
			key := p.names.intern(w.Str())
			if !w.Next() {
				break
			}
			if _, dup := m[key]; dup {
				return nil, p.duplicateKey(key)
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
		return m, w.Err
	case '[':
		list := []any{}
		for w.Next() && w.Delim() != ']' {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		return list, w.Err
	}
	switch v := w.Value(); v[0] {
	case 'n':
		return nil, nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case '"':
		return string(w.Str()), nil
	}
	return p.number(w.Value())
}

// duplicateKey is the error for a key given twice in one object: JSON
// leaves its meaning open (encoding/json keeps the last), and a request
// whose arguments say two things must not run with either. YAML refuses
// it too.
func (p *jsonParser) duplicateKey(key string) error {
	return &jsonlex.SyntaxError{Off: p.w.AfterColon, Msg: "duplicate key " + strconv.Quote(truncateForMessage(key)) + " in an object"}
}

// number decodes a number: an int64 when it is an integer that fits, a
// uint64 when it fits that, a float64 otherwise.
func (p *jsonParser) number(lit []byte) (any, error) {
	var n int64
	integer := true
	for _, c := range lit {
		if '0' <= c && c <= '9' {
			n = n*10 + int64(c-'0')
		} else if c != '-' {
			integer = false
		}
	}
	if integer && len(lit) <= 18 { // fits an int64 whatever the digits
		if lit[0] == '-' {
			n = -n
		}
		return n, nil
	}
	if integer {
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
		return nil, &jsonlex.SyntaxError{Off: p.w.Start, Msg: fmt.Sprintf("number %s is out of range", lit)}
	}
	return f, nil
}

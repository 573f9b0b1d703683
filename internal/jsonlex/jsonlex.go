// Package jsonlex walks JSON text token by token, for kesoku's readers of
// JSON that must not build what they do not need: the request loader (a
// JSON Lines request, a JSON file's list in pieces) and the records' head
// reader. The Walker checks the grammar between the tokens and words every
// mistake as encoding/json does, at the same offset: encoding/json itself
// words the mistakes inside a token.
//
// It lexes by hand, with offsets: segmentio/encoding's Tokenizer, tried
// first, keeps its place in slices that it writes for every token, and
// while the collector marks, those writes cost the batch path of JSON
// Lines about a fifth more CPU (bench/RESULTS.md).
package jsonlex

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// SyntaxError is a mistake in a JSON text, in encoding/json's words, at
// byte offset Off of the text.
type SyntaxError struct {
	Off int
	Msg string
}

func (e *SyntaxError) Error() string { return e.Msg }

// ErrCut is the error of a Walker whose text was Cut before the value it
// was reading ended: the reader reads on and walks that value again.
var ErrCut = errors.New("jsonlex: the text ends before the value does")

// What may come next.
const (
	wantValue = iota // at the top, after a colon, after a comma in an array
	wantFirst        // after [ or {: a value or a key, or the close
	wantKey          // after a comma in an object
	wantColon
	wantMore // after a value in an array or an object: a comma or the close
	wantEnd  // after the top-level value
)

// Walker reads the tokens of one JSON text: keys, scalars, and the
// brackets of arrays and objects (commas and colons are checked and
// passed over). After Next returns false, Err is nil at the end of the
// text, and otherwise says what was wrong (a *SyntaxError, or ErrCut).
type Walker struct {
	Data []byte
	// Cut says that Data may end before the text does: a token that
	// reaches its end may go on, and the end of Data is ErrCut.
	Cut bool
	// MaxDepth bounds the nesting of arrays and objects inside the
	// Outer ones: a list's items, read one by one, are each bounded as a
	// text of their own.
	MaxDepth, Outer int
	Err             error
	// Start and End are the offsets of the token and after it;
	// AfterColon is the offset after the colon of the last key.
	Start, End, AfterColon int
	delim                  byte
	plain                  bool // a string without escapes, all ASCII
	stack                  []byte
	want                   int
}

// Reset walks data from its start, at the top level.
func (w *Walker) Reset(data []byte) {
	w.Data, w.Err, w.End, w.stack, w.want = data, nil, 0, w.stack[:0], wantValue
}

// Mark is a place between two tokens of a walk, to Resume from.
type Mark struct{ Off, want, depth int }

// Mark is the place after the token.
func (w *Walker) Mark() Mark { return Mark{w.End, w.want, len(w.stack)} }

// Resume walks data, the text from m on, where the walk was at m. The
// walk must not have closed any array or object since m.
func (w *Walker) Resume(data []byte, m Mark) {
	w.Data, w.Err, w.End, w.stack, w.want = data, nil, 0, w.stack[:m.depth], m.want
}

// Depth is the number of arrays and objects open.
func (w *Walker) Depth() int { return len(w.stack) }

// Delim is the token when it is a bracket, and 0 for a key or a scalar.
func (w *Walker) Delim() byte { return w.delim }

// Value is the text of the token.
func (w *Walker) Value() []byte { return w.Data[w.Start:w.End] }

// Next moves to the next token, reporting whether there is one.
func (w *Walker) Next() bool {
	for w.Err == nil {
		if !w.lex() {
			return w.stop()
		}
		if w.Cut && w.End == len(w.Data) {
			w.Err = ErrCut
			return false
		}
		d, top := w.delim, w.top()
		switch w.want {
		case wantColon:
			if d == ':' {
				w.want, w.AfterColon = wantValue, w.End
				continue
			}
		case wantMore:
			if d == ',' {
				if w.want = wantValue; top == '{' {
					w.want = wantKey
				}
				continue
			}
			if d == top+2 { // ] after [, } after {
				return w.close()
			}
		case wantFirst, wantKey:
			if w.want == wantFirst && d == top+2 {
				return w.close()
			}
			if top == '[' {
				return w.value(d)
			}
			if d == 0 && w.Data[w.Start] == '"' {
				w.want = wantColon
				return true
			}
		case wantValue:
			return w.value(d)
		}
		return w.unexpected()
	}
	return false
}

// value takes a token where a value may begin.
func (w *Walker) value(d byte) bool {
	switch d {
	case 0:
		w.after()
		return true
	case '{', '[':
		if w.stack = append(w.stack, d); len(w.stack)-w.Outer > w.MaxDepth {
			return w.fail(w.Start, "nesting deeper than "+strconv.Itoa(w.MaxDepth)+" levels")
		}
		w.want = wantFirst
		return true
	}
	return w.unexpected()
}

// top is the bracket of the innermost array or object open, 0 at the top.
func (w *Walker) top() byte {
	if len(w.stack) == 0 {
		return 0
	}
	return w.stack[len(w.stack)-1]
}

func (w *Walker) close() bool {
	w.stack = w.stack[:len(w.stack)-1]
	w.after()
	return true
}

func (w *Walker) after() {
	if w.want = wantEnd; len(w.stack) > 0 {
		w.want = wantMore
	}
}

// unexpected fails at a token out of place, in encoding/json's words.
func (w *Walker) unexpected() bool {
	top, where := w.top(), "looking for beginning of value"
	switch {
	case w.want == wantColon:
		where = "after object key"
	case w.want == wantMore && top == '{':
		where = "after object key:value pair"
	case w.want == wantMore:
		where = "after array element"
	case w.want == wantEnd:
		where = "after top-level value"
	case w.want == wantKey || top == '{' && w.want == wantFirst:
		where = "looking for beginning of object key string"
	}
	return w.fail(w.Start, "invalid character "+QuoteChar(w.Data[w.Start])+" "+where)
}

// lex reads the token from End on: false at the end of the text, and at
// a token that is no JSON (Start < len(Data)).
func (w *Walker) lex() bool {
	d, i := w.Data, w.End
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	w.Start, w.delim = i, 0
	if i == len(d) {
		return false
	}
	switch c := d[i]; c {
	case '{', '}', '[', ']', ',', ':':
		w.delim, w.End = c, i+1
		return true
	case '"':
		w.plain = true
		for j := i + 1; j < len(d); j++ {
			if c := d[j]; c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
				continue
			}
			switch c := d[j]; {
			case c == '"':
				w.End = j + 1
				return true
			case c == '\\' && j+1 < len(d) && strings.IndexByte(`"\/bfnrt`, d[j+1]) >= 0:
				w.plain, j = false, j+1
			case c == '\\' && j+5 < len(d) && d[j+1] == 'u' && isHex(d[j+2:j+6]):
				w.plain, j = false, j+5
			case c < 0x20 || c == '\\':
				return false
			case c >= utf8.RuneSelf:
				w.plain = false
			}
		}
		return false
	case 't', 'f', 'n':
		lit := "null"
		if c == 't' {
			lit = "true"
		} else if c == 'f' {
			lit = "false"
		}
		if w.End = i + len(lit); w.End > len(d) || string(d[i:w.End]) != lit {
			return false
		}
		return true
	}
	j := i
	if d[j] == '-' {
		j++
	}
	if j == len(d) || d[j] < '0' || d[j] > '9' {
		return false
	}
	if j++; d[j-1] != '0' {
		j = digits(d, j)
	}
	if j < len(d) && d[j] == '.' {
		if j = digits(d, j+1); d[j-1] == '.' {
			return false
		}
	}
	if j < len(d) && (d[j] == 'e' || d[j] == 'E') {
		if j++; j < len(d) && (d[j] == '+' || d[j] == '-') {
			j++
		}
		if j = digits(d, j); d[j-1] < '0' || d[j-1] > '9' {
			return false
		}
	}
	w.End = j
	return true
}

// digits is the offset after the digits from j on.
func digits(d []byte, j int) int {
	for j < len(d) && '0' <= d[j] && d[j] <= '9' {
		j++
	}
	return j
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// stop ends the walk where lex stopped: at the end of the text, or at a
// token that is no JSON.
func (w *Walker) stop() bool {
	if w.Start < len(w.Data) {
		c := w.Data[w.Start]
		inKey := w.want == wantKey || w.want == wantFirst && w.top() == '{'
		if inKey && c == '"' || !inKey && w.want <= wantFirst && strings.IndexByte(`"-0123456789tfn`, c) >= 0 {
			return w.lexical()
		}
		return w.unexpected() // a byte that begins no token
	}
	switch {
	case w.Cut:
		w.Err = ErrCut
		return false
	case w.want == wantEnd:
		return false
	}
	return w.fail(len(w.Data), "unexpected end of JSON input")
}

// lexical fails at a token that is no JSON: encoding/json, reading from
// its start, words the mistake and places it.
func (w *Walker) lexical() bool {
	err := json.Unmarshal(w.Data[w.Start:], new(json.RawMessage))
	var se *json.SyntaxError
	switch {
	case !errors.As(err, &se):
	case atEnd(se, w.Data[w.Start:]) && w.Cut:
		w.Err = ErrCut
		return false
	case atEnd(se, w.Data[w.Start:]):
		return w.fail(len(w.Data), "unexpected end of JSON input")
	case strings.HasSuffix(se.Error(), `in \u hexadecimal character escape`):
		// placed at the first of the four digits, where it always was
		off := w.Start + int(se.Offset) - 1
		return w.fail(bytes.LastIndex(w.Data[:off], []byte(`\u`))+2, se.Error())
	default:
		return w.fail(w.Start+int(se.Offset)-1, se.Error())
	}
	return w.fail(w.Start, "invalid character "+QuoteChar(w.Data[w.Start])+" in a JSON token")
}

// atEnd reports whether encoding/json's error se says that text ends too
// soon, which it words in some places as a space after the text.
func atEnd(se *json.SyntaxError, text []byte) bool {
	return se.Error() == "unexpected end of JSON input" ||
		int(se.Offset) == len(text) && strings.HasPrefix(se.Error(), "invalid character ' '") && text[len(text)-1] != ' '
}

func (w *Walker) fail(off int, msg string) bool {
	w.Err = &SyntaxError{off, msg}
	return false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// Skip moves past the rest of the array or object the Walker is in,
// reporting whether it is all there.
func (w *Walker) Skip() bool {
	for depth := len(w.stack); len(w.stack) >= depth; {
		if !w.Next() {
			return false
		}
	}
	return true
}

// Str is the key or string the Walker is at, decoded: escapes, invalid
// UTF-8 and lone surrogates as encoding/json reads them. The bytes are
// the text's own where it has no escapes, and valid until the next token.
func (w *Walker) Str() []byte {
	v := w.Data[w.Start+1 : w.End-1]
	if w.plain || bytes.IndexByte(v, '\\') < 0 && utf8.Valid(v) {
		return v
	}
	var s string
	json.Unmarshal(w.Value(), &s)
	return []byte(s)
}

// QuoteChar is c as encoding/json's syntax errors show it: 'x', '\x01'.
func QuoteChar(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c == '"':
		return `'"'`
	}
	q := strconv.Quote(string(rune(c)))
	return "'" + q[1:len(q)-1] + "'"
}

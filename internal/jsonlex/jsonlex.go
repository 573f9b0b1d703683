// Package jsonlex holds the pieces of JSON's lexical grammar that kesoku's
// hand-written JSON readers share — the request loader's parser, the
// records' head reader and diff's walk of two values, written for speed
// (or memory) where encoding/json is the measured cost (bench/RESULTS.md)
// — so that they decode strings exactly as encoding/json does and word
// their syntax errors alike.
package jsonlex

import (
	"strconv"
	"unicode/utf8"
)

// SyntaxError is a mistake in a JSON text, in encoding/json's words, at
// byte offset Off of the text.
type SyntaxError struct {
	Off int
	Msg string
}

func (e *SyntaxError) Error() string { return e.Msg }

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

// AppendValidUTF8 appends s to dst, each byte that is not UTF-8 as U+FFFD,
// as encoding/json reads a string.
func AppendValidUTF8(dst, s []byte) []byte {
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		if r == utf8.RuneError && n == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[:n]...)
		}
		s = s[n:]
	}
	return dst
}

// AppendString decodes the rest of a JSON string literal, from offset i of
// data (anywhere after its opening quote) to its closing quote, and
// appends it to dst: escapes decoded, invalid UTF-8 and lone surrogates
// made U+FFFD, as encoding/json does. next is the offset after the closing
// quote. The readers scan plain strings themselves, without copying, and
// call this from the first backslash on.
func AppendString(dst, data []byte, i int) (out []byte, next int, err *SyntaxError) {
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return dst, i + 1, nil
		case c < 0x20:
			return dst, i, &SyntaxError{i, "invalid character " + QuoteChar(c) + " in string literal"}
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, data[i:i+n]...)
			}
			i += n
			continue
		case c != '\\':
			dst = append(dst, c)
			i++
			continue
		}
		if i+1 >= len(data) {
			return dst, len(data), endOfInput(len(data))
		}
		e := data[i+1]
		i += 2
		switch e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, ok := Hex4(data, i)
			if !ok {
				return dst, i, &SyntaxError{i, `invalid character in \u hexadecimal character escape`}
			}
			i += 4
			if 0xD800 <= r && r < 0xDC00 && i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
				// A high surrogate and a low one make one rune; a high one
				// followed by anything else stands alone.
				if r2, ok := Hex4(data, i+2); ok && 0xDC00 <= r2 && r2 < 0xE000 {
					r = (r-0xD800)<<10 | (r2 - 0xDC00) + 0x10000
					i += 6
				}
			}
			if 0xD800 <= r && r < 0xE000 {
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
		default:
			return dst, i - 1, &SyntaxError{i - 1, "invalid character " + QuoteChar(e) + " in string escape code"}
		}
	}
	return dst, i, endOfInput(i)
}

func endOfInput(off int) *SyntaxError {
	return &SyntaxError{off, "unexpected end of JSON input"}
}

// Hex4 decodes the four hexadecimal digits of a \\u escape at data[i:].
func Hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

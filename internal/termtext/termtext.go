// Package termtext makes text from outside safe to print on a terminal.
//
// Names, values and output that a config file, a tool, a server or a model
// wrote may hold control characters: an ESC sequence can move the cursor,
// recolour or hide a line, a newline can forge a line of kesoku's own
// output, a bidirectional override can make a command read as another.
// Such text goes through Escape (a value inside a line) or Lines (text
// whose own line breaks are meant) before it is printed.
package termtext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every character that is not safe on a terminal
// written as a Go escape: "\n", "\t", "\x1b", "\u202e", and "\xff" for a
// byte that is not UTF-8. Printable text, spaces included, is left as it
// is; a backslash is doubled only where it would otherwise make an escape
// of its own ambiguous. Text that needs no escaping is returned as it is,
// without a copy.
func Escape(s string) string {
	return escape(s, false)
}

// Lines is Escape but for line breaks and tabs, which are kept: for text
// of many lines (a joined error, a stack trace, a block of a server's
// output) whose layout is its own. A carriage return is escaped: it could
// overwrite the line it ends.
func Lines(s string) string {
	return escape(s, true)
}

func escape(s string, keepNewlines bool) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '\\' {
			i++
			continue
		}
		if (c == '\n' || c == '\t') && keepNewlines {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if c >= utf8.RuneSelf && r != utf8.RuneError && safe(r) {
			i += size
			continue
		}
		if c == '\\' && !needsBackslash(s, keepNewlines) {
			i++
			continue
		}
		break
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	backslash := needsBackslash(s, keepNewlines)
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case r == '\\':
			if backslash {
				b.WriteString(`\\`)
			} else {
				b.WriteByte('\\')
			}
		case (r == '\n' || r == '\t') && keepNewlines:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&0xf])
		case r >= utf8.RuneSelf && !safe(r):
			digits := 4
			if r > 0xffff {
				b.WriteString(`\U`)
				digits = 8
			} else {
				b.WriteString(`\u`)
			}
			for shift := 4 * (digits - 1); shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>uint(shift))&0xf])
			}
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

const hex = "0123456789abcdef"

// needsBackslash is whether s holds anything Escape rewrites: only then
// is a backslash of s doubled, so that "\x1b" written by a server reads
// differently from an ESC it sent, while a Windows path stays readable.
func needsBackslash(s string, keepNewlines bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || keepNewlines && (c == '\n' || c == '\t') {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if c < utf8.RuneSelf || r == utf8.RuneError || !safe(r) {
			return true
		}
		i += size
	}
	return false
}

// safe is whether a character outside ASCII may reach a terminal as it
// is: printable, and not one that reorders or hides the text around it.
func safe(r rune) bool {
	if r > 0xffff {
		return unicode.IsPrint(r)
	}
	switch {
	case r >= 0x80 && r < 0xa0: // C1 controls: 0x9b is a CSI on some terminals
		return false
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return false // bidirectional embeddings, overrides, isolates and marks
	case r == 0x2028 || r == 0x2029:
		return false // line and paragraph separators
	case r == 0xfeff:
		return false
	}
	return unicode.IsPrint(r) || r == 0xa0 || unicode.IsGraphic(r)
}

// InvalidUTF8 returns the offset of the first byte of s that is not
// UTF-8, or -1 when s is UTF-8 throughout: where an error about text in
// another encoding points.
func InvalidUTF8(s string) int {
	if utf8.ValidString(s) {
		return -1
	}
	at := 0
	for at < len(s) {
		r, size := utf8.DecodeRuneInString(s[at:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		at += size
	}
	return at
}

package tools

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
)

// sniffLen is how much of a file decides whether it is text: git looks at
// the first 8000 bytes for a NUL, and so do we.
const sniffLen = 8000

// binaryType reports whether a file whose first bytes are head is binary,
// and its MIME type. A NUL byte makes a file binary, as for git and grep;
// so does a type known not to be text whose head is not UTF-8 (a PDF has
// no NUL near its start). A file of unknown type that is not UTF-8 is
// taken as text in some legacy encoding.
func binaryType(head []byte) (mime string, binary bool) {
	m := mimetype.Detect(head)
	if bytes.IndexByte(head, 0) >= 0 {
		return m.String(), true
	}
	if isText(m) || m.Is("application/octet-stream") {
		return m.String(), false
	}
	return m.String(), !utf8.Valid(trimPartialRune(head))
}

// isText reports whether m is text/plain or descends from it (JSON, HTML,
// source code…).
func isText(m *mimetype.MIME) bool {
	for ; m != nil; m = m.Parent() {
		if m.Is("text/plain") {
			return true
		}
	}
	return false
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b, which
// a fixed-size head may have cut.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			break
		}
	}
	return b
}

// mediaHint says where to turn for a binary file a model may want to look
// at.
func mediaHint(mime string) string {
	for _, prefix := range []string{"image/", "audio/", "video/", "application/pdf"} {
		if strings.HasPrefix(mime, prefix) {
			return "; analyze_media can look at images, audio, video and PDF"
		}
	}
	return ""
}

// line is one line of a file, as lineReader gives it.
type line struct {
	// text is the line without its "\n" (a "\r" before it stays), at most
	// the reader's max bytes of it.
	text []byte
	// dropped is how many bytes of a longer line were left out.
	dropped int
	// newline reports whether the line ended with "\n"; only the last line
	// of a file may not.
	newline bool
}

// lineReader reads lines of any length in bounded memory: it keeps at most
// max bytes of each and counts the rest.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r *bufio.Reader, maxLine int) *lineReader {
	return &lineReader{r: r, max: maxLine, buf: make([]byte, 0, maxLine)}
}

// next returns the next line, or io.EOF after the last. When keep is false
// the line's text is not kept, only counted: for lines being skipped. The
// text is valid until the next call.
func (lr *lineReader) next(keep bool) (line, error) {
	lr.buf = lr.buf[:0]
	var l line
	read := 0
	for {
		chunk, err := lr.r.ReadSlice('\n')
		read += len(chunk)
		if n := len(chunk); n > 0 && chunk[n-1] == '\n' {
			chunk = chunk[:n-1]
			l.newline = true
		}
		if room := lr.max - len(lr.buf); keep && room > 0 {
			take := min(room, len(chunk))
			lr.buf = append(lr.buf, chunk[:take]...)
			l.dropped += len(chunk) - take
		} else {
			l.dropped += len(chunk)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if read == 0 {
				return line{}, io.EOF
			}
		case err != nil:
			return line{}, err
		}
		if !keep {
			l.dropped = 0
		}
		l.text = lr.buf
		return l, nil
	}
}

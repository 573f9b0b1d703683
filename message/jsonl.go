package message

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
)

// FlushInterval is how long a written record may wait in the buffer of a
// JSONLWriter before it reaches the file: records written in a burst go
// out in one write, and none waits long when the burst ends.
const FlushInterval = 20 * time.Millisecond

// bufferLimit is how many bytes of whole lines a JSONLWriter holds before
// it writes them out.
const bufferLimit = 64 << 10

// JSONLWriter writes records as JSON Lines: one record per line, each line
// written whole (the buffer goes out only at line ends, so that a reader
// or a crash never sees half a record), and every record out of the buffer
// within FlushInterval. It is a Store, safe for concurrent use.
type JSONLWriter struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	err    error // the first write error; every later call returns it
	timer  *time.Timer
	armed  bool
	closer io.Closer
}

// NewJSONLWriter returns a writer of records to w.
func NewJSONLWriter(w io.Writer) *JSONLWriter {
	jw := &JSONLWriter{w: w, buf: make([]byte, 0, bufferLimit+4096)}
	jw.timer = time.AfterFunc(time.Hour, jw.flushFromTimer)
	jw.timer.Stop()
	return jw
}

// ErrInUse says that another writer holds the records file: two runs
// appending to one file would interleave their records and lose some.
var ErrInUse = errors.New("in use: another kesoku writes to it")

// CreateFile creates (or truncates) the file at path and returns a writer
// of records to it, holding the file's lock until Close: a file another
// writer holds is refused with ErrInUse, and left as it is. Close it when
// done.
func CreateFile(path string) (*JSONLWriter, error) {
	f, err := openLocked(path, os.O_WRONLY)
	if err != nil {
		return nil, err
	}
	// Emptied only once it is ours; a device or a pipe has nothing to empty.
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	jw := NewJSONLWriter(f)
	jw.closer = f
	return jw, nil
}

// AppendFile opens the file at path for appending records, creating it if
// need be, and holds its lock until Close (see CreateFile). A torn last
// line — a record cut short by a crash or a kill — is cut off first, so
// that the new records start on a line of their own and the file stays
// valid JSON Lines; a whole record that only lacks its line end (an edited
// file) is kept and given one. Close it when done.
func AppendFile(path string) (*JSONLWriter, error) { return AppendFileChecked(path, nil) }

// AppendFileChecked is AppendFile with check run once the lock is held and
// before anything in the file changes: a command that decides from the
// file's records what to do (--resume skips what they finished) reads
// them while no other writer can add to them. An error from check is
// returned, the file left as it was.
func AppendFileChecked(path string, check func() error) (*JSONLWriter, error) {
	f, err := openLocked(path, os.O_RDWR)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := cutTornLine(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	jw := NewJSONLWriter(f)
	jw.closer = f
	return jw, nil
}

// LockFile takes the lock that the writers of CreateFile and AppendFile
// hold on the records file at path, for a program that replaces the file
// whole rather than writing to it (kesoku merge writes beside it and
// renames): records another writer added meanwhile would go to a file no
// longer under the name. A file another writer holds is refused with
// ErrInUse; a file that does not exist yet needs no lock. Close the
// result once the file is replaced.
func LockFile(path string) (io.Closer, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return io.NopCloser(nil), nil
	}
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// openLocked opens path for appending, write-only or read-write (mode),
// and takes its exclusive lock, without waiting for it. O_APPEND: every
// write goes to the end, and should anything shorten the file meanwhile,
// records still go to its end, never past it behind a hole of NULs.
func openLocked(path string, mode int) (*os.File, error) {
	f, err := os.OpenFile(path, mode|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// cutTornLine truncates f after its last newline, unless what follows it
// is a whole JSON value (ReadFile reads it as a record): that gets its
// newline instead.
func cutTornLine(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	buf := make([]byte, 4096)
	cut := int64(0) // where the last line begins
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			cut = start + int64(i) + 1
			break
		}
		end = start
	}
	if cut == size {
		return nil
	}
	if size-cut <= maxRecordLine {
		last := make([]byte, size-cut)
		if _, err := f.ReadAt(last, cut); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if last = bytes.TrimSpace(last); len(last) > 0 && json.Valid(last) {
			_, err := f.Write([]byte("\n")) // at the end: the file is opened to append
			return err
		}
	}
	return f.Truncate(cut)
}

// Write buffers one record; it reaches the file within FlushInterval.
func (w *JSONLWriter) Write(rec *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	line, err := AppendRecord(w.buf, rec)
	if err != nil {
		return err
	}
	w.buf = append(line, '\n')
	if len(w.buf) >= bufferLimit {
		return w.flushLocked()
	}
	if !w.armed {
		w.armed = true
		w.timer.Reset(FlushInterval)
	}
	return nil
}

// Append writes records and flushes them: the Store method, for callers
// that want each record on disk before they go on.
func (w *JSONLWriter) Append(_ context.Context, recs ...*Record) error {
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	return w.Flush()
}

// Flush writes out every buffered record.
func (w *JSONLWriter) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *JSONLWriter) flushFromTimer() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked() // a failure is kept in w.err for the next call
}

func (w *JSONLWriter) flushLocked() error {
	w.armed = false
	if w.err != nil {
		return w.err
	}
	if len(w.buf) == 0 {
		return nil
	}
	_, err := w.w.Write(w.buf)
	w.buf = w.buf[:0]
	if err != nil {
		w.err = err
		var pe *os.PathError
		if !errors.As(err, &pe) {
			// An error of a file names the file; one of another writer
			// says nothing of where.
			w.err = fmt.Errorf("write records: %w", err)
		}
	}
	return w.err
}

// Close flushes the records and closes the file the writer owns (the
// one of CreateFile or AppendFile).
func (w *JSONLWriter) Close() error {
	err := w.Flush()
	w.timer.Stop()
	if w.closer != nil {
		if cerr := w.closer.Close(); err == nil {
			err = cerr
		}
		w.closer = nil
	}
	return err
}

// AppendRecord appends the JSON encoding of rec to dst, without a newline.
// It writes what encoding/json would (with SetEscapeHTML(false)), field by
// field, without reflection:
// records are most of what a batch run spends its time on. Content and
// ProviderData must be valid JSON; they are compacted when they span lines.
func AppendRecord(dst []byte, rec *Record) ([]byte, error) {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, rec.ID)
	dst = append(dst, `,"session_id":`...)
	dst = appendString(dst, rec.SessionID)
	if rec.ParentID != "" {
		dst = append(dst, `,"parent_id":`...)
		dst = appendString(dst, rec.ParentID)
	}
	dst = append(dst, `,"role":`...)
	dst = appendString(dst, string(rec.Role))
	dst = append(dst, `,"type":`...)
	dst = appendString(dst, string(rec.Type))
	dst = append(dst, `,"status":`...)
	dst = appendString(dst, string(rec.Status))
	if rec.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, rec.Name)
	}
	var err error
	if len(rec.Content) > 0 {
		dst = append(dst, `,"content":`...)
		if dst, err = appendRaw(dst, rec.Content); err != nil {
			return dst, fmt.Errorf("record %s: content: %w", rec.ID, err)
		}
	}
	if rec.IsError {
		dst = append(dst, `,"is_error":true`...)
	}
	if rec.Error != nil {
		dst = append(dst, `,"error":{"kind":`...)
		dst = appendString(dst, string(rec.Error.Kind))
		dst = append(dst, `,"message":`...)
		dst = appendString(dst, rec.Error.Message)
		dst = append(dst, '}')
	}
	if rec.ArgsHash != "" {
		dst = append(dst, `,"args_hash":`...)
		dst = appendString(dst, rec.ArgsHash)
	}
	dst = append(dst, `,"created_at":"`...)
	dst = rec.CreatedAt.AppendFormat(dst, time.RFC3339Nano)
	dst = append(dst, '"')
	if rec.DurationMS != nil {
		dst = append(dst, `,"duration_ms":`...)
		dst = strconv.AppendInt(dst, *rec.DurationMS, 10)
	}
	if rec.CallID != "" {
		dst = append(dst, `,"call_id":`...)
		dst = appendString(dst, rec.CallID)
	}
	if rec.Model != "" {
		dst = append(dst, `,"model":`...)
		dst = appendString(dst, rec.Model)
	}
	if len(rec.ProviderData) > 0 {
		dst = append(dst, `,"provider_data":`...)
		if dst, err = appendRaw(dst, rec.ProviderData); err != nil {
			return dst, fmt.Errorf("record %s: provider_data: %w", rec.ID, err)
		}
	}
	if t := rec.Truncated; t != nil {
		dst = append(dst, `,"truncated":{"bytes":`...)
		dst = strconv.AppendInt(dst, t.Bytes, 10)
		dst = append(dst, `,"saved_to":`...)
		dst = appendString(dst, t.SavedTo)
		dst = append(dst, '}')
	}
	if rec.ModelCallID != "" {
		dst = append(dst, `,"model_call_id":`...)
		dst = appendString(dst, rec.ModelCallID)
	}
	if rec.Cut != "" {
		dst = append(dst, `,"cut":`...)
		dst = appendString(dst, rec.Cut)
	}
	if u := rec.Usage; u != nil {
		dst = append(dst, `,"usage":{"input_tokens":`...)
		dst = strconv.AppendInt(dst, u.InputTokens, 10)
		dst = append(dst, `,"output_tokens":`...)
		dst = strconv.AppendInt(dst, u.OutputTokens, 10)
		if u.CacheReadTokens != 0 {
			dst = append(dst, `,"cache_read_tokens":`...)
			dst = strconv.AppendInt(dst, u.CacheReadTokens, 10)
		}
		if u.CacheWriteTokens != 0 {
			dst = append(dst, `,"cache_write_tokens":`...)
			dst = strconv.AppendInt(dst, u.CacheWriteTokens, 10)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// appendRaw appends a JSON value that must stay on one line. A small
// scalar is checked by the common cases only; anything else is validated,
// and compacted when it holds line breaks (which valid JSON has only
// between tokens).
func appendRaw(dst []byte, raw json.RawMessage) ([]byte, error) {
	if isSimpleNumber(raw) {
		return append(dst, raw...), nil
	}
	if !json.Valid(raw) {
		return dst, errors.New("not valid JSON")
	}
	if bytes.IndexByte(raw, '\n') < 0 && bytes.IndexByte(raw, '\r') < 0 {
		return append(dst, raw...), nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return dst, err
	}
	return append(dst, b.Bytes()...), nil
}

// isSimpleNumber reports whether b is an integer without sign tricks: the
// content of most calls, worth the shortcut past json.Valid.
func isSimpleNumber(b []byte) bool {
	if len(b) == 0 || len(b) > 19 {
		return false
	}
	if b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// safe marks the ASCII bytes written as they are in a string. Unlike
// encoding/json's default, <, > and & are not escaped for HTML: records
// are read by people, jq and databases, and "<stdin>" should read so.
var safe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as encoding/json does
// with HTML escaping off: as records write their strings, for a caller
// that encodes a string of its own (a tool's result) the same way.
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

// appendString appends s as a JSON string exactly as encoding/json does
// with HTML escaping off.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

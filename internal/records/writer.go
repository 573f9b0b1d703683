package records

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/kesoku/kesoku/message"
)

// FlushInterval is how long a written record may wait in the buffer of a
// Writer before it reaches the file: records written in a burst go
// out in one write, and none waits long when the burst ends.
const FlushInterval = 20 * time.Millisecond

// bufferLimit is how many bytes of whole lines a Writer holds before
// it writes them out.
const bufferLimit = 64 << 10

// Writer writes records as JSON Lines: one record per line, each line
// written whole (the buffer goes out only at line ends, so that a reader
// or a crash never sees half a record), and every record out of the buffer
// within FlushInterval. It is a Store, safe for concurrent use.
type Writer struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	err    error // the first write error; every later call returns it
	timer  *time.Timer
	armed  bool
	closer io.Closer
}

// NewWriter returns a writer of records to w.
func NewWriter(w io.Writer) *Writer {
	jw := &Writer{w: w, buf: make([]byte, 0, bufferLimit+4096)}
	jw.timer = time.AfterFunc(time.Hour, jw.flushFromTimer)
	jw.timer.Stop()
	return jw
}

// Write buffers one record; it reaches the file within FlushInterval.
func (w *Writer) Write(rec *message.Record) error {
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
func (w *Writer) Append(_ context.Context, recs ...*message.Record) error {
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	return w.Flush()
}

// Flush writes out every buffered record.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

func (w *Writer) flushFromTimer() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flushLocked() // a failure is kept in w.err for the next call
}

func (w *Writer) flushLocked() error {
	w.armed = false
	if w.err != nil {
		return w.err
	}
	if len(w.buf) == 0 {
		return nil
	}
	n, err := w.w.Write(w.buf)
	if err != nil && n > 0 && n < len(w.buf) {
		w.cutPartialLine(w.buf[:n])
	}
	w.buf = w.buf[:0]
	if err != nil {
		w.err = err
		var pe *os.PathError
		if !errors.As(err, &pe) {
			// An error of a file names the file; one of another writer
			// says nothing of where.
			w.err = fmt.Errorf("write records: %w", err)
		}
		if errors.Is(err, syscall.ENOSPC) {
			w.err = &DiskFullError{Err: w.err}
		}
	}
	return w.err
}

// DiskFullError says the records could not be written because the disk
// is full; the file holds the whole records written before.
type DiskFullError struct{ Err error }

func (e *DiskFullError) Error() string {
	return e.Err.Error() + " (the disk is full: the file keeps the whole records written before)"
}

func (e *DiskFullError) Unwrap() error { return e.Err }

// cutPartialLine takes off the end of the file the part of a line that a
// write cut short (a full disk) wrote: written is what went out of the
// buffer, whole lines and then the part. A records file holds whole lines
// only; a file that cannot be cut (a pipe) is left as it is.
func (w *Writer) cutPartialLine(written []byte) {
	f, ok := w.w.(interface {
		Stat() (fs.FileInfo, error)
		Truncate(int64) error
	})
	if !ok {
		return
	}
	part := int64(len(written) - (bytes.LastIndexByte(written, '\n') + 1))
	if part == 0 {
		return
	}
	// The file is locked, and written at its end (O_APPEND): the part is
	// its last bytes.
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() >= part {
		f.Truncate(st.Size() - part)
	}
}

// Close flushes the records and closes the file the writer owns (the
// one of Create or Append).
func (w *Writer) Close() error {
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

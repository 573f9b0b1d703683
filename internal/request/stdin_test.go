package request

import (
	"context"
	"errors"
	"io"
	"testing"
)

// TestInterruptibleReaderEndsAWaitingRead: a pipe that never gets data
// must not hold the reader once the context is done, and every later read
// fails alike.
func TestInterruptibleReaderEndsAWaitingRead(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	r := NewInterruptibleReader(ctx, pr)

	go pw.Write([]byte("abc"))
	buf := make([]byte, 8)
	n, err := r.Read(buf)
	if err != nil || string(buf[:n]) != "abc" {
		t.Fatalf("Read = %q, %v; want \"abc\"", buf[:n], err)
	}

	done := make(chan error, 1)
	go func() {
		_, err := r.Read(buf) // nothing comes: only the cancel ends it
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Read waiting on an idle pipe after cancel: %v, want context.Canceled", err)
	}
	go pw.Write([]byte("late"))
	if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
		t.Errorf("Read after the interrupt: %v, want context.Canceled", err)
	}
}

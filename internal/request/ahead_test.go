package request

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadAheadAgrees reads the same files on one goroutine and with the
// parsing spread over several: the same requests, in the same order, at
// the same positions, with the same errors, hashes and sessions.
func TestReadAheadAgrees(t *testing.T) {
	t.Parallel()
	var jsonl strings.Builder
	for i := range 3000 {
		switch {
		case i%97 == 0:
			jsonl.WriteString("\n   \n") // blank lines count
		case i%89 == 0:
			jsonl.WriteString(`{"name": "x", "args": [1]}` + "\n")
		case i%83 == 0:
			jsonl.WriteString("not json\n")
		case i == 1500:
			// Parsed as it is read, between batches.
			fmt.Fprintf(&jsonl, `{"id": "long", "name": "echo", "args": {"s": %q}}`+"\n", strings.Repeat("x", ownLine+10))
		}
		fmt.Fprintf(&jsonl, `  {"id": "call_%d", "name": "calculate_sum", "args": {"a": %d, "b": 2}}`+"\n", i, i)
	}
	jsonl.WriteString(`{"name": "last", "args": {}}`) // no line end
	var yaml strings.Builder
	for doc := range 3 {
		if doc > 0 {
			yaml.WriteString("---\n")
		}
		fmt.Fprintf(&yaml, "session_id: s%d\nrequests:\n", doc)
		for i := range 700 {
			fmt.Fprintf(&yaml, "  - {id: d%d_%d, name: calculate_sum, args: {a: %d}}\n", doc, i, i)
		}
	}
	for _, tt := range []struct{ name, content string }{{"r.jsonl", jsonl.String()}, {"r.yaml", yaml.String()}} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), tt.name)
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			read := func(stream func(*File) func(func(*Request) bool)) []Request {
				f, err := Open(context.Background(), path, "", nil)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				var out []Request
				for r := range stream(f) {
					if r.Err != nil {
						r.Err = fmt.Errorf("%s", r.Err) // compared as text
					}
					out = append(out, *r)
				}
				if f.Err() != nil {
					t.Fatal(f.Err())
				}
				return out
			}
			one := read(func(f *File) func(func(*Request) bool) { return f.streamOne })
			for _, n := range []int{2, 3} {
				ahead := read(func(f *File) func(func(*Request) bool) {
					return func(yield func(*Request) bool) { f.streamAhead(yield, n) }
				})
				more := 0
				if len(ahead) > 0 && ahead[len(ahead)-1].More {
					t.Errorf("%d parsers: the last request says another follows", n)
				}
				for i := range ahead {
					if ahead[i].ArgsHash == "" && ahead[i].Err == nil && !ahead[i].other {
						t.Fatalf("%d parsers: request %d has no args hash", n, i+1)
					}
					if ahead[i].More {
						more++
					}
					// One goroutine leaves the hash to the run, and says of
					// no request that the next is at hand.
					ahead[i].ArgsHash, ahead[i].More = "", false
				}
				if more < len(ahead)/2 {
					t.Errorf("%d parsers: %d of %d requests have the next at hand", n, more, len(ahead))
				}
				if diff := cmp.Diff(one, ahead, cmp.AllowUnexported(Request{}), cmp.Comparer(func(a, b error) bool { return fmt.Sprint(a) == fmt.Sprint(b) })); diff != "" {
					t.Errorf("%d parsers (-one +ahead):\n%s", n, diff)
				}
			}
			if len(one) < 2000 {
				t.Errorf("%d requests read", len(one))
			}
		})
	}
}

// TestReadAheadDoesNotWaitForMore writes requests into a pipe one at a
// time, each only once the one before was read: reading ahead must hand
// over what came without waiting for a batch to fill. If it waited, the
// test would block, and the test binary's -timeout report it with every
// goroutine's stack (no clock of its own).
func TestReadAheadDoesNotWaitForMore(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(`{"name": "a"}` + "\n"))
	f, err := Open(context.Background(), "-", FormatJSONL, pr)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	f.streamAhead(func(r *Request) bool {
		n++
		if r.More {
			t.Errorf("request %d: More is set, but the next is not written yet", n)
		}
		if want := fmt.Sprint("r", n); n > 1 && r.Name != want {
			t.Errorf("request %d: name %q, want %q", n, r.Name, want)
		}
		if n == 5 {
			return false
		}
		go fmt.Fprintf(pw, `{"name": "r%d"}`+"\n", n+1)
		return true
	}, 2)
	if n != 5 {
		t.Errorf("%d requests read, want 5", n)
	}
}

// TestReadAheadStops stops taking requests early: the reading and the
// parsers end, and the file closes.
func TestReadAheadStops(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "r.jsonl")
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, `{"id": "c%d", "name": "n"}`+"\n", i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(context.Background(), path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	f.streamAhead(func(r *Request) bool {
		if r.ID != fmt.Sprint("c", n) {
			t.Fatalf("request %d: id %q", n, r.ID)
		}
		n++
		return n < 1000
	}, 2)
	if err := f.Close(); err != nil {
		t.Error(err)
	}
	if n != 1000 {
		t.Errorf("%d requests taken, want 1000", n)
	}
}

// TestReadAheadBoundsBytes reads long lines with a small bound on what
// is read ahead: the reader is let run as far ahead as it goes before the
// first request is taken (until it waits for room, or holds more than the
// bound), and the bytes it held are never more than the bound.
func TestReadAheadBoundsBytes(t *testing.T) {
	t.Parallel()
	const limit, lines = 160 << 10, 60
	var b strings.Builder
	for i := range lines {
		if i%10 == 3 {
			fmt.Fprintf(&b, `{"id": "short%d", "name": "n"}`+"\n", i) // short lines between
		}
		fmt.Fprintf(&b, `{"id": "c%d", "name": "n", "args": {"s": %q}}`+"\n", i, strings.Repeat("x", ownLine+i*1000))
	}
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(context.Background(), path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.aheadLimit = limit
	var most int64
	far := make(chan struct{})
	var once sync.Once
	f.aheadHook = func(held int64, waits bool) {
		most = max(most, held) // the reading goroutine's alone
		if waits || held > limit {
			once.Do(func() { close(far) })
		}
	}
	n := 0
	f.streamAhead(func(r *Request) bool {
		if n == 0 {
			<-far
		}
		if r.Err != nil {
			t.Fatalf("request %d: %v", n, r.Err)
		}
		n++
		return true
	}, 2)
	if n != lines+lines/10 {
		t.Errorf("%d requests read, want %d", n, lines+lines/10)
	}
	<-far
	if most > limit {
		t.Errorf("%d bytes held ahead, more than the bound of %d", most, limit)
	}
}

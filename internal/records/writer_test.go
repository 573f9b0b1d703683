package records

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/message"
)

func sampleRecords() []*message.Record {
	ms := int64(12)
	at := time.Date(2026, 11, 30, 2, 3, 4, 567_000_000, time.UTC)
	return []*message.Record{
		{ID: "0197-a", SessionID: "s", ParentID: "call_1", Role: message.RoleTool, Type: message.TypeToolResult, Status: message.StatusResponded,
			Name: "calculate_sum", Content: json.RawMessage(`3`), CreatedAt: at, DurationMS: &ms},
		{ID: "0197-b", SessionID: "s", ParentID: "call_2", Role: message.RoleTool, Type: message.TypeToolResult, Status: message.StatusAborted,
			Name: "sleep", IsError: true, Error: &message.ErrorInfo{Kind: message.KindAborted, Message: "interrupted <before> it \"started\"\n\t&\x01 \u2028 é \xff"},
			CreatedAt: at, DurationMS: &ms},
		{ID: "0197-c", SessionID: "s", Role: message.RoleAssistant, Type: message.TypeToolCall, Status: message.StatusResponded, Name: "read_file",
			Content: json.RawMessage(`{"path":"a.txt","n":[1,2.5,null,true]}`), CreatedAt: at.Add(time.Nanosecond),
			CallID: "toolu_01", Model: "claude-x", ProviderData: json.RawMessage(`{"thoughtSignature":"abc"}`)},
		{ID: "0197-d", SessionID: "", Role: message.RoleTool, Type: message.TypeToolResult, Status: message.StatusResponded, Name: "big",
			Content: json.RawMessage(`"aaa\n[cut]\nzzz"`), CreatedAt: at, Truncated: &message.Truncation{Bytes: 1 << 20, SavedTo: ".kesoku/outputs/x.txt"}},
		{ID: "0197-e", Role: message.RoleUser, Type: message.TypeText, Content: json.RawMessage(`-42`), CreatedAt: at},
		{ID: "0197-f", SessionID: "s", Role: message.RoleAssistant, Type: message.TypeToolCall, Status: message.StatusResponded, Name: "write_file",
			Content: json.RawMessage(`{}`), CreatedAt: at, CallID: "call_1", ModelCallID: "call.1", Model: "claude-x", Cut: "max_tokens"},
		{ID: "0197-g", SessionID: "s", Role: message.RoleAssistant, Type: message.TypeText, Status: message.StatusResponded, Content: json.RawMessage(`"hi"`),
			CreatedAt: at, Model: "claude-x", Usage: &message.Usage{InputTokens: 1200, OutputTokens: 30, CacheReadTokens: 1000, CacheWriteTokens: 150}},
		{ID: "0197-h", SessionID: "s", Role: message.RoleAssistant, Type: message.TypeText, Status: message.StatusResponded, Content: json.RawMessage(`"hi"`),
			CreatedAt: at, Model: "gemini-x", Usage: &message.Usage{InputTokens: 20, OutputTokens: 9}},
		{ID: "0197-i", SessionID: "s", Role: message.RoleAssistant, Type: message.TypeToolCall, Status: message.StatusResponded, Content: json.RawMessage(`{}`),
			CreatedAt: at, Model: "gpt-x", Usage: &message.Usage{}},
	}
}

func TestAppendRecordMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, rec := range sampleRecords() {
		t.Run(rec.ID, func(t *testing.T) {
			t.Parallel()
			want, err := marshalNoHTML(rec)
			if err != nil {
				t.Fatal(err)
			}
			got, err := AppendRecord(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("encoding mismatch (-encoding/json +AppendRecord):\n%s", diff)
			}
		})
	}
}

// marshalNoHTML is json.Marshal without HTML escaping, as records are
// written.
func marshalNoHTML(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), err
}

func TestAppendRecordKeepsOneLine(t *testing.T) {
	t.Parallel()
	rec := &message.Record{ID: "x", Content: json.RawMessage("{\n  \"a\": [1,\r\n 2]\n}"), ProviderData: json.RawMessage("[\n1]")}
	got, err := AppendRecord(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(got, "\r\n") || !json.Valid(got) {
		t.Errorf("record spans lines or is not JSON: %s", got)
	}
	if _, err := AppendRecord(nil, &message.Record{ID: "y", Content: json.RawMessage(`{"a":`)}); err == nil {
		t.Errorf("invalid content was written")
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "<a&b>", "\x00\x1f\x7f", "é\u2028\u2029", "\xff\xfe", `"\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := marshalNoHTML(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("appendString(%q) = %s, encoding/json %s", s, got, want)
		}
	})
}

func TestWriterAndReadFileRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	want := sampleRecords()
	for _, rec := range want {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []*message.Record
	if err := ReadFile(path, func(r *message.Record) error { got = append(got, r); return nil }); err != nil {
		t.Fatal(err)
	}
	// Invalid UTF-8 is written as U+FFFD, as encoding/json writes it.
	want[1].Error.Message = strings.ToValidUTF8(want[1].Error.Message, "\uFFFD")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", diff)
	}
}

func TestReadToleratesATornLastLine(t *testing.T) {
	t.Parallel()
	whole, _ := AppendRecord(nil, sampleRecords()[0])
	tests := []struct {
		name    string
		data    string
		records int
		err     string
	}{
		{"torn last line", string(whole) + "\n" + string(whole[:20]), 1, ""},
		{"last line without newline but whole", string(whole) + "\n" + string(whole), 2, ""},
		{"blank lines", "\n" + string(whole) + "\n\n", 1, ""},
		{"bad line in the middle", string(whole) + "\n{oops\n" + string(whole) + "\n", 0, "f.jsonl:2: not a record"},
		{"empty", "", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := 0
			err := Read(strings.NewReader(tt.data), "f.jsonl", func(*message.Record) error { n++; return nil })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || n != tt.records {
				t.Errorf("got %d records, error %v; want %d", n, err, tt.records)
			}
		})
	}
}

func TestReadLongLine(t *testing.T) {
	t.Parallel()
	rec := sampleRecords()[0]
	rec.Content, _ = json.Marshal(strings.Repeat("x", 300<<10)) // longer than the reader's buffer
	line, _ := AppendRecord(nil, rec)
	var got *message.Record
	if err := Read(bytes.NewReader(append(line, '\n')), "f", func(r *message.Record) error { got = r; return nil }); err != nil {
		t.Fatal(err)
	}
	if got == nil || len(got.Content) != len(rec.Content) {
		t.Errorf("long record not read whole")
	}
}

func TestReadStopsOnCallbackError(t *testing.T) {
	t.Parallel()
	line, _ := AppendRecord(nil, sampleRecords()[0])
	stop := errors.New("stop")
	err := Read(bytes.NewReader(bytes.Repeat(append(line, '\n'), 3)), "f", func(*message.Record) error { return stop })
	if !errors.Is(err, stop) {
		t.Errorf("error = %v, want %v", err, stop)
	}
}

func TestAppendFileCutsATornLine(t *testing.T) {
	t.Parallel()
	recs := sampleRecords()
	line, _ := AppendRecord(nil, recs[0])
	tests := []struct {
		name, before string
		keep         int // records of before that survive
	}{
		{"torn last line", string(line) + "\n" + string(line[:30]), 1},
		{"whole lines", string(line) + "\n", 1},
		{"only a torn line", string(line[:10]), 0},
		{"empty", "", 0},
		{"torn line longer than a read", string(line) + "\n" + strings.Repeat("x", 10000), 1},
		{"a whole record without its line end", string(line) + "\n" + string(line), 2},
		{"only a whole record without its line end", string(line), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "out.jsonl")
			if err := os.WriteFile(path, []byte(tt.before), 0o644); err != nil {
				t.Fatal(err)
			}
			w, err := Append(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.Append(context.Background(), recs[1]); err != nil {
				t.Fatal(err)
			}
			w.Close()
			var ids []string
			if err := ReadFile(path, func(r *message.Record) error { ids = append(ids, r.ID); return nil }); err != nil {
				t.Fatal(err)
			}
			want := append(slicesRepeat(recs[0].ID, tt.keep), recs[1].ID)
			if diff := cmp.Diff(want, ids); diff != "" {
				t.Errorf("records mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func slicesRepeat(s string, n int) []string {
	out := []string{}
	for range n {
		out = append(out, s)
	}
	return out
}

// lockedBuffer is a bytes.Buffer the test can read while the writer's
// timer writes to it.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes []int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, len(p))
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestWriterFlushesWithinTheInterval(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	w := NewWriter(&out)
	defer w.Close()
	if err := w.Write(sampleRecords()[0]); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for out.String() == "" {
		if time.Now().After(deadline) {
			t.Fatalf("a buffered record did not reach the writer within 5s (FlushInterval %v)", FlushInterval)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestWriterWritesWholeLinesConcurrently(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	w := NewWriter(&out)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				rec := *sampleRecords()[1]
				rec.ID = fmt.Sprintf("%d-%d", g, i)
				if err := w.Write(&rec); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data := out.String()
	if !strings.HasSuffix(data, "\n") {
		t.Fatalf("output does not end with a newline")
	}
	lines := strings.Split(strings.TrimSuffix(data, "\n"), "\n")
	if len(lines) != 4000 {
		t.Fatalf("got %d lines, want 4000", len(lines))
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Fatalf("line is not one whole record: %.80s", l)
		}
	}
	// Each write to the file ends at a line end.
	off := 0
	for _, n := range out.writes {
		off += n
		if data[off-1] != '\n' {
			t.Fatalf("a write ended inside a line at byte %d", off)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterReportsWriteErrors(t *testing.T) {
	t.Parallel()
	w := NewWriter(failingWriter{})
	w.Write(sampleRecords()[0])
	if err := w.Flush(); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Flush error = %v, want disk full", err)
	}
	if err := w.Write(sampleRecords()[0]); err == nil {
		t.Errorf("Write after a failed flush succeeded")
	}
}

func BenchmarkAppendRecord(b *testing.B) {
	rec := sampleRecords()[0]
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf, _ = AppendRecord(buf[:0], rec)
	}
}

func BenchmarkEncodingJSONRecord(b *testing.B) {
	rec := sampleRecords()[0]
	b.ReportAllocs()
	for b.Loop() {
		json.Marshal(rec)
	}
}

// TestFilesAreOpenedForAppending: should anything shorten the file while
// kesoku writes to it (a tool, another program), the next records still
// go to its end, never past it behind a hole of NULs that breaks every
// later reading.
func TestFilesAreOpenedForAppending(t *testing.T) {
	t.Parallel()
	recs := sampleRecords()
	for name, open := range map[string]func(string) (*Writer, error){"Create": Create, "Append": Append} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "t.jsonl")
			w, err := open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.Append(context.Background(), recs[0], recs[1]); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(path, 0); err != nil {
				t.Fatal(err)
			}
			if err := w.Append(context.Background(), recs[2]); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.IndexByte(data, 0) >= 0 {
				t.Fatalf("the file holds NULs: %q", data)
			}
			var ids []string
			if err := ReadFile(path, func(r *message.Record) error { ids = append(ids, r.ID); return nil }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{recs[2].ID}, ids); diff != "" {
				t.Errorf("records mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFilesAreLocked checks that a records file has one writer at a time:
// a second CreateFile or AppendFile of the same file is refused, and the
// refused one leaves the file as it was.
func TestFilesAreLocked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.jsonl")
	first, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Append(context.Background(), sampleRecords()[0]); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func(string) (*Writer, error){"Create": Create, "Append": Append} {
		if w, err := open(path); !errors.Is(err, ErrInUse) {
			t.Errorf("%s of a file in use: %v, want ErrInUse", name, err)
			if w != nil {
				w.Close()
			}
		} else if !strings.Contains(err.Error(), path+": in use") {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
	if err := first.Write(sampleRecords()[0]); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n := bytes.Count(data, []byte("\n")); n != 2 {
		t.Errorf("the file has %d lines, want the first writer's 2:\n%s", n, data)
	}
	// Once closed, the file is free.
	w, err := Append(path)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	w.Close()
}

// TestWriteErrorsNameTheFileOnce checks the message of a failed write: the
// file's own error, not wrapped again.
func TestWriteErrorsNameTheFileOnce(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	w, err := Create("/dev/full")
	if err != nil {
		t.Fatal(err)
	}
	w.Write(sampleRecords()[0])
	err = w.Close()
	if err == nil || !strings.HasPrefix(err.Error(), "write /dev/full: no space left on device (the disk is full") || strings.Count(err.Error(), "/dev/full") != 1 {
		t.Errorf("error = %v, want the file's own error once", err)
	}
}

// TestReadFileOfADirectory says what is wrong once ("read adir: read adir:
// is a directory" said it twice).
func TestReadFileOfADirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	err := ReadFile(dir, func(*message.Record) error { return nil })
	if err == nil || err.Error() != "read "+dir+": is a directory" {
		t.Errorf("error = %v, want %q", err, "read "+dir+": is a directory")
	}
}

// TestReplace checks the replacing of a records file whole: refused
// while a writer holds the file, holding off writers while it writes, the
// old file untouched when the writing fails, and a file not there yet
// made.
func TestReplace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	write := func(text string) func(io.Writer) error {
		return func(w io.Writer) error {
			for name, open := range map[string]func(string) (*Writer, error){"Create": Create, "Append": Append} {
				if w, err := open(path); !errors.Is(err, ErrInUse) {
					t.Errorf("%s of a file being replaced: %v, want ErrInUse", name, err)
					if w != nil {
						w.Close()
					}
				}
			}
			_, err := io.WriteString(w, text)
			return err
		}
	}
	if err := Replace(path, write("one\n")); err != nil {
		t.Fatalf("Replace of a missing file: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n" {
		t.Errorf("after Replace: %q", b)
	}

	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, write("two\n")); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), path+": in use") {
		t.Errorf("Replace of a file in use: %v, want ErrInUse naming the file", err)
	}
	w.Write(sampleRecords()[0])
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)

	failed := errors.New("disk full")
	if err := Replace(path, func(w io.Writer) error { io.WriteString(w, "half"); return failed }); !errors.Is(err, failed) {
		t.Errorf("Replace whose writing failed: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != string(before) {
		t.Errorf("a failed Replace changed the file: %q", b)
	}
	if err := Replace(path, write("three\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "three\n" {
		t.Errorf("after Replace: %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("files left beside: %v", left)
	}
}

// TestResumeReadsUnderTheLock: check runs with the lock held, so no other
// writer can add records between what a command reads and what it
// appends; and a check that refuses leaves the file as it was, its torn
// last line too.
func TestResumeReadsUnderTheLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "out.jsonl")
	torn := "{\"id\":\"a\"}\n{\"id\":\"b\",\"na"
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("another run's records")
	_, err := Resume(path, func(*Finished) error {
		if w, err := Append(path); !errors.Is(err, ErrInUse) {
			if w != nil {
				w.Close()
			}
			t.Errorf("another writer during check: %v, want ErrInUse", err)
		}
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("Resume = %v, want the check's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != torn {
		t.Errorf("a refused check changed the file: %q", b)
	}
	// Refused, it holds the lock no more.
	w, err := Resume(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if b, _ := os.ReadFile(path); string(b) != "{\"id\":\"a\"}\n" {
		t.Errorf("after a check that passed: %q, want the torn line cut", b)
	}

	// A line that is no record is an error of reading, the file left.
	if err := os.WriteFile(path, []byte("{oops\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Resume(path, nil)
	if re, ok := errors.AsType[*ReadError](err); !ok || !strings.Contains(re.Error(), path+":1: not a record") {
		t.Errorf("Resume of a file that is no records file: %v, want a *ReadError naming its line", err)
	}
}

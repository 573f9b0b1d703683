package app

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/junit"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// countingProgress is a Progress that counts what it is told.
type countingProgress struct {
	records, skipped int
	finished         bool
}

func (p *countingProgress) Record(*message.Record)       { p.records++ }
func (p *countingProgress) Skip()                        { p.skipped++ }
func (p *countingProgress) Finish()                      { p.finished = true }
func (p *countingProgress) Around(w io.Writer) io.Writer { return w }

func toolResult(id string, failed bool) *message.Record {
	rec := &message.Record{ID: message.NewID(), Type: message.TypeToolResult, Role: message.RoleTool, Name: "sum", CallID: id, Status: message.StatusResponded}
	if failed {
		rec.IsError = true
		rec.Error = &message.ErrorInfo{Kind: message.KindToolError, Message: "no"}
	}
	return rec
}

// TestSinkFansOut: each record written goes to the records, the progress
// and the report (those that are testcases), and Close writes the report.
func TestSinkFansOut(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out bytes.Buffer
	prog := &countingProgress{}
	report := filepath.Join(dir, "report.xml")
	s, err := OpenSink(SinkOptions{Records: records.NewWriter(&out), JUnit: report, Suite: "test", Progress: prog,
		Case: func(rec *message.Record) *junit.Case {
			if rec.Type != message.TypeToolResult {
				return nil
			}
			return junit.RecordCase(rec, "test")
		}})
	if err != nil {
		t.Fatal(err)
	}
	note := &message.Record{ID: message.NewID(), Type: message.TypeText, Role: message.RoleUser}
	if err := s.Write(toolResult("a", false), note, toolResult("b", true)); err != nil {
		t.Fatal(err)
	}
	s.Skip()
	if err := s.Close(nil); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Errorf("%d record lines, want 3:\n%s", n, out.String())
	}
	if prog.records != 3 || prog.skipped != 1 || !prog.finished {
		t.Errorf("progress told %+v, want 3 records, 1 skipped, finished", prog)
	}
	xml, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(xml), `tests="2" failures="1"`) {
		t.Errorf("report holds no 2 testcases, 1 failing:\n%s", xml)
	}
}

// TestSinkLines: the lines of records files written through Lines reach
// the output as they are, and the report has their testcases.
func TestSinkLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	report := filepath.Join(dir, "report.xml")
	s, err := OpenSink(SinkOptions{JUnit: report, Suite: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var lines bytes.Buffer
	w := records.NewWriter(&lines)
	w.Write(toolResult("a", false))
	w.Write(toolResult("b", false))
	w.Close()
	var out bytes.Buffer
	lw, wait := s.Lines(&out, "merged.jsonl", func(rec *message.Record) *junit.Case {
		return junit.RecordCase(rec, "merged.jsonl")
	}, nil)
	if _, err := lw.Write(lines.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(nil); err != nil {
		t.Fatal(err)
	}
	if out.String() != lines.String() {
		t.Errorf("lines written %q, want %q", out.String(), lines.String())
	}
	xml, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(xml), `tests="2" failures="0"`) {
		t.Errorf("report holds no 2 passing testcases:\n%s", xml)
	}
}

// TestSinkAbandon: a sink abandoned writes no report.
func TestSinkAbandon(t *testing.T) {
	t.Parallel()
	report := filepath.Join(t.TempDir(), "report.xml")
	s, err := OpenSink(SinkOptions{Records: records.NewWriter(io.Discard), JUnit: report, Suite: "test"})
	if err != nil {
		t.Fatal(err)
	}
	s.Abandon()
	if _, err := os.Stat(report); !os.IsNotExist(err) {
		t.Errorf("abandoned report written: %v", err)
	}
}

// failingWriter takes nothing: a disk that is full.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestSinkReportSaysTheRecordsFailed: when the records could not all be
// written, the report has a failed testcase that says so beside those of
// what ran, and the command fails with the records' error.
func TestSinkReportSaysTheRecordsFailed(t *testing.T) {
	t.Parallel()
	report := filepath.Join(t.TempDir(), "report.xml")
	s, err := OpenSink(SinkOptions{Records: records.NewWriter(failingWriter{}), JUnit: report, Suite: "test",
		Case: func(rec *message.Record) *junit.Case { return junit.RecordCase(rec, "test") }})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Write(toolResult("a", false)); err != nil {
		t.Fatal(err) // buffered: the failure comes with the flush
	}
	if err := s.Close(nil); err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("Close: %v, want the records' error", err)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.Contains(got, `tests="2" failures="1"`) || !strings.Contains(got, `<testcase name="records" classname="kesoku">`) ||
		!strings.Contains(got, `message="the records could not all be written: write records: no space left on device"`) {
		t.Errorf("report (%d bytes):\n%s\nwant the call's testcase and a failed one of the records", len(got), got)
	}
}

// TestSinkReportSaysARecordFailed: a record that could not be written
// (its content no JSON) is in the report's records testcase too, though
// the file itself took every line it was given.
func TestSinkReportSaysARecordFailed(t *testing.T) {
	t.Parallel()
	report := filepath.Join(t.TempDir(), "report.xml")
	var out bytes.Buffer
	s, err := OpenSink(SinkOptions{Records: records.NewWriter(&out), JUnit: report, Suite: "test"})
	if err != nil {
		t.Fatal(err)
	}
	bad := toolResult("a", false)
	bad.Content = []byte("{not json")
	bad.ID = "bad-record"
	if err := s.Write(bad); err == nil {
		t.Fatal("a record with content that is no JSON was written")
	}
	s.Close(nil)
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); !strings.Contains(got, `<testcase name="records" classname="kesoku">`) || !strings.Contains(got, "content") {
		t.Errorf("report:\n%s\nwant a failed testcase of the records", got)
	}
}

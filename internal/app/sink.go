package app

import (
	"cmp"
	"context"
	"io"

	"github.com/kesoku/kesoku/internal/junit"
	"github.com/kesoku/kesoku/internal/records"
	"github.com/kesoku/kesoku/message"
)

// Progress is how a sink's records are shown as they come: the terminal's
// side, which cmd draws (a bar on a terminal, a line in a log, nothing
// with -q). The sink only tells it; it never waits for the terminal.
type Progress interface {
	// Record counts a record written, Skip a request an earlier run
	// finished (it gets no record).
	Record(*message.Record)
	Skip()
	// Finish stops showing the progress, so that what closes the command
	// starts on a clean line.
	Finish()
	// Around returns standard output for records: written around what
	// the progress draws when both go to one terminal.
	Around(stdout io.Writer) io.Writer
}

// RecordsOut is where a sink's records go: a new file, one appended to,
// the end of a resumed one, or standard output.
type RecordsOut interface {
	message.Store
	Write(*message.Record) error
	Close() error
}

// OpenRecords opens the records' destination: standard output for path ""
// or "-", else the file, new or (with add) appended to. A resumed file is
// opened by records.Resume, under the lock it reads it with.
func OpenRecords(path string, stdout io.Writer, add bool) (RecordsOut, error) {
	switch {
	case path == "" || path == "-":
		return records.NewWriter(stdout), nil
	case add:
		return records.Append(path)
	}
	return records.Create(path)
}

// SinkOptions say where a sink's records go.
type SinkOptions struct {
	// Records is where the records go; nil for a command that writes none
	// of its own (diff), or writes them as lines (merge: Lines).
	Records RecordsOut
	// JUnit is the path of the JUnit report, "" for none; Suite names its
	// testsuite, and Case makes the testcase of a record (nil for a
	// record that is none).
	JUnit, Suite string
	Case         func(*message.Record) *junit.Case
	// Progress is told of each record, nil for no progress.
	Progress Progress
}

// Sink is where a command's records go as they are made: the records file
// or standard output, the progress, the JUnit report. run, merge, diff,
// mcp serve and batch collect hand their records to one. An eval hands it
// each run's block at once (Write, and Flush when it wants the block on
// disk before it goes on), with Case making a testcase of each verdict
// and a Progress that counts verdicts; a resumed eval's file is Records,
// and End compacts it and makes the report again of every verdict in it.
// The command's report is what says how it went.
type Sink struct {
	out      RecordsOut
	report   *junit.Report
	toCase   func(*message.Record) *junit.Case
	progress Progress
	// outErr is the first error of the records' destination.
	outErr error
}

// ReportError is an error of the JUnit report: its file could not be
// created or written.
type ReportError struct{ Err error }

func (e *ReportError) Error() string { return e.Err.Error() }
func (e *ReportError) Unwrap() error { return e.Err }

// OpenSink starts the JUnit report of o, if any, and returns the sink.
// Close it once.
func OpenSink(o SinkOptions) (*Sink, error) {
	s := &Sink{out: o.Records, toCase: o.Case, progress: o.Progress}
	if o.JUnit != "" {
		r, err := junit.Create(o.JUnit, o.Suite)
		if err != nil {
			return nil, &ReportError{err}
		}
		s.report = r
	}
	return s, nil
}

// Write writes recs, in order, and tells the progress and the report of
// each.
func (s *Sink) Write(recs ...*message.Record) error {
	for _, rec := range recs {
		if s.out != nil {
			if err := s.out.Write(rec); err != nil {
				s.outErr = cmp.Or(s.outErr, err)
				return err
			}
		}
		if s.progress != nil {
			s.progress.Record(rec)
		}
		if err := s.addCase(rec); err != nil {
			return err
		}
	}
	return nil
}

// Flush writes what the records' destination holds back, when it does.
func (s *Sink) Flush() error {
	if f, ok := s.out.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			s.outErr = cmp.Or(s.outErr, err)
			return err
		}
	}
	return nil
}

func (s *Sink) addCase(rec *message.Record) error {
	if s.report == nil || s.toCase == nil {
		return nil
	}
	if c := s.toCase(rec); c != nil {
		return s.report.Add(c)
	}
	return nil
}

// Append writes records a tool adds of its own (ToolContext.Store): to
// the records' destination only, since they answer no request.
func (s *Sink) Append(ctx context.Context, recs ...*message.Record) error {
	if s.out == nil {
		return nil
	}
	return s.out.Append(ctx, recs...)
}

// Skip tells the progress of a request an earlier run finished.
func (s *Sink) Skip() {
	if s.progress != nil {
		s.progress.Skip()
	}
}

// Report is the JUnit report, nil for none: for a command whose testcases
// are not records (diff's are differences).
func (s *Sink) Report() *junit.Report { return s.report }

// FinishProgress stops showing the progress.
func (s *Sink) FinishProgress() {
	if s.progress != nil {
		s.progress.Finish()
	}
}

// End closes a resumed file's run: with every request read, the file
// becomes the one an uninterrupted run would have written, ended by end
// (nil for none), and the report is made again of every record in it,
// the earlier run's too. Any other destination gets end written.
func (s *Sink) End(resumed *records.Resumed, path string, end *message.Record) (records.Compaction, error) {
	if resumed == nil {
		if end == nil || s.out == nil {
			return records.Compaction{}, nil
		}
		return records.Compaction{}, s.out.Write(end)
	}
	c, err := resumed.Compact(end)
	if err != nil || s.report == nil || c.Foreign > 0 {
		return c, err
	}
	// The file holds one record per request, in request order.
	if err := s.report.Reset(); err != nil {
		return c, &ReportError{err}
	}
	err = records.ReadFile(path, s.addCase)
	if err != nil {
		return c, &ReportError{err}
	}
	return c, nil
}

// Lines returns a writer of records files' lines (merge writes the lines
// as its parts hold them, name says whose) that also hands each record to
// see, when not nil, and to the report, as toCase makes its testcase (nil
// for a record that is none). wait closes the writer and returns once
// every record is seen and in the report. Without a report or see, w is
// out.
func (s *Sink) Lines(out io.Writer, name string, toCase func(*message.Record) *junit.Case, see func(*message.Record)) (w io.Writer, wait func() error) {
	if s.report == nil && see == nil {
		return out, func() error { return nil }
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := records.Read(pr, name, func(rec *message.Record) error {
			if see != nil {
				see(rec)
			}
			if s.report == nil {
				return nil
			}
			if c := toCase(rec); c != nil {
				return s.report.Add(c)
			}
			return nil
		})
		// A report that fails stops the writer too: the command it
		// reports on fails with its error.
		pr.CloseWithError(err)
		done <- err
	}()
	return io.MultiWriter(out, pw), func() error {
		pw.Close()
		if err := <-done; err != nil {
			return &ReportError{err}
		}
		return nil
	}
}

// Close ends the sink: the progress stops, the records' destination is
// closed, the report is written (an interrupted command's holds what it
// recorded; when the records could not all be written, a failed testcase
// named records says so). err is the command's error so far, kept when
// there is one.
func (s *Sink) Close(err error) error {
	s.FinishProgress()
	if s.out != nil {
		cerr := s.out.Close()
		if cerr != nil && err == nil {
			err = cerr
		}
		if failed := cmp.Or(s.outErr, cerr); failed != nil && s.report != nil {
			// The report's testcases say what ran; the records file
			// lacks some of it: a CI's report shows why, not only
			// green tests beside a failed job. (A report that cannot
			// take it fails its Close below.)
			s.report.Add(junit.RecordsCase(failed))
		}
	}
	if s.report != nil {
		if cerr := s.report.Close(); cerr != nil && err == nil {
			err = &ReportError{cerr}
		}
	}
	return err
}

// Abandon ends a sink whose command failed before its output meant
// anything: the report is not written; the records' destination is
// closed. After Close it does nothing more.
func (s *Sink) Abandon() {
	s.FinishProgress()
	if s.report != nil {
		s.report.Abandon()
	}
	if s.out != nil {
		s.out.Close()
	}
}

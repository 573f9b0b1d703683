package app

import (
	"context"

	"github.com/kesoku/kesoku/internal/diff"
)

// DiffOptions are what kesoku diff is asked to do: how to compare, where
// each difference goes (Emit), and the JUnit report's path ("" for none),
// which the caller has checked is neither file.
type DiffOptions struct {
	Compare diff.Options
	Emit    func(*diff.Difference) error
	JUnit   string
}

// Diff compares old and new request by request (diff.Compare), through a
// sink whose report has a testcase per request compared. Its errors are
// *UsageError: a file that cannot be read or parsed, a report that cannot
// be written (a *ReportError in it); the caller knows its own Emit's.
func Diff(ctx context.Context, old, new diff.File, o DiffOptions) (diff.Summary, error) {
	sink, err := OpenSink(SinkOptions{JUnit: o.JUnit, Suite: "kesoku diff"})
	if err != nil {
		return diff.Summary{}, &UsageError{Err: err}
	}
	emit := o.Emit
	var report *diff.Report
	if jr := sink.Report(); jr != nil {
		report = diff.NewReport(jr, old.Name, new.Name)
		o.Compare.Same = report.Same
		emit = func(d *diff.Difference) error {
			if err := report.Difference(d); err != nil {
				return &UsageError{Err: &ReportError{err}}
			}
			return o.Emit(d)
		}
	}
	sum, err := diff.Compare(ctx, old, new, o.Compare, emit)
	if report != nil {
		// Its last request's case, then the report written, even when
		// the comparison stopped: it holds what was compared.
		if rerr := report.Close(); rerr != nil && err == nil {
			err = &UsageError{Err: &ReportError{rerr}}
		}
	}
	sink.Close(nil)
	if _, ok := err.(*UsageError); err != nil && !ok {
		err = &UsageError{Err: err}
	}
	return sum, err
}

package cmd

import (
	"errors"
	"fmt"
	"testing"

	"github.com/kesoku/kesoku/internal/app"
)

// TestAppErr: what app returns is worded here, from what it is about,
// with the exit status each error is.
func TestAppErr(t *testing.T) {
	t.Parallel()
	bad := errors.New("out.jsonl:3: not a record")
	for _, tt := range []struct {
		err  error
		code int
		want string
	}{
		{&app.UsageError{Err: &app.ResumeError{Err: bad}}, ExitUsage, "--resume: out.jsonl:3: not a record"},
		{&app.UsageError{Err: &app.ReportError{Err: bad}}, ExitUsage, "--junit: out.jsonl:3: not a record"},
		{&app.ReportError{Err: bad}, ExitFailures, "--junit: out.jsonl:3: not a record"},
		{&app.UsageError{Err: bad}, ExitUsage, "out.jsonl:3: not a record"},
		{&app.FilesError{Errs: []error{bad, errors.New("b.yaml: empty")}}, ExitUsage, "out.jsonl:3: not a record\nb.yaml: empty"},
		{fmt.Errorf("reading: %w", app.ErrReadInterrupted), ExitInterrupted, "reading: interrupted while reading the requests: nothing ran"},
		{bad, ExitFailures, "out.jsonl:3: not a record"},
	} {
		got := appErr(tt.err)
		if code, _ := exitCode(got); code != tt.code || got.Error() != tt.want {
			t.Errorf("appErr(%v) = %q, exit %d; want %q, exit %d", tt.err, got, code, tt.want, tt.code)
		}
	}
}

package cmd

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/kesoku/kesoku/internal/app"
	"github.com/kesoku/kesoku/internal/request"
)

// appErr words what the work below cmd returned for a terminal, with the
// exit status each error is: the user's mistakes are bad usage.
func appErr(err error) error {
	var files *app.FilesError
	var usage *app.UsageError
	var report *app.ReportError
	switch {
	case errors.Is(err, app.ErrReadInterrupted):
		return &exitError{code: ExitInterrupted, err: err}
	case errors.As(err, &files):
		errs := make([]error, len(files.Errs))
		for i, e := range files.Errs {
			errs[i] = fileError(e)
		}
		return usageErr(errors.Join(errs...))
	case errors.As(err, &usage):
		return usageErr(appWords(usage.Err))
	case errors.As(err, &report):
		return appWords(report)
	}
	return err
}

// appWords names the flag an error of app's is about: the report's
// (--junit), the resumed file's (--resume).
func appWords(err error) error {
	var report *app.ReportError
	var resume *app.ResumeError
	switch {
	case errors.As(err, &report):
		return fmt.Errorf("--junit: %w", report.Err)
	case errors.As(err, &resume):
		return fmt.Errorf("--resume: %w", resume.Err)
	}
	return err
}

// fileError is err with, for a parse error, the offending line and a caret
// under the column.
func fileError(err error) error {
	var pe *request.ParseError
	if errors.As(err, &pe) {
		if s := pe.Snippet(); s != "" {
			return fmt.Errorf("%w\n%s", err, s)
		}
	}
	// "missing.yaml: no such file or directory", as every other message
	// about a file begins with its name, not "open missing.yaml: ...".
	var fe *fs.PathError
	if errors.As(err, &fe) && err == error(fe) {
		return fmt.Errorf("%s: %w", fe.Path, fe.Err)
	}
	return err
}

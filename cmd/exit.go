package cmd

import (
	"errors"
	"fmt"
	"os"

	"github.com/kesoku/kesoku/internal/english"
)

// Exit codes, decided here and nowhere else.
const (
	ExitOK          = 0
	ExitFailures    = 1
	ExitUsage       = 2
	ExitPending     = 3
	ExitBudget      = 4
	ExitDeferred    = 5
	ExitInterrupted = 130
)

// exitNow ends the process with code at once, whatever it waits on: for
// a run that the second signal could not end (hardStop).
func exitNow(code int) { os.Exit(code) }

// exitStatusHelp is appended to the help of every command whose own help
// has no EXIT STATUS section: the codes of a command that writes records.
const exitStatusHelp = `
EXIT STATUS
  0    every record succeeded
  1    at least one error record
  2    bad usage, or a file unreadable, unparsable or empty; nothing ran
  130  interrupted (SIGINT or SIGTERM); every request still has its record
`

// exitError carries the exit code an error should end the program with.
type exitError struct {
	code int
	err  error
	// silent errors were already reported (records, a summary) and print
	// nothing more at the top.
	silent bool
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// usageErr marks err as bad usage or unreadable input: exit 2.
func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: ExitUsage, err: err}
}

// usageErrf is usageErr over fmt.Errorf.
func usageErrf(format string, args ...any) error {
	return usageErr(fmt.Errorf(format, args...))
}

// errFailures says that at least one record is an error: exit 1, and
// nothing more to print, since the records say it.
var errFailures = &exitError{code: ExitFailures, silent: true}

// errPending says a batch is still in progress: exit 3, and nothing more
// to print, since the report says it.
var errPending = &exitError{code: ExitPending, silent: true}

// deferredErr says the command stopped at calls that wait for a person's
// answer (the rules asked with no terminal under --on-ask defer, or a
// hook deferred them; their records say which): exit 5, saying how to
// answer them in file and how to go on.
func deferredErr(file string, ids []string, goOn string) error {
	verb := "waits"
	if len(ids) > 1 {
		verb = "wait"
	}
	return &exitError{code: ExitDeferred, err: fmt.Errorf(
		"stopped at %s that %s for a person's answer (deferred); "+
			"answer with kesoku approve %s (or --refuse), then %s",
		english.Plural(len(ids), "a call", "calls"), verb, shellQuote(append([]string{file}, ids...)), goOn)}
}

// errInterrupted says the run was interrupted: exit 130.
var errInterrupted = &exitError{code: ExitInterrupted, err: errors.New("interrupted")}

// errInterruptedReported is errInterrupted after a summary that already
// said so.
var errInterruptedReported = &exitError{code: ExitInterrupted, err: errInterrupted, silent: true}

// exitCode maps an error returned by a command to the process exit code.
// Errors that carry no code are failures of the program's own work: 1.
func exitCode(err error) (code int, silent bool) {
	if err == nil {
		return ExitOK, true
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code, ee.silent
	}
	return ExitFailures, false
}

// completionScriptExitStatus is the help's EXIT STATUS of a shell's
// completion command.
const completionScriptExitStatus = `

EXIT STATUS
  0  the script was printed
  2  bad usage (an argument, an unknown flag)`

// completionExitStatus is the help's EXIT STATUS of Cobra's completion
// command.
const completionExitStatus = `
EXIT STATUS
  0  the script (or, without a shell, this help) was printed
  2  an unknown shell
`

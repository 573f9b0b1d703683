package cmd

import "fmt"

// worded is an error of a package below cmd in the words of the command
// line: the packages below say what is wrong in their own terms, and only
// cmd knows which flag sets what. The error itself stays in the chain for
// errors.Is and errors.As.
type worded struct {
	msg string
	err error
}

// reword is err said as format and args say it.
func reword(err error, format string, args ...any) error {
	return &worded{msg: fmt.Sprintf(format, args...), err: err}
}

func (w *worded) Error() string { return w.msg }
func (w *worded) Unwrap() error { return w.err }

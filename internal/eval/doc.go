// Package eval reads kesoku eval's cases and checks a session's outcome
// against what each case expects.
//
// Eval files are read with a position for every case, as request files
// are; the summary of the runs says pass@1, pass@K and pass^K. app.Env.Eval
// runs the cases as sessions.
package eval

package cmd

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/app"
)

// The defaults of the call flags: an interrupt's grace, and a record's
// largest output.
const (
	defaultGrace     = app.DefaultGrace
	defaultMaxOutput = app.DefaultMaxOutput
)

// callFlags are the flags that bound tool calls, shared by every command
// that runs them (run, session): --jobs, --timeout, --grace and
// --max-output.
type callFlags struct {
	Jobs      int
	Timeout   time.Duration
	Grace     time.Duration
	MaxOutput sizeValue
}

// register adds the flags to fs. Only the number of jobs differs between
// commands: a batch runs one call at a time unless asked (as xargs does),
// a model's turn a few.
func (f *callFlags) register(fs *pflag.FlagSet, jobs int, jobsUsage string) {
	intVar(fs, &f.Jobs, "jobs", "j", jobs, 1, maxJobs, jobsUsage)
	f.registerBounds(fs)
}

// registerBounds adds the flags but --jobs, for a command whose --jobs
// counts something else (eval's cases).
func (f *callFlags) registerBounds(fs *pflag.FlagSet) {
	durationVar(fs, &f.Timeout, "timeout", 0, 0, maxTimeout, "a call's time limit; 0 for none")
	durationVar(fs, &f.Grace, "grace", defaultGrace, 0, maxGrace, "calls' grace on an interrupt")
	sizeVar(fs, &f.MaxOutput, "max-output", defaultMaxOutput, 0, maxMaxOutput, "output kept; 0 for all")
}

// The bounds of the call flags. Past them a value is a mistake, not a
// wish: ten thousand calls at once are more than any machine runs well,
// a call of more than a week or a grace of more than an hour is a typo,
// and a record of more than a gigabyte is not a record.
const (
	maxJobs      = 10_000
	maxTimeout   = 7 * 24 * time.Hour
	maxGrace     = time.Hour
	maxMaxOutput = 1 << 30
)

// calls are the bounds the flags set, as the environment takes them.
func (f *callFlags) calls() *app.Calls {
	return &app.Calls{Jobs: f.Jobs, Timeout: f.Timeout, Grace: f.Grace, MaxOutput: int64(f.MaxOutput)}
}

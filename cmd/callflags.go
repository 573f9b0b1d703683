package cmd

import (
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/kesoku/kesoku/internal/runner"
)

// Defaults of SPEC §5 and §8.
const (
	defaultGrace     = 5 * time.Second
	defaultMaxOutput = 1 << 20
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
	f.MaxOutput = defaultMaxOutput
	fs.IntVarP(&f.Jobs, "jobs", "j", jobs, jobsUsage)
	fs.DurationVar(&f.Timeout, "timeout", 0, "the longest a call may run, e.g. 30s (default: no limit)")
	fs.DurationVar(&f.Grace, "grace", defaultGrace, "how long calls in flight get to return after an interrupt")
	fs.Var(&f.MaxOutput, "max-output", "the largest tool output a record holds (65536, 64KiB, 1MiB, 1MB; 0 for no limit); larger output is cut to its head and tail and saved whole under .kesoku/outputs")
}

// check refuses values that make no sense: bad usage, exit 2.
func (f *callFlags) check() error {
	if f.Jobs < 1 {
		return usageErrf("--jobs %d: want at least 1", f.Jobs)
	}
	if f.Timeout < 0 || f.Grace < 0 {
		return usageErrf("--timeout and --grace cannot be negative")
	}
	return nil
}

// options are the ToolRunner's options the flags and the globals make:
// the one place they are turned into them. The caller adds what is its
// own (the session, the store, the model, the interrupt hooks).
func (f *callFlags) options(g *Globals) runner.Options {
	return runner.Options{
		Jobs:      f.Jobs,
		Timeout:   f.Timeout,
		Grace:     f.Grace,
		MaxOutput: int64(f.MaxOutput),
		OutputDir: filepath.Join(g.AWD, ".kesoku", "outputs"),
		AWD:       g.AWD,
		Staging:   g.StagingDir(),
		Protected: g.protected,
	}
}

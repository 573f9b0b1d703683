package app

import (
	"fmt"
	"path/filepath"

	"github.com/kesoku/kesoku/internal/hook"
	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/runner"
	"github.com/kesoku/kesoku/internal/termtext"
)

// newHooks makes the runner of the config files' hooks, whose programs
// start as the tools' do (through the tool set, which stops them).
func (e *Env) newHooks() *hook.Runner {
	o := e.opts
	return hook.New(hook.Options{
		Hooks:   o.Config.Hooks(),
		AWD:     o.AWD,
		Launch:  e.Tools,
		Secrets: e.secrets,
		Warn: func(msg string) {
			if !o.Quiet {
				fmt.Fprintf(o.Log, "kesoku: %s\n", termtext.Lines(msg))
			}
		},
	})
}

// RecordsTo says that the command's records go to path (-o, a session's
// transcript): tools never write it (why says what it is), and the hooks
// are told it as their transcript_path. Call it before RunnerOptions.
func (e *Env) RecordsTo(path, why string) {
	e.Protect(path, why)
	if path != "" && path != "-" {
		if abs, err := filepath.Abs(path); err == nil {
			e.records = abs
		}
	}
}

// addHooks makes the hooks steps of the calls opts runs: the PreToolUse
// hooks a step of its policy, after the rules; the PostToolUse hooks its
// step after a call.
func (e *Env) addHooks(opts *runner.Options) {
	if step := e.hooks.Step(e.records); step != nil {
		switch p := opts.Policy.(type) {
		case nil:
			opts.Policy = &policy.Policy{Steps: policy.Chain{step}}
		case *policy.Policy:
			p.Steps = append(p.Steps, step)
		default:
			opts.Policy = policy.Chain{p, step}
		}
	}
	opts.After = e.hooks.After(e.records)
}

package app

import (
	"context"
	"path/filepath"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/hook"
	"github.com/kesoku/kesoku/internal/notice"
	"github.com/kesoku/kesoku/internal/policy"
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
		Warn:    notice.Func(o.Tell, notice.Warning),
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

// addHooks makes the PreToolUse hooks a step of the policy, after the
// rules: a call a rule denies reaches no hook, and a hook's allow does
// not lift a rule's ask or deny. The step is told the records file as
// the call comes: RecordsTo names it after Prepare.
func (e *Env) addHooks() {
	if e.policy == nil || e.hooks.Step("") == nil {
		return
	}
	e.policy.Steps = append(e.policy.Steps, policy.DeciderFunc(func(ctx context.Context, c *policy.Call) policy.Decision {
		return e.hooks.Step(e.records).Decide(ctx, c)
	}))
}

// Hooked is the events whose hooks run for the calls of tool
// (config.PreToolUse, config.PostToolUse), none when none do.
func (e *Env) Hooked(tool string) []string {
	var events []string
	for _, ev := range config.HookEvents {
		if e.hooks.Matches(ev, tool) {
			events = append(events, ev)
		}
	}
	return events
}

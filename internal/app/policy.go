package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kesoku/kesoku/internal/english"
	"github.com/kesoku/kesoku/internal/policy"
	"github.com/kesoku/kesoku/internal/toolset"
)

// PolicyOptions are what decides the calls of a command besides the
// config files' rules: the command line's rules (--allow, --ask,
// --deny), who is asked about a call the rules ask about, and what such a
// call becomes when no one can be asked.
type PolicyOptions struct {
	Rules policy.Rules
	// Asker asks a person at a terminal; nil when there is none.
	Asker policy.Asker
	// OnAsk is --on-ask.
	OnAsk policy.OnAsk
	// Unasked is how a decision names what settled an ask no one could
	// answer (policy.Policy.Unasked).
	Unasked string
	// NoDefer says the command cannot be resumed (policy.Policy.NoDefer).
	NoDefer bool
}

// RuleToolError is a rule that names a tool the tool set does not have,
// or an argument its tool does not take: a rule that could never match
// is a mistake, and a deny that never matches a false comfort.
type RuleToolError struct {
	Rule policy.Rule
	// Arg is the argument named that the tool does not take; "" when the
	// tool itself is unknown.
	Arg        string
	Suggestion string
}

func (e *RuleToolError) Error() string {
	var msg string
	if e.Arg == "" {
		msg = fmt.Sprintf("%s: rule %q: no tool is named %q", e.Rule.Source, e.Rule.Text, e.Rule.Tool())
	} else {
		msg = fmt.Sprintf("%s: rule %q: tool %q takes no argument %q", e.Rule.Source, e.Rule.Text, e.Rule.Tool(), e.Arg)
	}
	if e.Suggestion != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", e.Suggestion)
	}
	return msg
}

// buildPolicy makes the command's policy: the config files' rules, then
// the command line's, as the first step of the chain. Literal rules are
// checked against the tool set: a tool of an MCP server (SERVER__TOOL) is
// not, as its server starts only when needed.
func (e *Env) buildPolicy() error {
	rules := append(e.opts.Config.Permissions(), e.opts.Policy.Rules...)
	if e.Tools != nil {
		for _, r := range rules {
			if err := checkRule(e.Tools.Registry, r); err != nil {
				return err
			}
		}
	}
	e.policy = &policy.Policy{Asker: e.opts.Policy.Asker, OnAsk: e.opts.Policy.OnAsk, Unasked: e.opts.Policy.Unasked, NoDefer: e.opts.Policy.NoDefer}
	// The chain: the rules first (a call they deny reaches no later
	// step), then each further step (the hooks) appended here, in order.
	if len(rules) > 0 {
		e.rules = rules
		e.policy.Steps = append(e.policy.Steps, rules)
	}
	return nil
}

// checkRule refuses a literal rule whose tool, or one of whose
// arguments, does not exist.
func checkRule(reg *toolset.Set, r policy.Rule) error {
	if !r.Literal() || strings.Contains(r.Tool(), "__") {
		return nil
	}
	spec, ok := reg.Lookup(r.Tool())
	if !ok {
		return &RuleToolError{Rule: r, Suggestion: reg.UnknownTool(r.Tool()).Suggestion}
	}
	var params []string
	for _, p := range spec.Params {
		params = append(params, p.Name)
	}
	for _, a := range r.Args() {
		if !slices.Contains(params, a) {
			return &RuleToolError{Rule: r, Arg: a, Suggestion: english.Suggest(a, params)}
		}
	}
	return nil
}

// Policy is the command's policy: what the runner asks of each call. Add
// steps to its chain before the first call.
func (e *Env) Policy() *policy.Policy { return e.policy }

// SetApprovals gives the policy kesoku approve's answers to the calls an
// earlier run deferred (a resumed run's records.Finished).
func (e *Env) SetApprovals(a policy.Approvals) {
	if e.policy != nil {
		e.policy.Approvals = a
	}
}

// Rules are the rules of permissions in force (the config files', then
// the command line's).
func (e *Env) Rules() policy.Rules { return e.rules }

// Package policy owns which tool calls may run. Each call gets a decision
// after its arguments are validated and before it runs, made by a chain of
// steps (the rules of allow, ask and deny; the hooks), the answer of a
// person for a call the steps ask about, and what such a call becomes when
// no one can be asked. The ToolRunner asks it once a call, wherever the
// call comes from: a request file, a model's turn, an eval's case, an MCP
// client.
package policy

import (
	"cmp"
	"context"
	"fmt"
	"sync"
)

// Verdict is what a step says of a call.
type Verdict int

// The verdicts, weakest first: when steps disagree the strongest wins.
const (
	// None is no opinion: the next step decides, and a call no step
	// decides runs.
	None Verdict = iota
	// Allow lets the call run.
	Allow
	// Ask asks a person; with no one to ask, --on-ask decides.
	Ask
	// Defer stops the run at the call, recorded as deferred, until a
	// person answers (kesoku approve) and the run is resumed.
	Defer
	// Deny never runs the call: its record is an error of kind denied.
	Deny
)

func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Defer:
		return "defer"
	case Deny:
		return "deny"
	}
	return "none"
}

// Call is what a decision is about: a call whose tool exists and whose
// arguments are valid.
type Call struct {
	// ID is the request's id (the tool_use id of a model's call).
	ID string
	// Name is the tool's name as the registry knows it (an MCP server's
	// tools as mcp__SERVER__TOOL).
	Name string
	// Args are the call's arguments, validated.
	Args map[string]any
	// SessionID is the run's or session's id.
	SessionID string
	// Dirs are the directories a relative path argument is read in (the
	// AWD, staging): an absolute path inside one is matched by the rules
	// as the relative path it is there too.
	Dirs []string
	// ArgsHash is the hash of the arguments as the request came (the
	// records' args_hash), "" where the run does not keep it: what an
	// approval of a deferred call is checked against.
	ArgsHash string
}

// Decision is what a step, or the whole policy, decided of a call.
type Decision struct {
	Verdict Verdict
	// By says what decided, for the record's decided_by: `deny rule
	// "write_file(path=docs/**)"`, a hook's command, "user".
	By string
	// Reason says why, for the record's message and a model that reads
	// it; "" says nothing more than By.
	Reason string
	// UpdatedArgs, when not nil, replace the call's arguments (a hook's
	// updatedInput): the runner validates them again before the call.
	UpdatedArgs map[string]any
}

// Decider decides of one call. A step of the chain is a Decider; so is
// the chain, and the Policy over it.
type Decider interface {
	Decide(ctx context.Context, c *Call) Decision
}

// DeciderFunc is a function as a Decider.
type DeciderFunc func(ctx context.Context, c *Call) Decision

// Decide calls f.
func (f DeciderFunc) Decide(ctx context.Context, c *Call) Decision { return f(ctx, c) }

// Chain is the steps of a decision, in order: the rules first, then the
// hooks. A step that denies ends the chain (a denied call reaches no
// hook); otherwise the strongest verdict wins, the first step's of equal
// ones. A step that updates the arguments hands them to the steps after
// it, and the steps before it see them again: a rewrite cannot slip past
// a rule.
type Chain []Decider

// Decide runs the steps over c; c.Args ends as the last update left them.
func (ch Chain) Decide(ctx context.Context, c *Call) Decision {
	var d Decision
	var updated map[string]any
	var updatedBy string
	for i, step := range ch {
		got := step.Decide(ctx, c)
		if got.UpdatedArgs != nil {
			c.Args, updated, updatedBy = got.UpdatedArgs, got.UpdatedArgs, got.By
			// Held to the steps before it again, updates aside.
			if again := ch[:i].Decide(ctx, c); again.Verdict > got.Verdict {
				again.UpdatedArgs = nil
				got = again
			}
		}
		if got.Verdict > d.Verdict {
			d = got
		}
		if d.Verdict == Deny {
			break
		}
	}
	d.UpdatedArgs = updated
	if d.By == "" && updated != nil {
		// Arguments rewritten by a step that decided nothing else: what
		// rewrote them is what the record names.
		d.By = updatedBy
	}
	return d
}

// OnAsk is what a call the steps ask about becomes when no one can be
// asked (no terminal: CI, mcp serve, eval).
type OnAsk int

// What --on-ask says.
const (
	// OnAskDeny denies it (the default): never blocks, never runs.
	OnAskDeny OnAsk = iota
	// OnAskDefer stops the run at it, recorded as deferred.
	OnAskDefer
)

// Answer is a person's answer to an ask.
type Answer int

// The answers.
const (
	No Answer = iota
	Yes
	// Always is yes, and yes to whatever the same step asks again in this
	// session.
	Always
)

// Asker asks a person about a call (a terminal). It must return when ctx
// is cancelled, with an error.
type Asker interface {
	Ask(ctx context.Context, c *Call, d Decision) (Answer, error)
}

// Approvals are the answers kesoku approve gave to the calls a run
// deferred, for the run resumed (records.Finished).
type Approvals interface {
	// Approval reports whether the call of id, of the tool name with
	// arguments hashing to argsHash, was approved, and whether it was
	// answered at all.
	Approval(id, name, argsHash string) (approved, answered bool)
}

// Policy decides of each call: its steps, then for an ask the answer of
// a person, kesoku approve's, or --on-ask's. The zero Policy allows
// every call. One Policy serves a whole command, its calls at once.
type Policy struct {
	// Steps decide first.
	Steps Chain
	// Asker asks a person; nil when there is no terminal.
	Asker Asker
	// OnAsk is what an ask becomes with no Asker and no approval.
	OnAsk OnAsk
	// Unasked names, after the words of the step that asked, what
	// settled an ask no one could answer: the setting as the user gave
	// it (a flag, say). Empty says only that no terminal could ask.
	Unasked string
	// Approvals are kesoku approve's answers, nil for none.
	Approvals Approvals
	// NoDefer says there is nothing to resume (mcp serve, eval, a run
	// whose records go to standard output): a call a step defers is
	// denied, rather than left waiting for an answer that cannot come.
	NoDefer bool

	mu     sync.Mutex
	always map[string]bool // asks answered "always": by what asked
}

// Decide returns the decision of c: Allow (with By set when a step or a
// person allowed it), Deny or Defer.
func (p *Policy) Decide(ctx context.Context, c *Call) Decision {
	if p == nil || len(p.Steps) == 0 {
		return Decision{Verdict: Allow}
	}
	d := p.Steps.Decide(ctx, c)
	switch d.Verdict {
	case None:
		d.Verdict = Allow
		return d
	case Ask:
		return p.ask(ctx, c, d)
	case Defer:
		// A step deferred it (a hook said defer): kesoku approve's answer
		// settles it as it settles an ask deferred, or the resumed run
		// would stop at it again, whatever the answer.
		if a, ok := p.approved(c, d); ok {
			return a
		}
		if p.NoDefer {
			d.Verdict, d.By = Deny, d.By+"; nothing to resume (defer denies)"
		}
	}
	return d
}

// approved is kesoku approve's answer to c, a call the steps deferred
// or ask about, as a decision; ok is false when it has none.
func (p *Policy) approved(c *Call, d Decision) (_ Decision, ok bool) {
	if p.Approvals == nil {
		return Decision{}, false
	}
	yes, answered := p.Approvals.Approval(c.ID, c.Name, c.ArgsHash)
	if !answered {
		return Decision{}, false
	}
	v := Deny
	if yes {
		v = Allow
	}
	return Decision{Verdict: v, By: "kesoku approve", Reason: d.Reason, UpdatedArgs: d.UpdatedArgs}, true
}

// ask settles a call the steps ask about.
func (p *Policy) ask(ctx context.Context, c *Call, d Decision) Decision {
	settled := func(v Verdict, by string) Decision {
		return Decision{Verdict: v, By: by, Reason: d.Reason, UpdatedArgs: d.UpdatedArgs}
	}
	if a, ok := p.approved(c, d); ok {
		return a
	}
	if p.Asker == nil {
		// A command with no setting to name (mcp serve, eval) says why
		// alone: naming a flag it lacks would send the user looking.
		unasked := cmp.Or(p.Unasked, "no terminal to ask")
		if p.OnAsk == OnAskDefer {
			return settled(Defer, d.By+"; "+unasked)
		}
		return settled(Deny, d.By+"; "+unasked)
	}
	p.mu.Lock()
	yes := p.always[d.By]
	p.mu.Unlock()
	if yes {
		return settled(Allow, "user (always)")
	}
	a, err := p.Asker.Ask(ctx, c, d)
	if err != nil {
		return settled(Deny, fmt.Sprintf("user (not answered: %v)", err))
	}
	switch a {
	case Always:
		p.mu.Lock()
		if p.always == nil {
			p.always = map[string]bool{}
		}
		p.always[d.By] = true
		p.mu.Unlock()
		return settled(Allow, "user (always)")
	case Yes:
		return settled(Allow, "user")
	}
	return settled(Deny, "user")
}

package hook

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/kesoku/kesoku/internal/config"
	"github.com/kesoku/kesoku/internal/policy"
)

// By is how a record's decided_by names hook h: `PreToolUse hook
// "./check.sh"`.
func By(h *config.Hook) string { return h.Event + " hook " + strconv.Quote(h.Command) }

// verdicts are the policy's verdicts of the hooks' decisions.
var verdicts = map[Decision]policy.Verdict{None: policy.None, Allow: policy.Allow, Ask: policy.Ask, Defer: policy.Defer, Deny: policy.Deny}

// Step is the PreToolUse hooks as a step of the policy's chain, which
// the ToolRunner asks of every call before it runs: the hooks' decision,
// what decided it, and the arguments a hook replaced (which the runner
// validates again). transcript is the hooks' transcript_path (the records
// file, the session's transcript; "" for none). Hook errors, and what the
// hooks have to say to the user, go to Options.Warn; the call goes on
// without them. nil for a Runner of no hooks.
func (r *Runner) Step(transcript string) policy.Decider {
	if r == nil || !r.has(config.PreToolUse) {
		return nil
	}
	return policy.DeciderFunc(func(ctx context.Context, c *policy.Call) policy.Decision {
		o, err := r.Pre(ctx, Call{SessionID: c.SessionID, TranscriptPath: transcript, ToolName: c.Name, ToolUseID: c.ID, ToolInput: c.Args})
		switch {
		case ctx.Err() != nil:
			// Interrupted while the hooks ran: the call does not run (the
			// runner records it as cut short).
			return policy.Decision{Verdict: policy.Deny, By: "PreToolUse hooks", Reason: "interrupted while they ran"}
		case err != nil:
			// No hook could be told of the call: a hook error, as one
			// that fails is.
			r.warn(err.Error())
			return policy.Decision{}
		}
		r.tell(o)
		d := policy.Decision{Verdict: verdicts[o.Decision], Reason: o.Reason, UpdatedArgs: o.UpdatedInput}
		if o.By != nil {
			d.By = By(o.By)
		}
		return d
	})
}

// After is the PostToolUse hooks as the ToolRunner's step after a call
// that succeeded, content being what it returned: what the hooks said of
// it, for its record's hook_feedback ("" when they said nothing). nil for
// a Runner of no PostToolUse hooks.
func (r *Runner) After(transcript string) func(ctx context.Context, c *policy.Call, content json.RawMessage) string {
	if r == nil || !r.has(config.PostToolUse) {
		return nil
	}
	return func(ctx context.Context, c *policy.Call, content json.RawMessage) string {
		o, err := r.Post(ctx, Call{SessionID: c.SessionID, TranscriptPath: transcript, ToolName: c.Name, ToolUseID: c.ID, ToolInput: c.Args, ToolResponse: content})
		if err != nil {
			if ctx.Err() == nil {
				r.warn(err.Error())
			}
			return ""
		}
		r.tell(o)
		return strings.Join(o.Feedback, "\n\n")
	}
}

// has reports whether any hook runs at event.
func (r *Runner) has(event string) bool {
	for _, h := range r.opts.Hooks {
		if h.Event == event {
			return true
		}
	}
	return false
}

// tell gives Options.Warn the hook errors of o and the messages its
// hooks have for the user.
func (r *Runner) tell(o Outcome) {
	for _, e := range o.Errors {
		r.warn(e.Error())
	}
	for _, m := range o.Messages {
		r.warn("a hook says: " + r.redact(m))
	}
}

// warn tells Options.Warn msg, when it is set.
func (r *Runner) warn(msg string) {
	if r.opts.Warn != nil {
		r.opts.Warn(msg)
	}
}

package runner

import (
	"fmt"

	"github.com/kesoku/kesoku/internal/policy"
)

// decide is the policy's step, the one decision point of every call
// kesoku runs — from a request file, a replayed transcript, a model's
// turn, an eval's case or an MCP client: after validation, so that the
// policy sees a known tool and valid arguments, and before the call. It
// reports whether the call runs; when not, the slot's record says why.
//
// Options.Policy composes what decides (the rules, the hooks, a person's
// answer: package policy); the runner only obeys. Arguments a step
// rewrote are validated again, as the model's were.
func (ru *run) decide(s *slot) bool {
	p := ru.r.opts.Policy
	if p == nil {
		return true
	}
	r, req := ru.r, s.req
	c := &policy.Call{ID: req.ID, Name: req.Name, Args: req.Args, SessionID: r.sessionID(req), ArgsHash: s.argsHash,
		Dirs: r.dirs}
	d := p.Decide(ru.ctx, c)
	if d.Verdict != policy.Allow && d.Verdict != policy.None && ru.cut(s.index) {
		// Interrupted while it was decided (a person asked): not refused,
		// not run; a resumed run decides again.
		s.rec = r.aborted(req, ru.abortReason(s.index), 0)
		return false
	}
	switch d.Verdict {
	case policy.Allow, policy.None:
		s.decidedBy = d.By
		if d.UpdatedArgs != nil {
			req.Args = d.UpdatedArgs
			spec, prob := r.checkArgs(req)
			if prob != nil {
				s.rec = r.opts.Secrets.Record(r.pk.Refused(r.call(req), prob, "the arguments as "+d.By+" rewrote them: "+prob.String()))
				s.rec.DecidedBy = d.By
				return false
			}
			s.spec = spec
		}
		return true
	case policy.Defer:
		s.rec = r.opts.Secrets.Record(r.pk.Deferred(r.call(req), d.By, deferMessage(req.Name, d)))
		return false
	}
	// Deny, and an Ask no one settled: a call runs only when allowed.
	s.rec = r.opts.Secrets.Record(r.pk.Denied(r.call(req), d.By, denyMessage(req.Name, d)))
	return false
}

// denyMessage is what a denied call's record says, which a model reads as
// the call's result: what denied it and why, so that it does not try the
// same call again.
func denyMessage(tool string, d policy.Decision) string {
	msg := fmt.Sprintf("tool %q: the call was denied by %s", tool, d.By)
	if d.Reason != "" {
		msg += ": " + d.Reason
	}
	return msg + "; the user's policy does not let this call run, so do not try it again as it is"
}

// deferMessage is what a deferred call's record says.
func deferMessage(tool string, d policy.Decision) string {
	msg := fmt.Sprintf("tool %q: the call waits for a person's answer (%s)", tool, d.By)
	if d.Reason != "" {
		msg += ": " + d.Reason
	}
	return msg + "; kesoku approve answers it, and the same command with --resume then runs it"
}

package policy

import (
	"context"
	"errors"
	"testing"
)

func fixed(d Decision) Decider {
	return DeciderFunc(func(context.Context, *Call) Decision { return d })
}

func TestChainStrongestWins(t *testing.T) {
	t.Parallel()
	ran := false
	after := DeciderFunc(func(context.Context, *Call) Decision { ran = true; return Decision{} })
	for _, tc := range []struct {
		name  string
		chain Chain
		want  Verdict
		by    string
	}{
		{"empty", nil, None, ""},
		{"allow then ask", Chain{fixed(Decision{Verdict: Allow, By: "a"}), fixed(Decision{Verdict: Ask, By: "b"})}, Ask, "b"},
		{"ask then allow", Chain{fixed(Decision{Verdict: Ask, By: "a"}), fixed(Decision{Verdict: Allow, By: "b"})}, Ask, "a"},
		{"defer beats ask", Chain{fixed(Decision{Verdict: Ask, By: "a"}), fixed(Decision{Verdict: Defer, By: "b"})}, Defer, "b"},
		{"deny ends it", Chain{fixed(Decision{Verdict: Deny, By: "a"}), after}, Deny, "a"},
	} {
		ran = false
		d := tc.chain.Decide(context.Background(), &Call{Name: "t"})
		if d.Verdict != tc.want || d.By != tc.by {
			t.Errorf("%s: %v by %q, want %v by %q", tc.name, d.Verdict, d.By, tc.want, tc.by)
		}
		if tc.want == Deny && ran {
			t.Errorf("%s: a step after a denial ran", tc.name)
		}
	}
}

// A step's rewrite of the arguments is held to the steps before it: a
// hook cannot rewrite a call into one a rule denies.
func TestChainRewriteCheckedAgain(t *testing.T) {
	t.Parallel()
	rule := DeciderFunc(func(_ context.Context, c *Call) Decision {
		if c.Args["path"] == "/etc/passwd" {
			return Decision{Verdict: Deny, By: "deny rule"}
		}
		return Decision{}
	})
	hook := fixed(Decision{Verdict: Allow, By: "hook", UpdatedArgs: map[string]any{"path": "/etc/passwd"}})
	c := &Call{Name: "read_file", Args: map[string]any{"path": "a.txt"}}
	d := Chain{rule, hook}.Decide(context.Background(), c)
	if d.Verdict != Deny || d.By != "deny rule" || d.UpdatedArgs == nil {
		t.Errorf("got %+v: the rewrite slipped past the rule", d)
	}
}

type answer struct {
	a     Answer
	err   error
	asked int
}

func (a *answer) Ask(context.Context, *Call, Decision) (Answer, error) {
	a.asked++
	return a.a, a.err
}

type approvals map[string]bool

func (a approvals) Approval(id, _, _ string) (bool, bool) { ok, known := a[id]; return ok, known }

// An ask never runs a call unless someone said yes: with no terminal it
// is denied or deferred, never allowed.
func TestPolicyAsk(t *testing.T) {
	t.Parallel()
	ask := Chain{fixed(Decision{Verdict: Ask, By: `ask rule "t"`})}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		p    *Policy
		id   string
		want Verdict
		by   string
	}{
		{"no terminal", &Policy{Steps: ask}, "c", Deny, `ask rule "t"; no terminal to ask`},
		{"no terminal, the setting named", &Policy{Steps: ask, Unasked: "--on-ask deny (no terminal to ask)"}, "c", Deny, `ask rule "t"; --on-ask deny (no terminal to ask)`},
		{"no terminal, defer", &Policy{Steps: ask, OnAsk: OnAskDefer, Unasked: "--on-ask defer"}, "c", Defer, `ask rule "t"; --on-ask defer`},
		{"approved", &Policy{Steps: ask, OnAsk: OnAskDefer, Approvals: approvals{"c": true}}, "c", Allow, "kesoku approve"},
		{"refused", &Policy{Steps: ask, OnAsk: OnAskDefer, Approvals: approvals{"c": false}}, "c", Deny, "kesoku approve"},
		{"not answered", &Policy{Steps: ask, OnAsk: OnAskDefer, Unasked: "--on-ask defer", Approvals: approvals{"d": true}}, "c", Defer, `ask rule "t"; --on-ask defer`},
		{"yes", &Policy{Steps: ask, Asker: &answer{a: Yes}}, "c", Allow, "user"},
		{"no", &Policy{Steps: ask, Asker: &answer{a: No}}, "c", Deny, "user"},
		{"the terminal fails", &Policy{Steps: ask, Asker: &answer{a: Yes, err: errors.New("EOF")}}, "c", Deny, "user (not answered: EOF)"},
		{"no steps", &Policy{}, "c", Allow, ""},
	} {
		d := tc.p.Decide(ctx, &Call{ID: tc.id, Name: "t"})
		if d.Verdict != tc.want || d.By != tc.by {
			t.Errorf("%s: %v by %q, want %v by %q", tc.name, d.Verdict, d.By, tc.want, tc.by)
		}
	}
	// Always is asked once, for what asked.
	a := &answer{a: Always}
	p := &Policy{Steps: ask, Asker: a}
	for range 3 {
		if d := p.Decide(ctx, &Call{Name: "t"}); d.Verdict != Allow {
			t.Fatalf("after always: %+v", d)
		}
	}
	if a.asked != 1 {
		t.Errorf("asked %d times after always", a.asked)
	}
}

package policy

import (
	"context"
	"testing"
)

// A step that rewrites the arguments and decides nothing else is what
// the decision names: the record says what rewrote the call.
func TestChainNamesTheRewrite(t *testing.T) {
	t.Parallel()
	rewrite := DeciderFunc(func(context.Context, *Call) Decision {
		return Decision{By: "PreToolUse hook \"fix.sh\"", UpdatedArgs: map[string]any{"a": 1.0}}
	})
	nothing := DeciderFunc(func(context.Context, *Call) Decision { return Decision{} })
	d := Chain{nothing, rewrite}.Decide(context.Background(), &Call{Name: "sum"})
	if d.Verdict != None || d.By != `PreToolUse hook "fix.sh"` || d.UpdatedArgs["a"] != 1.0 {
		t.Errorf("decision %+v: want no verdict, by the step that rewrote the arguments", d)
	}
	// A step that decides names the decision, whoever rewrote.
	allow := DeciderFunc(func(context.Context, *Call) Decision { return Decision{Verdict: Allow, By: "allow rule"} })
	if d := (Chain{allow, rewrite}).Decide(context.Background(), &Call{Name: "sum"}); d.By != "allow rule" {
		t.Errorf("decision %+v: want the allow rule's", d)
	}
}

package registry

import (
	"context"
	"testing"
)

func TestUnknownToolMessage(t *testing.T) {
	t.Parallel()
	r := New()
	call := func(context.Context, *ToolContext, map[string]any) (any, error) { return nil, nil }
	r.MustRegister(&Spec{Name: "calculate_sum", Call: call})
	for name, want := range map[string]string{
		"calculate_summ": `unknown tool "calculate_summ"; did you mean "calculate_sum"? known tools: calculate_sum`,
		"nope":           `unknown tool "nope"; known tools: calculate_sum`,
	} {
		if got := r.UnknownTool(name).Error(); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

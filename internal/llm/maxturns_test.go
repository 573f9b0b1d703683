package llm

import (
	"testing"
)

// TestMaxTurnsErrorWording: "within 1 turn", not "within 1 turns".
func TestMaxTurnsErrorWording(t *testing.T) {
	t.Parallel()
	for turns, want := range map[int]string{
		1: "the model did not answer within 1 turn (the turns a prompt may take); it still asked for tools",
		3: "the model did not answer within 3 turns (the turns a prompt may take); it still asked for tools",
	} {
		if got := (&MaxTurnsError{Turns: turns}).Error(); got != want {
			t.Errorf("MaxTurnsError{%d} = %q, want %q", turns, got, want)
		}
	}
}

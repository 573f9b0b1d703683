package junit

import (
	"testing"
)

func TestSources(t *testing.T) {
	var s Sources
	if got := s.Of(1); got != "" {
		t.Errorf("Of before any file = %q", got)
	}
	s.Begin("a.yaml", 1)
	s.Begin("empty.yaml", 4)
	s.Begin("b.jsonl", 4)
	for pos, want := range map[int64]string{1: "a.yaml", 3: "a.yaml", 4: "b.jsonl", 1000: "b.jsonl"} {
		if got := s.Of(pos); got != want {
			t.Errorf("Of(%d) = %q, want %q", pos, got, want)
		}
	}
}

package records

import "testing"

// TestShardEndFileAt: an eval shard's end names the file of a run's
// position from the files' first runs; one that names none says "".
func TestShardEndFileAt(t *testing.T) {
	t.Parallel()
	e := ShardEnd{Files: []ShardFile{{Name: "a.yaml", First: 1}, {Name: "b.jsonl", First: 6}}}
	for pos, want := range map[int64]string{1: "a.yaml", 5: "a.yaml", 6: "b.jsonl", 9: "b.jsonl"} {
		if got := e.FileAt(pos); got != want {
			t.Errorf("FileAt(%d) = %q, want %q", pos, got, want)
		}
	}
	if got := (ShardEnd{}).FileAt(1); got != "" {
		t.Errorf("an end that names no file: FileAt(1) = %q", got)
	}
}

package batch

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad: a state file is outside input (a user may edit it); Load
// refuses what is broken rather than handing collect a state it would
// trip over.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"version":1,"id":"x","provider":"claude","model":"m","file":"/r.jsonl","requests":2,"parts":[{"batch":"b","first":1,"last":2}],"submitted":true}`))
	f.Add([]byte(`{"version":1,"provider":"gemini","model":"m","file":"f","parts":[{"batch":"b","first":1,"last":1},{"batch":"c","first":3,"last":4}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "s.json")
		os.WriteFile(path, data, 0o644)
		st, err := Load(path)
		if err != nil {
			return
		}
		var next int64 = 1
		for _, p := range st.Parts {
			if p.First != next || p.Last < p.First || p.Batch == "" {
				t.Fatalf("Load took broken parts: %+v", st.Parts)
			}
			next = p.Last + 1
			if _, ok := st.part(p.First); !ok {
				t.Fatalf("part of %d not found", p.First)
			}
		}
	})
}

package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesPartsBeyondTheRequests: a state file edited by hand whose
// parts do not hold exactly the batch's requests is refused before
// collect writes a record.
func TestLoadRefusesPartsBeyondTheRequests(t *testing.T) {
	for _, tc := range []struct{ name, state, want string }{
		{"past the end", `"requests":2,"parts":[{"batch":"b","first":1,"last":7}],"submitted":true`, "part 1 holds requests 1 to 7 of a batch of 2"},
		{"fewer sent", `"requests":3,"parts":[{"batch":"b","first":1,"last":2}],"submitted":true`, "the batch of 3 requests is marked sent, but its parts hold 2"},
		{"negative", `"requests":-1,"parts":[],"submitted":true`, "marked sent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.json")
			data := `{"version":1,"id":"x","provider":"claude","model":"m","file":"/r.jsonl",` + tc.state + `}`
			if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(path); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Load: %v, want %q", err, tc.want)
			}
		})
	}
	// An interrupted submit: parts sent so far, not yet all.
	path := filepath.Join(t.TempDir(), "s.json")
	data := `{"version":1,"id":"x","provider":"claude","model":"m","file":"/r.jsonl","requests":3,"parts":[{"batch":"b","first":1,"last":2}]}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Fatalf("Load of an unfinished submit: %v", err)
	}
}

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
			if p.Last > st.Requests {
				t.Fatalf("Load took a part past the batch's %d requests: %+v", st.Requests, p)
			}
			if _, ok := st.part(p.First); !ok {
				t.Fatalf("part of %d not found", p.First)
			}
		}
	})
}

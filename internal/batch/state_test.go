package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kesoku/kesoku/internal/llm"
	"github.com/kesoku/kesoku/internal/llm/llmtest"
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

// TestCollectRefusesAStateThatLies: a state file whose count of requests
// (and its parts with it) was edited is refused before collect writes a
// record or allocates anything by that count, naming the state file and
// both counts: a count far past the file's (which would take all memory),
// a little past it, and short of it.
func TestCollectRefusesAStateThatLies(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Claude, "", replies(3)...)
	defer srv.Close()
	b := connect(t, srv)
	dir, file := imageWorkspace(t, 3, noIDs)
	res, err := Submit(context.Background(), submitOptions(srv, b, dir, file))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{1_000_000_000_000, 5, 2} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			st, err := Load(res.Path)
			if err != nil {
				t.Fatal(err)
			}
			st.Requests, st.Parts[len(st.Parts)-1].Last = n, n
			path := filepath.Join(t.TempDir(), "edited.json")
			if err := st.Save(path); err != nil {
				t.Fatal(err)
			}
			var out recorded
			_, err = collect(t, context.Background(), b, path, &out)
			var bad *UsageError
			want := fmt.Sprintf("%s: the state says the batch holds %d requests, but %s holds 3", path, n, file)
			if !errors.As(err, &bad) || !strings.Contains(err.Error(), want) {
				t.Errorf("collect: %v\nwant a usage error saying %q", err, want)
			}
			if len(out.recs) != 0 {
				t.Errorf("%d records written", len(out.recs))
			}
		})
	}
}

// TestSubmitRefusesAStateThatLies: an unfinished submit whose state says
// more requests were sent than the file holds is refused before anything
// is sent.
func TestSubmitRefusesAStateThatLies(t *testing.T) {
	srv := llmtest.NewServer(llmtest.Claude, "", replies(3)...)
	defer srv.Close()
	b := &smallBatches{Batcher: connect(t, srv), limits: llm.BatchLimits{MaxRequests: 2}}
	dir, file := imageWorkspace(t, 3, noIDs)
	o := submitOptions(srv, b, dir, file)
	o.StatePath = filepath.Join(dir, "state.json")
	if _, err := Submit(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	st, err := Load(o.StatePath)
	if err != nil {
		t.Fatal(err)
	}
	// The first part as it was, then a part past the file's end, not yet
	// all sent.
	st.Parts = st.Parts[:1]
	st.Parts = append(st.Parts, Part{Batch: "msgbatch_made_up", First: 3, Last: 7})
	st.Requests, st.Submitted = 9, false
	if err := st.Save(o.StatePath); err != nil {
		t.Fatal(err)
	}
	sent := len(srv.Batches())
	_, err = Submit(context.Background(), o)
	var bad *UsageError
	want := fmt.Sprintf("%s: the state says requests 1 to 7 were sent, but %s holds 3", o.StatePath, file)
	if !errors.As(err, &bad) || !strings.Contains(err.Error(), want) {
		t.Errorf("submit: %v\nwant a usage error saying %q", err, want)
	}
	if len(srv.Batches()) != sent {
		t.Errorf("%d batches sent", len(srv.Batches())-sent)
	}
}

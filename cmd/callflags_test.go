package cmd

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kesoku/kesoku/internal/app"
)

// TestCallFlags: run and session take the flags that bound tool calls
// alike, with the same defaults but --jobs, and turn them into the same
// runner options.
func TestCallFlags(t *testing.T) {
	t.Parallel()
	g := &globals{AWD: "/awd"}
	parse := func(t *testing.T, name string, args ...string) callFlags {
		t.Helper()
		var got callFlags
		var err error
		switch name {
		case "run":
			c := newRunCmd(g, func(_ context.Context, o *runOptions) error { got = o.callFlags; return nil })
			c.SetArgs(append([]string{"a.yaml"}, args...))
			err = c.Execute()
		case "session":
			c := newSessionCmd(g, func(_ context.Context, o *sessionOptions) error { got = o.callFlags; return nil })
			c.SetArgs(args)
			err = c.Execute()
		}
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	defaults := map[string]callFlags{
		"run":     {Jobs: 1, Grace: 5 * time.Second, MaxOutput: 1 << 20},
		"session": {Jobs: 4, Grace: 5 * time.Second, MaxOutput: 1 << 20},
	}
	set := []string{"-j", "8", "--timeout", "300ms", "--grace", "1s", "--max-output", "64KiB"}
	want := callFlags{Jobs: 8, Timeout: 300 * time.Millisecond, Grace: time.Second, MaxOutput: 64 << 10}
	wantCalls := &app.Calls{Jobs: 8, Timeout: 300 * time.Millisecond, Grace: time.Second, MaxOutput: 64 << 10}
	for name, def := range defaults {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(def, parse(t, name)); diff != "" {
				t.Errorf("defaults mismatch (-want +got):\n%s", diff)
			}
			got := parse(t, name, set...)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("flags mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(wantCalls, got.calls()); diff != "" {
				t.Errorf("calls mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

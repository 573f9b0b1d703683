package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolspec"
)

// TestRegistered checks what kesoku_gen.go registered from the doc
// comments: every built-in, with only write_file marked as writing.
func TestRegistered(t *testing.T) {
	t.Parallel()
	want := map[string]bool{
		"calculate_sum": false, "read_file": false, "write_file": true, "list_dir": false,
		"glob": false, "grep": false, "current_time": false, "sleep": false,
	}
	got := map[string]bool{}
	for name := range want {
		s, ok := registry.Default.Lookup(name)
		if !ok {
			t.Errorf("%s is not registered: run kesoku gen", name)
			continue
		}
		got[name] = s.Writes
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registered tools' Writes mismatch (-want +got):\n%s", diff)
	}
}

// TestRegisteredCalls runs the tools the way the runner does, through
// their generated Call with decoded JSON arguments: defaults apply, and a
// path that leads out is an invalid argument.
func TestRegisteredCalls(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	writeFiles(t, f.awd, map[string]string{"a.txt": "one\ntwo\n"})
	call := func(name string, args map[string]any) (any, error) {
		t.Helper()
		s, ok := registry.Default.Lookup(name)
		if !ok {
			t.Fatalf("%s is not registered", name)
		}
		return s.Call(context.Background(), f.tc, args)
	}
	got, err := call("read_file", map[string]any{"path": "a.txt", "offset": 2.0})
	must(t, err)
	want := &FileContent{Path: "a.txt", Content: "two\n", StartLine: 2, EndLine: 2, TotalLines: 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read_file mismatch (-want +got):\n%s", diff)
	}
	if got, err := call("list_dir", map[string]any{}); err != nil || got.(*Listing).Path != "." {
		t.Errorf("list_dir with no path = %+v, %v; want the AWD", got, err)
	}
	if got, err := call("calculate_sum", map[string]any{"a": 1.0, "b": 2.0}); err != nil || got != 3 {
		t.Errorf("calculate_sum(1, 2) = %v, %v", got, err)
	}
	for name, args := range map[string]map[string]any{
		"read_file":  {"path": "../secret"},
		"write_file": {"path": "out-dir/x", "content": "pwned"},
		"list_dir":   {"path": "sub/out-mid"},
		"glob":       {"pattern": "out-dir-rel/*"},
		"grep":       {"pattern": "SECRET", "path": "out-file"},
	} {
		_, err := call(name, args)
		if !toolspec.IsInvalidArgs(err) || !strings.Contains(err.Error(), "leads outside the working directory") {
			t.Errorf("%s(%v): error = %v, want an invalid argument leading outside", name, args, err)
		}
	}
	f.assertOutsideIntact(t)
}

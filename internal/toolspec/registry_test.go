package toolspec

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// namePattern is NamePattern compiled, the reference ValidName is held to.
var namePattern = regexp.MustCompile(NamePattern)

func TestValidName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want bool
	}{
		{"calculate_sum", true},
		{"_private", true},
		{"a", true},
		{"Read-File2", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"9lives", false},
		{"-lead", false},
		{"has.dot", false},
		{"has space", false},
		{"trailing\n", false},
		{"café", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := ValidName(tt.name); got != tt.want {
				t.Errorf("ValidName(%q) = %v, want %v", tt.name, got, tt.want)
			}
			if got := namePattern.MatchString(tt.name); got != tt.want {
				t.Errorf("%s matches %q = %v, want %v", NamePattern, tt.name, got, tt.want)
			}
		})
	}
}

// FuzzValidName holds the hand-written ValidName to the regular expression
// NamePattern.
func FuzzValidName(f *testing.F) {
	for _, s := range []string{"calculate_sum", "9lives", "a-b", strings.Repeat("x", 65), "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if got, want := ValidName(name), namePattern.MatchString(name); got != want {
			t.Errorf("ValidName(%q) = %v, pattern says %v", name, got, want)
		}
	})
}

func TestRegisterRefuses(t *testing.T) {
	t.Parallel()
	call := func(context.Context, *ToolContext, map[string]any) (any, error) { return nil, nil }
	tests := []struct {
		name string
		spec *testSpec
		want string
	}{
		{"bad name", &testSpec{Name: "has.dot", Source: "x.go:1", Call: call},
			`register x.go:1: tool name "has.dot" does not match ` + NamePattern},
		{"no call", &testSpec{Name: "tool", Source: "x.go:2"},
			`register x.go:2: tool "tool" has no Call`},
		{"taken", &testSpec{Name: "taken", Source: "y.go:3", Call: call},
			`register y.go:3: tool "taken" already registered at x.go:1`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := New()
			r.MustRegister(&testSpec{Name: "taken", Source: "x.go:1", Call: call})
			err := r.Register(tt.spec)
			if err == nil {
				t.Fatalf("Register(%q) = nil, want an error", tt.spec.Name)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("error mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"taken"}, r.Names()); diff != "" {
				t.Errorf("names after a refusal mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRegisterGeneratedKeepsClashes checks that generated code's clash of
// names between packages is kept for the program to report, the name
// staying with the tool that had it, while what kesoku gen never writes
// still panics.
func TestRegisterGeneratedKeepsClashes(t *testing.T) {
	t.Parallel()
	call := func(context.Context, *ToolContext, map[string]any) (any, error) { return nil, nil }
	r := NewRegistry[ToolContext]()
	mine := &Spec[ToolContext]{Name: "glob", Source: "tools.go:9", Package: "example.com/mytools/tools", Call: call}
	builtin := &Spec[ToolContext]{Name: "glob", Source: "glob.go:30", Package: "github.com/kesoku/kesoku/internal/tools", Call: call}
	RegisterGenerated(r, mine)
	RegisterGenerated(r, builtin)
	if got, _ := r.Lookup("glob"); got != mine {
		t.Errorf("glob is %s's, want the first registered, %s's", got.Package, mine.Package)
	}
	clashes := Clashes(r)
	if len(clashes) != 1 || clashes[0].Kept != mine || clashes[0].Refused != builtin {
		t.Errorf("Clashes = %+v, want %s kept and %s refused", clashes, mine.Package, builtin.Package)
	}

	defer func() {
		if recover() == nil {
			t.Error("RegisterGenerated of a bad name did not panic")
		}
	}()
	RegisterGenerated(r, &Spec[ToolContext]{Name: "has.dot", Source: "x.go:1", Call: call})
}

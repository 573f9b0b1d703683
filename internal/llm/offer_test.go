package llm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/registry"

	"github.com/kesoku/kesoku/internal/toolset"
)

func TestOfferDefaultsToReadOnly(t *testing.T) {
	t.Parallel()
	call := func(context.Context, *registry.ToolContext, map[string]any) (any, error) { return nil, nil }
	reg := toolset.New()
	reg.MustRegister(&toolset.Tool{Name: "calculate_sum", Call: call})
	reg.MustRegister(&toolset.Tool{Name: "label", Call: call, Writes: true})
	reg.MustRegister(&toolset.Tool{Name: "current_time", Call: call})
	tests := []struct {
		name  string
		names []string
		named bool
		want  []string
		err   string
	}{
		{name: "default leaves writing tools out", want: []string{"calculate_sum", "current_time"}},
		{name: "a writing tool when named", names: []string{"label", " calculate_sum"}, named: true, want: []string{"label", "calculate_sum"}},
		{name: "all", names: []string{"all"}, named: true, want: []string{"calculate_sum", "current_time", "label"}},
		{name: "none", names: []string{""}, named: true},
		{name: "unknown", names: []string{"calculate_summ"}, named: true, err: `unknown tool "calculate_summ"; did you mean "calculate_sum"?`},
		{name: "the defaults plus one", names: []string{"+label"}, named: true, want: []string{"calculate_sum", "current_time", "label"}},
		{name: "the defaults less one", names: []string{"-calculate_sum"}, named: true, want: []string{"current_time"}},
		{name: "added and taken away", names: []string{" +label", "-current_time"}, named: true, want: []string{"calculate_sum", "label"}},
		{name: "added twice, or already there", names: []string{"+label", "+label", "+calculate_sum"}, named: true, want: []string{"calculate_sum", "current_time", "label"}},
		{name: "a tool not there taken away", names: []string{"-label"}, named: true, want: []string{"calculate_sum", "current_time"}},
		{name: "every default taken away", names: []string{"-calculate_sum", "-current_time"}, named: true},
		{name: "unknown added", names: []string{"+lable"}, named: true, err: `unknown tool "lable"; did you mean "label"?`},
		{name: "unknown taken away", names: []string{"-current_tim"}, named: true, err: `unknown tool "current_tim"; did you mean "current_time"?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			choice, err := ParseChoice(tt.names, tt.named)
			if err != nil {
				t.Fatal(err)
			}
			specs, offered, err := Offer(reg, choice)
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range specs {
				got = append(got, s.Name)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("tools mismatch (-want +got):\n%s", diff)
			}
			// The registry the session runs calls from holds exactly them.
			var held []string
			for _, s := range offered.All() {
				held = append(held, s.Name)
			}
			for _, n := range got {
				if _, ok := offered.Lookup(n); !ok {
					t.Errorf("offered registry lacks %s", n)
				}
			}
			if len(held) != len(got) {
				t.Errorf("offered registry holds %v, want %v", held, got)
			}
		})
	}
}

func TestParseChoiceRefusesMixedLists(t *testing.T) {
	t.Parallel()
	tests := []struct {
		names []string
		err   string
	}{
		{[]string{"write_file", "+run_command"}, `"write_file" and "+run_command" mixed: plain names are the tools offered, in place of the default ones; +NAME adds a tool to the default tools and -NAME takes one away; give one kind or the other`},
		{[]string{"-read_file", "all"}, `"all" and "-read_file" mixed: `},
		{[]string{"+"}, `"+" names no tool: write +NAME`},
		{[]string{"read_file", "- "}, `"-" names no tool: write -NAME`},
		{[]string{"+label", "-label"}, `label is both added (+label) and taken away (-label)`},
	}
	for _, tt := range tests {
		_, err := ParseChoice(tt.names, true)
		var ce *ChoiceError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tt.err) {
			t.Errorf("ParseChoice(%q) = %v, want a ChoiceError %q", tt.names, err, tt.err)
		}
	}
}

func TestParseChoiceDefaults(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		names    []string
		named    bool
		defaults bool
	}{
		{nil, false, true},
		{[]string{"+write_file"}, true, true},
		{[]string{"-read_file"}, true, true},
		{[]string{"read_file"}, true, false},
		{[]string{""}, true, false},
		{[]string{"all"}, true, false},
	} {
		c, err := ParseChoice(tt.names, tt.named)
		if err != nil {
			t.Fatal(err)
		}
		if c.Defaults() != tt.defaults {
			t.Errorf("ParseChoice(%q, %v).Defaults() = %v, want %v", tt.names, tt.named, c.Defaults(), tt.defaults)
		}
	}
}

// FuzzParseChoice: whatever a --tools list holds, ParseChoice gives one
// kind of choice or an error, never both kinds, never a blank name.
func FuzzParseChoice(f *testing.F) {
	for _, s := range []string{"", "all", "read_file,write_file", "+write_file", "+write_file,-sleep", "read_file,+x", "+", " - ", "+a,-a", "all,-a", "+ a", "-\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, list string) {
		c, err := ParseChoice(strings.Split(list, ","), true)
		if err != nil {
			var ce *ChoiceError
			if !errors.As(err, &ce) {
				t.Fatalf("ParseChoice(%q): %v is no ChoiceError", list, err)
			}
			return
		}
		if c.Replace && (len(c.Add) > 0 || len(c.Remove) > 0) || !c.Replace && len(c.Names) > 0 {
			t.Fatalf("ParseChoice(%q) = %+v: both kinds", list, c)
		}
		if c.All && (len(c.Names) != 1 || c.Names[0] != "all") {
			t.Fatalf("ParseChoice(%q) = %+v: All without the one name all", list, c)
		}
		for _, n := range append(append(append([]string{}, c.Names...), c.Add...), c.Remove...) {
			if n == "" || strings.TrimSpace(n) != n {
				t.Fatalf("ParseChoice(%q) = %+v: name %q", list, c, n)
			}
		}
	})
}

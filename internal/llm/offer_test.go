package llm

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kesoku/kesoku/registry"
)

func TestOfferDefaultsToReadOnly(t *testing.T) {
	t.Parallel()
	call := func(context.Context, *registry.ToolContext, map[string]any) (any, error) { return nil, nil }
	reg := registry.New()
	reg.MustRegister(&registry.Spec{Name: "calculate_sum", Call: call})
	reg.MustRegister(&registry.Spec{Name: "label", Call: call, Writes: true})
	reg.MustRegister(&registry.Spec{Name: "current_time", Call: call})
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			specs, offered, err := Offer(reg, tt.names, tt.named)
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

package tooldoc

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseJSON(t *testing.T) {
	t.Parallel()
	for tag, want := range map[string]JSON{
		``:                             {},
		`json:"-"`:                     {Skip: true},
		`json:"-,"`:                    {Name: "-"},
		`json:"name"`:                  {Name: "name"},
		`json:",omitempty"`:            {Optional: true},
		`json:"n,omitzero,string"`:     {Name: "n", Optional: true, Quoted: true},
		`xml:"x" json:"a,omitempty" `:  {Name: "a", Optional: true},
		`json:"a" description:"An a."`: {Name: "a"},
	} {
		if got := ParseJSON(tag); got != want {
			t.Errorf("ParseJSON(%q) = %+v, want %+v", tag, got, want)
		}
	}
}

func TestDescriptionAndEnum(t *testing.T) {
	t.Parallel()
	if got := Description(`json:"a" description:" What a is. "`); got != "What a is." {
		t.Errorf("Description = %q", got)
	}
	for _, tt := range []struct {
		tag  string
		want []string
		ok   bool
	}{
		{`enum:"fast, slow,fast"`, []string{"fast", "slow"}, true},
		{`enum:" , "`, nil, true},
		{`json:"a"`, nil, false},
	} {
		got, ok := Enum(tt.tag)
		if !cmp.Equal(got, tt.want) || ok != tt.ok {
			t.Errorf("Enum(%q) = %q, %v; want %q, %v", tt.tag, got, ok, tt.want, tt.ok)
		}
	}
}
